//! The `registry` command line: global options, the command tree, the session context (profile,
//! server, token, output, whether a person is at the terminal) and the exit codes of product.md §7.

mod auth;
mod config;
mod document;
mod equipment;
mod facility;
mod group;
mod import;
mod material;
mod notices;
mod output;
mod prompt;
mod qc_test;
mod user;
mod waste;
mod wizard;

use clap::{CommandFactory, Parser, Subcommand};
use output::Format;
use registry_client::{Client, ClientError};
use registry_core::FieldError;
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "registry",
    version,
    about = "Admin tool of the facility registry: log in, register and edit facilities, assign \
             responsibilities, manage users and groups, equipment, QC tests, documents, radioactive material, waste and notices.",
    after_help = "Exit codes: 0 ok, 1 failure, 2 usage, 3 auth or permission, 4 validation, 5 not found or conflict."
)]
pub struct Cli {
    /// Profile to use (e.g. production, staging); default: the last one logged into.
    #[arg(long, global = true, env = "REGISTRY_PROFILE")]
    profile: Option<String>,
    /// Server URL, e.g. https://registry.example.org (the `/api` suffix is optional).
    #[arg(long, global = true, env = "REGISTRY_URL")]
    server: Option<String>,
    /// Token to use instead of the profile's (for scripts).
    #[arg(long, global = true, env = "REGISTRY_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Output format.
    #[arg(long, short, global = true, value_enum, default_value = "table")]
    output: Format,
    /// Never prompt; missing input is an error.
    #[arg(long, global = true)]
    no_input: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Log in and keep the token in the profile.
    Login(auth::LoginArgs),
    /// Forget the profile's token.
    Logout,
    /// Who the profile's token belongs to.
    Whoami,
    /// List the profiles and the active one.
    Profiles,
    /// Facilities: list, show, create, edit, archive, assign responsibilities, import, export.
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
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The resolved global options: the active profile and its stored server and token, overridden
/// by flags and environment variables.
pub struct Globals {
    pub profile: String,
    pub profiles: config::Profiles,
    pub server: Option<String>,
    pub token: Option<String>,
    pub format: Format,
    /// A person is at the terminal (stdin and stdout) and prompts are allowed.
    pub interactive: bool,
}

impl Globals {
    fn new(cli: &Cli) -> Result<Globals, Fail> {
        let profiles = config::Profiles::load()?;
        let profile = profiles.active_name(cli.profile.as_deref());
        let stored = profiles.profiles.get(&profile).cloned().unwrap_or_default();
        Ok(Globals {
            server: cli.server.clone().or(stored.server),
            token: cli.token.clone().or(stored.token),
            format: cli.output,
            interactive: !cli.no_input
                && std::io::stdin().is_terminal()
                && std::io::stdout().is_terminal(),
            profile,
            profiles,
        })
    }
}

/// What a command that talks to the server needs: the client and how to talk to the person.
pub struct Ctx {
    pub client: Client,
    pub format: Format,
    pub interactive: bool,
}

impl Ctx {
    /// Refuses to guess a server: it comes from the profile, `--server` or `REGISTRY_URL`.
    fn new(g: &Globals) -> Result<Ctx, Fail> {
        let Some(server) = &g.server else {
            return Err(Fail::Usage(format!(
                "no server for profile `{}`: run `registry login --server URL`, or pass --server / set REGISTRY_URL",
                g.profile
            )));
        };
        let client = Client::new(server)?;
        Ok(Ctx {
            client: match &g.token {
                Some(t) => client.with_token(t.clone()),
                None => client,
            },
            format: g.format,
            interactive: g.interactive,
        })
    }
}

/// Why a command failed, and so its exit code.
#[derive(Debug)]
pub enum Fail {
    /// Wrong or missing input that prompts could not ask for (exit 2).
    Usage(String),
    /// Refused before sending, by the same rules the server applies (exit 4).
    Invalid(Vec<FieldError>),
    /// Checked and found wrong, e.g. a file that does not verify against its signature (exit 4).
    Rejected(String),
    /// A conflict found by the CLI itself, e.g. an ambiguous user name (exit 5).
    NotFound(String),
    Client(ClientError),
    Other(anyhow::Error),
}

impl From<ClientError> for Fail {
    fn from(e: ClientError) -> Self {
        Fail::Client(e)
    }
}

impl From<anyhow::Error> for Fail {
    fn from(e: anyhow::Error) -> Self {
        Fail::Other(e)
    }
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Self {
        Fail::Other(e.into())
    }
}

impl From<dialoguer::Error> for Fail {
    fn from(e: dialoguer::Error) -> Self {
        Fail::Other(e.into())
    }
}

impl Fail {
    fn exit_code(&self) -> u8 {
        match self {
            Fail::Usage(_) => 2,
            Fail::Invalid(_) | Fail::Rejected(_) => 4,
            Fail::NotFound(_) => 5,
            Fail::Other(_) => 1,
            Fail::Client(e) => match e {
                ClientError::Unauthorized(_) | ClientError::PermissionDenied(_) => 3,
                ClientError::Validation(_) => 4,
                ClientError::NotFound(_) | ClientError::Conflict(_) => 5,
                ClientError::Connection { .. }
                | ClientError::Server { .. }
                | ClientError::Io { .. }
                | ClientError::Decode { .. } => 1,
            },
        }
    }

