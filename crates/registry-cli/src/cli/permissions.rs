//! Who may run a command (product.md §3, permissions), for the hint after a 403: `group delete`
//! needs the Administrator role (you are Físico). Every command is in [`RULES`] or [`OPEN`] (a
//! test walks the command tree), so a new command cannot be refused without a hint.

use registry_core::Role;

const STAFF: &str = "a staff role (Administrator, Admin, Físico or Laudos)";
const ADMINISTRATOR: &str = "the Administrator role";
const SIGNERS: &str = "the Administrator or Físico role";
const RELEASERS: &str = "the Administrator, Admin or Físico role";
const MANAGE_USERS: &str = "the Administrator role for a user with a role other than Cliente, or to \
     give one (Admin, Físico and Laudos manage Cliente users; a Cliente only themself, without roles)";
const STAFF_OR_SELF: &str =
    "a staff role (Administrator, Admin, Físico or Laudos), or to be that user";
const OTHERS_PASSWORD: &str =
    "the Administrator role to set another user's password (anyone may change their own)";

/// The commands the server may refuse for the role, and who may run them.
const RULES: &[(&str, &str)] = &[
    ("group delete", ADMINISTRATOR),
    ("document sign", SIGNERS),
    ("document return", SIGNERS),
    ("document release", RELEASERS),
    ("user create", MANAGE_USERS),
    ("user edit", MANAGE_USERS),
    ("user deactivate", MANAGE_USERS),
    ("user password", OTHERS_PASSWORD),
    ("user show", STAFF_OR_SELF),
    ("user facilities", STAFF_OR_SELF),
    ("user list", STAFF),
    ("facility create", STAFF),
    ("facility edit", STAFF),
    ("facility archive", STAFF),
    ("facility assign", STAFF),
    ("facility unassign", STAFF),
    ("facility import", STAFF),
    ("facility history", STAFF),
    ("group create", STAFF),
    ("group edit", STAFF),
    ("equipment create", STAFF),
    ("equipment edit", STAFF),
    ("equipment archive", STAFF),
    ("test record", STAFF),
    ("test edit", STAFF),
    ("test delete", STAFF),
    ("document upload", STAFF),
    ("document submit", STAFF),
    ("document archive", STAFF),
    ("document schedule-email", STAFF),
    ("material receive", STAFF),
    ("waste store", STAFF),
    ("waste release", STAFF),
    ("notices", STAFF),
];

/// The commands no role is refused: the session's own, and reads that show each caller what
/// they may see (a `Cliente` their facilities; anything else is "not found"). Only the test that
/// every command is classified reads it.
#[cfg(test)]
const OPEN: &[&str] = &[
    "login",
    "logout",
    "whoami",
    "profiles",
    "profiles use",
    "completions",
    "facility list",
    "facility show",
    "facility users",
    "facility export",
    "user recover",
    "user reset-password",
    "group list",
    "group show",
    "equipment list",
    "equipment show",
    "equipment types",
    "equipment test-types",
    "test show",
    "test report",
    "test history",
    "test due",
    "document list",
    "document show",
    "document download",
    "document comment",
    "document verify",
    "document signing-key",
    "material list",
    "material usage",
    "waste list",
];

/// Whether a caller holding `roles` may run `command`, where the table settles it by role
/// alone: `Some(false)` for a `Cliente`'s `facility create`, `None` where it depends on more (whom
/// a user command is about) or the command is open to everyone.
pub fn may_run(command: &str, roles: &[Role]) -> Option<bool> {
    let holds = |any: &[Role]| roles.iter().any(|r| any.contains(r));
    if command == "user create" {
        // With a token, staff only (a `Cliente` creates no one); without one it registers
        // themself, which [`needs_token`] lets through.
        return Some(roles.iter().any(|r| r.is_staff()));
    }
    match needed(command)? {
        STAFF => Some(roles.iter().any(|r| r.is_staff())),
        ADMINISTRATOR => Some(holds(&[Role::Administrator])),
        SIGNERS => Some(holds(&[Role::Administrator, Role::Physicist])),
        RELEASERS => Some(holds(&[Role::Administrator, Role::Admin, Role::Physicist])),
        _ => None,
    }
}

