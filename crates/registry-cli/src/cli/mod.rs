//! The `registry` command line: global options, the command tree and its dispatch. The session
//! context and the exit codes (product.md §7) are in `context`; the look-ups every command shares
//! in `resolve`; each resource's commands one file each under its folder.

mod audit;
mod auth;
mod cancel;
mod changes;
mod columns;
mod config;
mod context;
mod days;
mod document;
mod equipment;
mod examples;
mod facility;
mod flag_terms;
mod group;
mod line;
mod material;
mod notices;
mod offered;
mod output;
mod payload;
mod permissions;
mod prompt;
mod qc_test;
mod resolve;
mod rules;
mod user;
mod waste;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use context::{Ctx, Fail, Globals};
use output::Format;
use registry_client::ClientError;
use std::process::ExitCode;

/// The heading of the options every command takes (`--profile`, `--server`, `--token`,
/// `--output`, `--no-input`) in `--help`, after a command's own options.
const GLOBAL_OPTIONS: &str = "Global options";

#[derive(Debug, Parser)]
#[command(
    name = "registry",
    version,
    about = "Admin tool of the facility registry: log in, register and edit facilities, assign \
             responsibilities, manage users and groups, equipment, QC tests, documents, radioactive material, waste and notices.",
    after_help = "Exit codes: 0 ok, 1 failure, 2 usage, 3 auth or permission, 4 validation, 5 not found or conflict, 130 cancelled (Ctrl-C, or Ctrl-D on an empty answer)."
)]
pub struct Cli {
    /// Profile to use (e.g. production, staging); default: the last one logged into.
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS, env = "REGISTRY_PROFILE")]
    profile: Option<String>,
    /// Server URL, e.g. https://registry.example.org (the `/api` suffix is optional).
    // Its value is not shown in help: a URL may carry a password (refused when used, never shown).
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS, env = "REGISTRY_URL", hide_env_values = true)]
    server: Option<String>,
    /// Token to use instead of the profile's. Scripts should set REGISTRY_TOKEN instead: a
    /// flag's value shows in `ps` and in the shell's history.
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS, env = "REGISTRY_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Output format.
    #[arg(long, short, global = true, help_heading = GLOBAL_OPTIONS, value_enum, default_value = "table")]
    output: Format,
    /// Never prompt; missing input is an error.
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS)]
    no_input: bool,
    #[command(subcommand)]
    command: Command,
    /// Where `--server` came from (`--server` or `REGISTRY_URL`), for messages.
    #[arg(skip)]
    server_origin: &'static str,
    /// Where `--token` came from (`--token` or `REGISTRY_TOKEN`), for `whoami` and messages.
    #[arg(skip)]
    token_origin: &'static str,
    /// The subcommands given, e.g. `group delete`, for messages.
    #[arg(skip)]
    command_path: String,
    /// The command's own flags typed on the command line, `(id, long name)`, to name a refused
    /// field by the flag that gave it (`flag_terms::typed`).
    #[arg(skip)]
    typed_flags: Vec<(String, String)>,
}

impl Cli {
    /// The command line of this process (`Cli::parse`), noting whether the server URL came from
    /// `--server` or `REGISTRY_URL`. An empty `REGISTRY_PROFILE`, `REGISTRY_URL` or
    /// `REGISTRY_TOKEN` (as CI templates often export them) counts as unset.
    pub fn parse_args() -> Cli {
        let matches = Cli::command()
            .try_get_matches()
            .unwrap_or_else(|e| parse_failed(e));
        let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| parse_failed(e));
        let from_env = |id: &str| matches.value_source(id) == Some(ValueSource::EnvVariable);
        for (id, value) in [
            ("profile", &mut cli.profile),
            ("server", &mut cli.server),
            ("token", &mut cli.token),
        ] {
            if from_env(id) && value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                *value = None;
            }
        }
        // `--profile ""` would save and use a profile without a name.
        if let Some(blank) = cli.profile.as_deref().filter(|p| p.trim().is_empty()) {
            let message = format!(
                "invalid value '{blank}' for '--profile <PROFILE>': a profile needs a name, \
                 e.g. production or staging"
            );
            parse_failed(Cli::command().error(clap::error::ErrorKind::InvalidValue, message));
        }
        let mut names = Vec::new();
        let mut level = &matches;
        let mut command = Cli::command();
        while let Some((name, sub)) = level.subcommand() {
            names.push(name);
            level = sub;
            command = command
                .find_subcommand(name)
                .cloned()
                .expect("clap matched a subcommand it knows");
        }
        cli.command_path = names.join(" ");
        cli.typed_flags = command
            .get_arguments()
            .filter(|a| !a.is_global_set())
            .filter(|a| level.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine))
            .filter_map(|a| Some((a.get_id().to_string(), a.get_long()?.to_owned())))
            .collect();
        cli.server_origin = if from_env("server") {
            "REGISTRY_URL"
        } else {
            "--server"
        };
        cli.token_origin = if from_env("token") {
            "REGISTRY_TOKEN"
        } else {
            "--token"
        };
        cli
    }
}

