//! Tests of the command tree and its help: every argument described, the examples and headings
//! shown, and `-o json` found in a command line clap refused.

use super::Cli;
use clap::CommandFactory;

/// Every option and positional argument of every command, walked from the command tree,
/// says in a line what it is for (`registry <cmd> --help` shows no bare flag).
#[test]
fn every_argument_of_every_command_has_help() {
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            if help.trim().is_empty() {
                missing.push(format!("{path} {id}"));
            }
        }
        // `help` (clap's own) repeats the tree without arguments.
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let about = sub.get_about().map(|h| h.to_string()).unwrap_or_default();
            if about.trim().is_empty() {
                missing.push(format!("{path} {} (the command itself)", sub.get_name()));
            }
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut cmd = Cli::command();
    cmd.build();
    let mut missing = Vec::new();
    walk(&cmd, "registry", &mut missing);
    assert!(
        missing.is_empty(),
        "without a help line:\n{}",
        missing.join("\n")
    );
}

/// A negative number on a number flag reaches the flag's own check (the field's range
/// rule, exit 4, or the flag's range, exit 2) instead of being read as an unknown option.
#[test]
fn negative_numbers_are_values_of_number_flags() {
    use clap::Parser;
    for line in [
        "registry material receive --activity -5",
        "registry material receive --activity-mbq -5",
        "registry waste store --mass -1",
        "registry waste release P --dose-rate -0.5",
        "registry document download D --version -1",
    ] {
        let parsed = Cli::try_parse_from(line.split(' '));
        assert!(parsed.is_ok(), "{line}: {}", parsed.err().unwrap());
    }
    for line in [
        "registry facility list --page -1",
        "registry facility list --page-size -1",
        "registry facility import f.csv --concurrency -1",
    ] {
        let kind = Cli::try_parse_from(line.split(' ')).err().map(|e| e.kind());
        assert_eq!(
            kind,
            Some(clap::error::ErrorKind::ValueValidation),
            "{line}"
        );
    }
}

#[test]
fn json_output_is_found_in_a_command_line_clap_refused() {
    let asked =
        |line: &str| super::json_output_asked(line.split(' ').map(std::ffi::OsString::from));
    let json = [
        "facility list --page 0 -o json",
        "-ojson facilty list",
        "facility list --output=json --page 0",
        "facility list --output json",
    ];
    let other = [
        "facility list -o csv json",
        "facility show -- -o json",
        "facility list --page 0",
    ];
    assert!(json.iter().all(|l| asked(l)) && !other.iter().any(|l| asked(l)));
}

/// `registry A B --help`, with the global options the built tree gives every command.
fn long_help([group, command]: [&str; 2]) -> String {
    let mut cmd = Cli::command();
    cmd.build();
    cmd.find_subcommand_mut(group)
        .and_then(|c| c.find_subcommand_mut(command))
        .expect("the command")
        .render_long_help()
        .to_string()
}

/// The commands with the most to type show examples after their options.
#[test]
fn the_main_commands_show_examples() {
    for path in [
        ["facility", "create"],
        ["test", "record"],
        ["document", "verify"],
        ["material", "receive"],
        ["waste", "store"],
    ] {
        let help = long_help(path);
        let example = format!("registry {} {}", path[0], path[1]);
        assert!(
            help.contains("Examples:") && help.contains(&example),
            "{help}"
        );
    }
}

/// A command's own options come first in its `--help`; the global ones follow under their
/// own heading.
#[test]
fn global_options_have_their_own_heading() {
    let help = long_help(["facility", "create"]);
    let own = help.find("--company-name").expect("an own option");
    let heading = help.find("Global options:").expect("the heading");
    assert!(own < heading, "{help}");
    for global in ["--profile", "--server", "--token", "--output", "--no-input"] {
        assert!(help.find(global).expect(global) > heading, "{help}");
    }
}

/// What a flag does only on edit is said in the edit command's help, not in create's; and
/// the `facility` command's summary names every subcommand.
#[test]
fn edit_only_wording_is_on_the_edit_commands_only() {
    for noun in ["facility", "equipment"] {
        let create = long_help([noun, "create"]);
        let edit = long_help([noun, "edit"]);
        for edit_only in [
            "on edit",
            "clears it",
            "replaces the stored",
            "Replaces the stored",
        ] {
            assert!(!create.contains(edit_only), "{edit_only} in:\n{create}");
        }
        assert!(edit.contains("\"\" clears it"), "{edit}");
        assert!(
            edit.to_lowercase().contains("replaces the stored"),
            "{edit}"
        );
    }
    let mut cmd = Cli::command();
    cmd.build();
    let facility = cmd.find_subcommand("facility").expect("facility");
    let about = facility.get_about().expect("a summary").to_string();
    for sub in facility
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
    {
        assert!(
            about.contains(sub.get_name()),
            "{} missing from: {about}",
            sub.get_name()
        );
    }
}

/// `registry facility import --help` lists the CSV columns it reads instead of pointing at
/// itself.
#[test]
fn import_help_lists_the_csv_columns() {
    let help = long_help(["facility", "import"]);
    for column in registry_client::facility_csv::COLUMNS {
        assert!(help.contains(column), "{column} missing from:\n{help}");
    }
    assert!(
        !help.contains("see `registry facility import --help`"),
        "{help}"
    );
}