/// Whether `command` needs a session: every one the server may refuse for the role, but `user
/// create`, which without one registers the person at the terminal (a `Cliente`).
pub fn needs_token(command: &str) -> bool {
    needed(command).is_some() && command != "user create"
}

/// The roles that may run `command` (`group delete`), where the permissions table says.
pub fn needed(command: &str) -> Option<&'static str> {
    RULES
        .iter()
        .find(|(c, _)| *c == command)
        .map(|(_, who)| *who)
}

/// The hint after a 403 of `command`: the roles it needs, and the caller's (`roles`, from the
/// token), when known.
pub fn hint(command: &str, roles: Option<Vec<String>>) -> Option<String> {
    let needed = needed(command)?;
    let yours = match roles {
        Some(r) if !r.is_empty() => format!(" (you are {})", r.join(", ")),
        _ => String::new(),
    };
    Some(format!("`{command}` needs {needed}{yours}"))
}

#[cfg(test)]
mod tests {
    use super::{OPEN, RULES, hint, may_run};
    use clap::CommandFactory;
    use registry_core::Role;

    #[test]
    fn a_refusal_says_which_roles_may() {
        assert_eq!(
            hint("group delete", Some(vec!["Físico".into()])).as_deref(),
            Some("`group delete` needs the Administrator role (you are Físico)")
        );
        assert!(hint("facility create", None).unwrap().contains("Laudos"));
        let edit = hint("user edit", Some(vec!["Físico".into()])).unwrap();
        assert!(edit.contains("Administrator role") && edit.ends_with("(you are Físico)"));
        assert!(
            hint("user password", None)
                .unwrap()
                .contains("another user's")
        );
        assert!(hint("facility history", None).unwrap().contains("staff"));
        assert_eq!(hint("material list", None), None);
    }

    #[test]
    fn roles_alone_settle_who_may_run_a_command_where_the_table_says() {
        let client = [Role::Client];
        assert_eq!(may_run("facility create", &client), Some(false));
        assert_eq!(may_run("facility create", &[Role::Reports]), Some(true));
        assert_eq!(may_run("group delete", &[Role::Physicist]), Some(false));
        assert_eq!(may_run("document sign", &[Role::Physicist]), Some(true));
        assert_eq!(may_run("document release", &[Role::Reports]), Some(false));
        assert_eq!(may_run("user edit", &client), None);
        assert_eq!(may_run("user create", &client), Some(false));
        assert!(super::needs_token("facility create") && !super::needs_token("user create"));
        assert_eq!(may_run("facility list", &client), None);
    }

    /// Every command of the tree (`facility create`, `notices`) is either one the server may
    /// refuse for the role, with who may run it, or one it never refuses: none is left out.
    #[test]
    fn every_command_says_who_may_run_it() {
        fn runnable(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                let path = format!("{path} {}", sub.get_name()).trim().to_owned();
                // A group (`facility`) runs nothing itself: one of its commands must be named.
                if !sub.is_subcommand_required_set() {
                    out.push(path.clone());
                }
                runnable(sub, &path, out);
            }
        }
        let mut commands = Vec::new();
        runnable(&crate::cli::Cli::command(), "", &mut commands);
        let unclassified: Vec<&String> = commands
            .iter()
            .filter(|c| {
                let ruled = RULES.iter().any(|(r, _)| r == c);
                ruled == OPEN.contains(&c.as_str())
            })
            .collect();
        assert!(
            unclassified.is_empty(),
            "in neither RULES nor OPEN, or in both: {unclassified:?}"
        );
        for (command, _) in RULES {
            assert!(commands.contains(&command.to_string()), "{command}");
        }
    }
}