/// Ends the process on a command line clap could not read: its text on stderr and exit 2 (help
/// and version on stdout, exit 0) as clap does, with, under `-o json`, the error envelope
/// (`code` `usage`) on stdout first, as for every other usage error (docs/cli.md).
fn parse_failed(e: clap::Error) -> ! {
    use clap::error::ErrorKind::{
        DisplayHelp, DisplayHelpOnMissingArgumentOrSubcommand, DisplayVersion,
    };
    let shown = matches!(
        e.kind(),
        DisplayHelp | DisplayHelpOnMissingArgumentOrSubcommand | DisplayVersion
    );
    if !shown && json_output_asked(std::env::args_os().skip(1)) {
        let _ = output::print_json(&Fail::Usage(clap_message(&e)).envelope());
    }
    e.exit()
}

/// clap's error message without its `error: ` prefix, usage and help pointer, on one line:
/// `the following required arguments were not provided: <FACILITY>`, `unrecognized subcommand
/// 'facilty'; tip: a similar subcommand exists: 'facility'`.
fn clap_message(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut message = String::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if !message.is_empty() {
            message.push_str(if message.ends_with(':') { " " } else { "; " });
        }
        message.push_str(line.strip_prefix("error: ").unwrap_or(line));
    }
    message
}

/// Whether a command line clap refused asks for `-o json` (`-o json`, `-ojson`, `-o=json`,
/// `--output json`, `--output=json`), read from the raw arguments up to a `--`.
fn json_output_asked(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let args: Vec<String> = args
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .collect();
    args.iter().enumerate().any(|(i, a)| {
        let next_is_json = || args.get(i + 1).is_some_and(|n| n == "json");
        match a.as_str() {
            "-o" | "--output" => next_is_json(),
            _ => matches!(
                a.strip_prefix("--output=").or_else(|| a.strip_prefix("-o")),
                Some("json" | "=json")
            ),
        }
    })
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Log in and keep the token in the profile.
    Login(auth::LoginArgs),
    /// Forget the profile's token.
    Logout,
    /// Who the profile's token belongs to.
    Whoami,
    /// List the profiles and the active one; `profiles use NAME` switches the active one.
    Profiles(auth::ProfilesArgs),
    /// Facilities: list, show, create, edit, archive, assign and unassign responsibilities,
    /// their users and history, import, export.
    #[command(subcommand)]
    Facility(facility::FacilityCommand),
    /// Users: list, show, create, edit, deactivate, passwords.
    #[command(subcommand)]
    User(user::UserCommand),
    /// Groups of facilities.
    #[command(subcommand)]
    Group(group::GroupCommand),
    /// Equipment of the facilities, equipment types and QC test types.
    #[command(subcommand)]
    Equipment(equipment::EquipmentCommand),
    /// QC tests: record, history, what falls due.
    #[command(subcommand)]
    Test(qc_test::TestCommand),
    /// Documents: upload, download, sign, release, comment, e-mail, verify a signed file.
    #[command(subcommand)]
    Document(document::DocumentCommand),
    /// Radioactive material: receive, list receipts, the week's usage against the authorisation.
    #[command(subcommand)]
    Material(material::MaterialCommand),
    /// Waste in decay storage: store, list (what can go today), release.
    #[command(subcommand)]
    Waste(waste::WasteCommand),
    /// What needs the responsible people: QC due, licences and documents ending, waste, quantities.
    Notices(notices::NoticesArgs),
    /// Shell completion script.
    Completions {
        /// The shell to write the script for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

pub async fn run(cli: Cli) -> ExitCode {
    let format = cli.output;
    cancel::watch(format == Format::Json);
    match dispatch(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout went away (`registry … | head -1`): what failed is only the
        // printing, which nobody reads; end quietly, like any Unix tool in a pipe. A command's
        // own outcome (a file that does not verify, rows that failed) keeps its exit code.
        Err(fail) if output::stdout_closed() && fail.is_closed_stdout() => ExitCode::SUCCESS,
        Err(Fail::Cancelled) => cancel::finish(format == Format::Json),
        Err(fail) => {
            fail.print();
            if format == Format::Json && !output::stdout_written() {
                // A script reads the envelope (the `_id` of a duplicate), unless the command
                // printed its outcome already (a verdict, an import's summary); a failure to print
                // it changes nothing: the exit code and stderr already tell.
                let _ = output::print_json(&fail.envelope());
            }
            ExitCode::from(fail.exit_code())
        }
    }
}

async fn dispatch(cli: Cli) -> Result<(), Fail> {
    let globals = Globals::new(
        cli.profile.as_deref(),
        cli.server,
        cli.server_origin,
        cli.token,
        cli.token_origin,
        cli.output,
        cli.no_input,
    )?;
    let withheld = globals.token_withheld.clone();
    let command_path = cli.command_path.clone();
    let typed = flag_terms::typed(&cli.typed_flags);
    let result = match preflight(&globals, &command_path).await {
        Ok(()) => run_command(cli.command, &globals).await,
        Err(fail) => Err(fail),
    }
    .map_err(|fail| typed.apply(fail));
    match (result, withheld) {
        // The 401 of a server the profile's token was kept from: no token was sent there (the
        // note before said why and what to do), which "log in again" would not help.
        (Err(Fail::Client(ClientError::Unauthorized(body))), Some((_, given))) => {
            Err(Fail::Auth(format!(
                "not logged in at {given}: no token was sent to it ({})",
                body.message
            )))
        }
        // "log in again" names the profile to log into, or, for a token given by --token /
        // REGISTRY_TOKEN, says that one was refused.
        (Err(fail), None) if fail.is_unauthorized() => {
            let hint = globals.refused_token_hint(&fail);
            Err(fail.hint(hint))
        }
        (Err(fail @ Fail::Client(ClientError::PermissionDenied(_))), _) => {
            let roles = globals.token.as_deref().and_then(auth::token_roles);
            Err(match permissions::hint(&command_path, roles) {
                Some(hint) => fail.hint(hint),
                None => fail,
            })
        }
        (result, _) => result,
    }
}

/// Before a command that the server may refuse for the caller's role, when a person is at the
/// terminal (its wizard may ask a dozen questions): that the server answers, the session holds
/// and, where roles alone settle it, that the caller may run it. Answers are then never asked
/// for a request that would be refused (audit of stop 40: a facility wizard answered in full,
/// then "session expired"). Scripts skip it: they ask nothing, and the request itself tells.
async fn preflight(globals: &Globals, command: &str) -> Result<(), Fail> {
    if !globals.interactive || permissions::needed(command).is_none() {
        return Ok(());
    }
    let refused = |code: &str, message: String| registry_core::ErrorBody {
        message,
        code: code.into(),
        errors: None,
        id: None,
    };
    let ctx = Ctx::new(globals)?;
    let Some(token) = ctx.client.token() else {
        if !permissions::needs_token(command) {
            return Ok(());
        }
        let message = format!("profile `{}` has no token", globals.profile);
        return Err(ClientError::Unauthorized(refused("unauthorized", message)).into());
    };
    let Some(id) = auth::token_user_id(token) else {
        // Not a registry token: the server says why it refuses it.
        return match ctx.client.user("me").await {
            Err(e @ ClientError::Unauthorized(_)) => Err(e.into()),
            _ => Ok(()),
        };
    };
    let user = ctx.client.user(&id).await?;
    if permissions::may_run(command, &user.roles) == Some(false) {
        let message = "permission denied: your role may not do this".to_owned();
        return Err(ClientError::PermissionDenied(refused("permission_denied", message)).into());
    }
    Ok(())
}

async fn run_command(command: Command, globals: &Globals) -> Result<(), Fail> {
    match command {
        Command::Login(args) => auth::login(globals, args).await,
        Command::Logout => auth::logout(globals),
        Command::Profiles(args) => auth::profiles(globals, args),
        Command::Whoami => auth::whoami(&Ctx::new(globals)?, globals).await,
        Command::Facility(c) => facility::run(&Ctx::new(globals)?, c).await,
        Command::User(c) => user::run(&Ctx::new(globals)?, c).await,
        Command::Group(c) => group::run(&Ctx::new(globals)?, c).await,
        Command::Equipment(c) => equipment::run(&Ctx::new(globals)?, c).await,
        Command::Test(c) => qc_test::run(&Ctx::new(globals)?, c).await,
        Command::Document(c) => document::run(globals, c).await,
        Command::Material(c) => material::run(&Ctx::new(globals)?, c).await,
        Command::Waste(c) => waste::run(&Ctx::new(globals)?, c).await,
        Command::Notices(a) => notices::run(&Ctx::new(globals)?, a).await,
        Command::Completions { shell } => {
            // Into memory first: `generate` panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "registry", &mut script);
            std::io::Write::write_all(&mut output::stdout(), &script)?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;