    fn print(&self) {
        match self {
            Fail::Usage(m) => eprintln!("error: {m}"),
            Fail::NotFound(m) | Fail::Rejected(m) => eprintln!("error: {m}"),
            Fail::Other(e) => eprintln!("error: {e:#}"),
            Fail::Invalid(errors) => {
                eprintln!("error: the input is not valid:");
                print_field_errors(errors);
            }
            Fail::Client(e) => {
                eprintln!("error: {e}");
                print_field_errors(e.field_errors());
                match e {
                    ClientError::Unauthorized(_) => {
                        eprintln!("hint: log in again with `registry login`")
                    }
                    ClientError::Conflict(b) if b.code == "duplicate_facility" => {
                        if let Some(id) = &b.id {
                            eprintln!("the facility already registered is {id}");
                        }
                    }
                    ClientError::Conflict(b) if b.code == "version_mismatch" => {
                        eprintln!("hint: someone changed it meanwhile; show it again and retry")
                    }
                    _ => {}
                }
            }
        }
    }
}

/// One line per failing field, in plain words: `  - telephone: must include the area code...`.
pub fn print_field_errors(errors: &[FieldError]) {
    for e in errors {
        let field = if e.field.is_empty() { "body" } else { &e.field };
        eprintln!("  - {field}: {}", e.message);
    }
}

pub async fn run(cli: Cli) -> ExitCode {
    match dispatch(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(fail) => {
            fail.print();
            ExitCode::from(fail.exit_code())
        }
    }
}

async fn dispatch(cli: Cli) -> Result<(), Fail> {
    let mut globals = Globals::new(&cli)?;
    match cli.command {
        Command::Login(args) => auth::login(&mut globals, args).await,
        Command::Logout => auth::logout(&mut globals),
        Command::Profiles => auth::profiles(&globals),
        Command::Whoami => auth::whoami(&Ctx::new(&globals)?, &globals).await,
        Command::Facility(c) => facility::run(&Ctx::new(&globals)?, c).await,
        Command::User(c) => user::run(&Ctx::new(&globals)?, c).await,
        Command::Group(c) => group::run(&Ctx::new(&globals)?, c).await,
        Command::Equipment(c) => equipment::run(&Ctx::new(&globals)?, c).await,
        Command::Test(c) => qc_test::run(&Ctx::new(&globals)?, c).await,
        Command::Document(c) => document::run(&globals, c).await,
        Command::Material(c) => material::run(&Ctx::new(&globals)?, c).await,
        Command::Waste(c) => waste::run(&Ctx::new(&globals)?, c).await,
        Command::Notices(a) => notices::run(&Ctx::new(&globals)?, a).await,
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "registry",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    }
}
