//! The session context of a command: the resolved global options (profile, server, token,
//! output, whether a person is at the terminal), the client, and why a command failed (its exit
//! code, product.md §7).

use super::config;
use super::output::{self, Format};
use registry_client::{Client, ClientError, api_base};
use registry_core::values::names_of;
use registry_core::{ErrorBody, FieldCode, FieldError};
use std::io::IsTerminal;

/// The resolved global options: the active profile and its stored server and token, overridden
/// by flags and environment variables.
pub struct Globals {
    pub profile: String,
    pub profiles: config::Profiles,
    pub server: Option<String>,
    /// Where `server` came from, for messages: `--server`, `REGISTRY_URL` or the profile.
    pub server_origin: String,
    pub token: Option<String>,
    /// Where `token` came from, for `whoami` and messages: `--token`, `REGISTRY_TOKEN` or the
    /// profile.
    pub token_origin: String,
    /// The token is the profile's (not `--token` / `REGISTRY_TOKEN`), so a fresh one the server
    /// gives (after a password change) replaces it there.
    pub token_from_profile: bool,
    /// The profile's token was left out because `server` (from `--server` / `REGISTRY_URL`) is
    /// not the profile's server: `(profile's server, server given)`, for the note that says so.
    pub token_withheld: Option<(String, String)>,
    pub format: Format,
    /// A person is at the terminal (stdin, stdout and stderr, where prompts draw) and prompts are allowed.
    pub interactive: bool,
}

impl Globals {
    /// `profile`, `server` and `token` as the flags (or environment variables) gave them, with
    /// `server_origin` and `token_origin` naming which of the two gave `server` and `token`;
    /// `no_input` forbids prompts.
    pub fn new(
        profile: Option<&str>,
        server: Option<String>,
        server_origin: &str,
        token: Option<String>,
        token_origin: &str,
        format: Format,
        no_input: bool,
    ) -> Result<Globals, Fail> {
        let profiles = config::Profiles::load()?;
        let profile = profiles.active_name(profile);
        let mut stored = profiles.profiles.get(&profile).cloned().unwrap_or_default();
        let server_origin = match &server {
            Some(_) => server_origin.to_owned(),
            None => format!("profile `{profile}`"),
        };
        // The profile's token belongs to the profile's server: never sent to another one.
        let token_withheld = match (&server, &stored.server) {
            (Some(given), Some(own)) if token.is_none() && !same_server(given, own) => {
                stored.token.take().map(|_| (own.clone(), given.clone()))
            }
            _ => None,
        };
        let token_origin = match &token {
            Some(_) => token_origin.to_owned(),
            None => format!("profile `{profile}`"),
        };
        Ok(Globals {
            server: server.or(stored.server),
            server_origin,
            token_origin,
            token_from_profile: token.is_none() && stored.token.is_some(),
            token_withheld,
            token: token.or(stored.token),
            format,
            // The prompts draw on stderr: with it redirected (a log) they could not show.
            interactive: !no_input
                && std::io::stdin().is_terminal()
                && std::io::stdout().is_terminal()
                && std::io::stderr().is_terminal(),
            profile,
            profiles,
        })
    }
}

impl Globals {
    /// The command that logs this profile in: `registry login`, with `--profile NAME` when a
    /// bare `registry login` would log into another profile (`registry --profile staging
    /// login`).
    pub fn login_command(&self) -> String {
        if self.profile == self.profiles.active_name(None) {
            "registry login".to_owned()
        } else {
            format!("registry --profile {} login", shell_word(&self.profile))
        }
    }

    /// What to do about a token the server refused (401): log this profile in again, or, for a
    /// token given by `--token` / `REGISTRY_TOKEN`, give one that works (logging in would not
    /// change the token given).
    pub fn refused_token_hint(&self, fail: &Fail) -> String {
        // Logging in again would be refused as well: only an Administrator can help.
        if fail.is_deactivated_account() {
            let email = (self.token_from_profile)
                .then(|| self.profiles.profiles.get(&self.profile))
                .flatten()
                .and_then(|p| p.email.clone())
                .unwrap_or_else(|| "EMAIL".to_owned());
            return format!(
                "the account is deactivated, so logging in again would be refused too: an \
                 Administrator must reactivate it (`registry user edit {} --active true`)",
                shell_word(&email)
            );
        }
        match &self.token {
            Some(_) if !self.token_from_profile => format!(
                "the token given by {} was refused (expired, or not this server's): give a \
                 valid one, or leave it out to use profile `{}`'s",
                self.token_origin, self.profile
            ),
            _ => format!("log in again with `{}`", self.login_command()),
        }
    }
}

/// `word` as a shell reads it back: quoted when it holds anything but letters, digits and
/// `-_.@`.
fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Whether two server URLs name the same API: compared as API bases (`/api` added when missing,
/// trailing `/` dropped), with the host's case and a default port ignored.
pub fn same_server(a: &str, b: &str) -> bool {
    let normalised = |s: &str| {
        let base = api_base(s);
        match reqwest::Url::parse(&base) {
            Ok(url) => url.as_str().trim_end_matches('/').to_owned(),
            Err(_) => base,
        }
    };
    normalised(a) == normalised(b)
}

/// A usage error (exit 2) unless `server` is an `http(s)://host[:port][/path]` URL; `origin`
/// names where it came from (`--server`, `REGISTRY_URL`, a profile). The URL is shown without
/// a password it carries.
pub fn check_server_url(server: &str, origin: &str) -> Result<(), Fail> {
    match server_url_problem(server) {
        None => Ok(()),
        Some(problem) => Err(Fail::Usage(format!(
            "the server URL `{}` (from {origin}) is not valid: {problem}; give one like \
             http://host:port, e.g. http://127.0.0.1:8080 or https://registry.example.org",
            without_password(server)
        ))),
    }
}

/// `server` with the password of a `user:password@` it carries shown as `***`, and a lone
/// `name@` too (`https://TOKEN@host` is how some tools carry a token), for messages and lists: a
/// password is never echoed.
pub fn without_password(server: &str) -> String {
    match reqwest::Url::parse(server.trim()) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        Ok(mut url) if !url.username().is_empty() => {
            let _ = url.set_username("***");
            url.to_string()
        }
        // Unreadable as an http URL (a bad port, no host, `host:secret@…` read as a scheme): by
        // the text, whatever stands between the scheme and the last `@` before the path may
        // hold a password.
        _ => {
            let (scheme, rest) = server.split_once("://").unwrap_or(("", server));
            let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            match rest[..authority_end].rfind('@') {
                Some(at) => {
                    let shown = match rest[..at].split_once(':') {
                        Some((user, _)) => format!("{user}:***"),
                        None => "***".to_owned(),
                    };
                    let prefix = if scheme.is_empty() {
                        String::new()
                    } else {
                        format!("{scheme}://")
                    };
                    format!("{prefix}{shown}{}", &rest[at..])
                }
                None => server.to_owned(),
            }
        }
    }
}

/// Why `server` is not an `http(s)://host[:port][/path]` URL, if it is not: a user or password
/// (`user:password@`), a query (`?…`) or a fragment (`#…`) is refused too, since the client
/// would send them in place of the token or lose them. The password is never echoed.
pub fn server_url_problem(server: &str) -> Option<String> {
    Some(match reqwest::Url::parse(server.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            if !url.username().is_empty() || url.password().is_some() {
                "it carries credentials (`user:password@` before the host): the registry takes \
                 the token of `registry login`, so leave them out"
                    .to_owned()
            } else if url.query().is_some() {
                "it has a query (`?…`): give only the scheme, host, port and path".to_owned()
            } else if url.fragment().is_some() {
                "it has a fragment (`#…`): give only the scheme, host, port and path".to_owned()
            } else {
                return None;
            }
        }
        _ if !server.contains("://") => "it does not start with http:// or https://".to_owned(),
        Ok(url) if !matches!(url.scheme(), "http" | "https") => {
            format!("the scheme is `{}`, not http or https", url.scheme())
        }
        Ok(_) => "it names no host".to_owned(),
        Err(e) => e.to_string(),
    })
}

/// The variable that sets how many seconds the CLI waits for the server's answer.
pub const TIMEOUT_VARIABLE: &str = "REGISTRY_TIMEOUT_SECS";

/// A client of `server` that waits for an answer as long as `REGISTRY_TIMEOUT_SECS` says
/// (seconds, at least 1), else [`registry_client::DEFAULT_TIMEOUT`]; a value that is not such a
/// number is a usage error naming the variable (exit 2). An empty one counts as unset.
pub fn client(server: &str) -> Result<Client, Fail> {
    let timeout = match std::env::var(TIMEOUT_VARIABLE) {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<u64>() {
            Ok(secs) if secs > 0 => std::time::Duration::from_secs(secs),
            _ => {
                return Err(Fail::Usage(format!(
                    "{TIMEOUT_VARIABLE}=`{v}` is not valid: give the seconds to wait for the \
                     server's answer, a whole number from 1 (default {})",
                    registry_client::DEFAULT_TIMEOUT.as_secs()
                )));
            }
        },
        _ => registry_client::DEFAULT_TIMEOUT,
    };
    Ok(Client::with_timeout(server, timeout)?)
}

/// What a command that talks to the server needs: the client and how to talk to the person.
pub struct Ctx {
    pub client: Client,
    pub format: Format,
    pub interactive: bool,
    /// The profile whose stored token the client uses; `None` when the token came from
    /// `--token` / `REGISTRY_TOKEN` (or there is none).
    pub token_profile: Option<String>,
}

impl Ctx {
    /// Refuses to guess a server: it comes from the profile, `--server` or `REGISTRY_URL`, and
    /// must be an http(s) URL.
    pub fn new(g: &Globals) -> Result<Ctx, Fail> {
        let Some(server) = &g.server else {
            return Err(Fail::Usage(format!(
                "no server for profile `{}`: run `{} --server URL`, or pass --server / set REGISTRY_URL",
                g.profile,
                g.login_command()
            )));
        };
        check_server_url(server, &g.server_origin)?;
        if let Some((own, given)) = &g.token_withheld {
            output::note(format!(
                "note: the token of profile `{}` (for {own}) is not sent to {given} (from {}); \
                 pass --token / REGISTRY_TOKEN, or log into that server with its own --profile",
                g.profile, g.server_origin
            ));
        }
        let client = client(server)?;
        Ok(Ctx {
            client: match &g.token {
                Some(t) => client.with_token(t.clone()),
                None => client,
            },
            format: g.format,
            interactive: g.interactive,
            token_profile: g.token_from_profile.then(|| g.profile.clone()),
        })
    }
}

/// Why a command failed, and so its exit code.
#[derive(Debug)]
pub enum Fail {
    /// Wrong or missing input that prompts could not ask for (exit 2).
    Usage(String),
    /// Found by the CLI itself before asking the server: a token that is not a registry token (exit 3).
    Auth(String),
    /// Refused before sending, by the same rules the server applies (exit 4).
    Invalid(Vec<FieldError>),
    /// Checked and found wrong, e.g. a file that does not verify against its signature (exit 4).
    Rejected(String),
    /// A conflict found by the CLI itself, e.g. an ambiguous user name (exit 5).
    NotFound(String),
    Client(ClientError),
    Other(anyhow::Error),
    /// The person cancelled at a prompt (Ctrl-C, or Ctrl-D on an empty answer): exit 130.
    Cancelled,
    /// A validation failure whose fields are shown as the flags that gave them
    /// (`flag_terms`): printed with these, while its exit code and envelope are the failure's.
    Relabelled(Box<Fail>, Vec<FieldError>),
    /// A failure and what to do about it: printed as the failure, then `hint: …`; its exit
    /// code and envelope are the failure's.
    Hinted(Box<Fail>, String),
}

impl Fail {
    /// Whether this is the server's 401 (refused or missing token), however it was wrapped.
    pub fn is_unauthorized(&self) -> bool {
        match self {
            Fail::Client(ClientError::Unauthorized(_)) => true,
            Fail::Hinted(inner, _) | Fail::Relabelled(inner, _) => inner.is_unauthorized(),
            _ => false,
        }
    }

    /// The server's 401 for a token whose account is deactivated.
    pub fn is_deactivated_account(&self) -> bool {
        match self {
            Fail::Client(ClientError::Unauthorized(body)) => {
                body.message.contains("account is deactivated")
            }
            Fail::Hinted(inner, _) | Fail::Relabelled(inner, _) => inner.is_deactivated_account(),
            _ => false,
        }
    }

    /// The server's 412: the record changed since the version the request was made from.
    pub fn is_version_mismatch(&self) -> bool {
        matches!(self, Fail::Client(ClientError::Conflict(body)) if body.code == "version_mismatch")
    }
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
    /// Ctrl-C at a pick list or a line prompt (read in raw mode: a key, not a signal) cancels.
    fn from(e: dialoguer::Error) -> Self {
        match e {
            dialoguer::Error::IO(io) if io.kind() == std::io::ErrorKind::Interrupted => {
                Fail::Cancelled
            }
            e => Fail::Other(e.into()),
        }
    }
}

impl Fail {
    /// Whether this failure is only that stdout's reader went away while a result was printed
    /// (a broken pipe, however the writer wrapped it), rather than the command's own outcome.
    /// This failure with `hint` said after it.
    pub fn hint(self, hint: impl Into<String>) -> Fail {
        Fail::Hinted(Box::new(self), hint.into())
    }

    pub fn is_closed_stdout(&self) -> bool {
        use std::io::ErrorKind::BrokenPipe;
        let e = match self {
            Fail::Other(e) => e,
            Fail::Hinted(inner, _) | Fail::Relabelled(inner, _) => return inner.is_closed_stdout(),
            _ => return false,
        };
        e.chain().any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == BrokenPipe)
                || cause
                    .downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
                    == Some(BrokenPipe)
                || cause.downcast_ref::<csv::Error>().is_some_and(
                    |e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == BrokenPipe),
                )
        })
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Fail::Usage(_) => 2,
            Fail::Auth(_) => 3,
            Fail::Invalid(_) | Fail::Rejected(_) => 4,
            Fail::NotFound(_) => 5,
            Fail::Other(_) => 1,
            Fail::Cancelled => super::cancel::CANCELLED,
            Fail::Hinted(inner, _) | Fail::Relabelled(inner, _) => inner.exit_code(),
            Fail::Client(e) => match e {
                ClientError::Unauthorized(_) | ClientError::PermissionDenied(_) => 3,
                ClientError::Validation(_) => 4,
                // Over the upload limit: refused input, like an empty file or a wrong type.
                ClientError::Server { status, .. }
                    if *status == reqwest::StatusCode::PAYLOAD_TOO_LARGE =>
                {
                    4
                }
                ClientError::NotFound(_) | ClientError::Conflict(_) => 5,
                ClientError::Connection { .. }
                | ClientError::Timeout { .. }
                | ClientError::Server { .. }
                | ClientError::Io { .. }
                | ClientError::Decode { .. } => 1,
            },
        }
    }

    /// The failure as the server's error envelope `{"message","code","errors"?,"_id"?}`: the
    /// server's own for an answer that carried one, else one made the same way for a failure the
    /// CLI found itself (`usage`, `validation_failed`, `not_found`...). Printed on stdout under
    /// `-o json` (docs/cli.md, scripts).
    pub fn envelope(&self) -> ErrorBody {
        let made = |code: &str, message: String, errors: Option<Vec<FieldError>>| ErrorBody {
            message,
            code: code.to_owned(),
            errors,
            id: None,
        };
        match self {
            Fail::Client(e) => match e.body() {
                Some(body) => body.clone(),
                None => {
                    let code = match e {
                        ClientError::Connection { .. } | ClientError::Timeout { .. } => {
                            "connection_failed"
                        }
                        ClientError::Io { .. } => "io_error",
                        _ => "unexpected_answer",
                    };
                    made(code, e.to_string(), None)
                }
            },
            Fail::Usage(m) => made("usage", m.clone(), None),
            Fail::Auth(m) => made("unauthorized", m.clone(), None),
            Fail::Invalid(errors) => made(
                "validation_failed",
                "the input is not valid".to_owned(),
                Some(errors.clone()),
            ),
            Fail::Rejected(m) => made("rejected", m.clone(), None),
            Fail::NotFound(m) => made("not_found", m.clone(), None),
            Fail::Other(e) => made("error", format!("{e:#}"), None),
            Fail::Cancelled => made("cancelled", "Cancelled.".to_owned(), None),
            Fail::Hinted(inner, _) | Fail::Relabelled(inner, _) => inner.envelope(),
        }
    }

    pub fn print(&self) {
        match self {
            Fail::Cancelled => super::cancel::say(),
            Fail::Hinted(inner, hint) => {
                inner.print();
                eprintln!("hint: {hint}");
            }
            Fail::Relabelled(inner, shown) => {
                match inner.as_ref() {
                    Fail::Client(ClientError::Validation(b)) => validation_headline(b),
                    _ => eprintln!("error: the input is not valid:"),
                }
                print_field_errors(shown);
            }
            Fail::Usage(m) => eprintln!("error: {m}"),
            Fail::NotFound(m) | Fail::Rejected(m) | Fail::Auth(m) => eprintln!("error: {m}"),
            Fail::Other(e) => eprintln!("error: {e:#}"),
            Fail::Invalid(errors) => {
                eprintln!("error: the input is not valid:");
                print_field_errors(errors);
            }
            Fail::Client(e) => {
                match e {
                    ClientError::Validation(b) => validation_headline(b),
                    _ => eprintln!("error: {e}"),
                }
                print_field_errors(e.field_errors());
                match e {
                    ClientError::Conflict(b) if b.code == "duplicate_facility" => {
                        if let Some(id) = &b.id {
                            eprintln!("the facility already registered is {id}");
                        }
                    }
                    ClientError::Server { status, .. }
                        if *status == reqwest::StatusCode::PAYLOAD_TOO_LARGE =>
                    {
                        eprintln!(
                            "hint: the file is over the server's upload limit \
                             (REGISTRY_UPLOAD_LIMIT_MIB on the server, 25 MiB by default)"
                        )
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

/// The values of a filter flag with a closed set of values (`--role`, `--department`,
/// `--status`, `--state`, `--kind`), each read by `parse`: every value outside the set is a
/// validation error (exit 4), as for the flags of `create` and `edit` (docs/cli.md, exit codes):
/// printed naming the flag, while the `-o json` envelope names the API's filter (the flag's
/// name without its dashes), as it names the API's paths for the fields of a payload.
pub fn allowed_values<T>(
    flag: &str,
    values: Vec<String>,
    parse: fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, Fail> {
    let mut read = Vec::new();
    let mut shown = Vec::new();
    for value in values {
        match parse(&value) {
            Ok(v) => read.push(v),
            Err(message) => shown.push(invalid_value(flag, &value, message)),
        }
    }
    if shown.is_empty() {
        return Ok(read);
    }
    let filter = flag.trim_start_matches('-');
    let api = shown
        .iter()
        .map(|e| FieldError::new(filter, e.code, e.message.clone()))
        .collect();
    Err(Fail::Relabelled(Box::new(Fail::Invalid(api)), shown))
}

/// The one of `all` whose name is `s` (trimmed), else the message naming the allowed values: a
/// `parse` for [`allowed_values`].
pub fn one_of<T: Copy>(s: &str, all: &[T], name: fn(T) -> &'static str) -> Result<T, String> {
    let s = s.trim();
    all.iter()
        .copied()
        .find(|&v| name(v) == s)
        .ok_or_else(|| format!("must be one of: {}", names_of(all, name)))
}

/// The field error of `value` given to `flag` outside its allowed set: ``--role `Fisico`: …``.
pub fn invalid_value(flag: &str, value: &str, message: String) -> FieldError {
    FieldError::new(
        format!("{flag} `{value}`"),
        FieldCode::InvalidValue,
        message,
    )
}

/// The value of `flag` refused with `message`: shown as the flag, while the `-o json` envelope
/// names the API's `field`, as the server would.
pub fn invalid_flag(field: &str, flag: &str, value: &str, message: String) -> Fail {
    let api = FieldError::new(field, FieldCode::InvalidValue, message.clone());
    Fail::Relabelled(
        Box::new(Fail::Invalid(vec![api])),
        vec![invalid_value(flag, value, message)],
    )
}

/// [`allowed_values`] for a flag given at most once.
pub fn allowed_value<T>(
    flag: &str,
    value: Option<String>,
    parse: fn(&str) -> Result<T, String>,
) -> Result<Option<T>, Fail> {
    Ok(allowed_values(flag, value.into_iter().collect(), parse)?.pop())
}

/// A usage error (exit 2) when `target` exists and `--force` was not given: a command never
/// overwrites a file unasked.
pub fn refuse_to_overwrite(target: &std::path::Path, force: bool) -> Result<(), Fail> {
    if !force && target.exists() {
        return Err(Fail::Usage(format!(
            "{} exists: pass --force to overwrite it, or --file PATH",
            target.display()
        )));
    }
    Ok(())
}

/// The first line of the server's refusal: its message, unless that is the "Invalid input: f1 …;
/// f2 …." summary of the fields printed after it, which would say each twice.
fn validation_headline(body: &ErrorBody) {
    if body.errors.as_ref().is_some_and(|e| !e.is_empty())
        && body.message.starts_with("Invalid input:")
    {
        eprintln!("error: the input is not valid:");
    } else {
        eprintln!("error: {}", body.message);
    }
}

/// One line per failing field, in plain words: `  - telephone: must include the area code...`.
pub fn print_field_errors(errors: &[FieldError]) {
    for e in errors {
        let field = if e.field.is_empty() { "body" } else { &e.field };
        eprintln!("  - {field}: {}", e.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_url_with_credentials_a_query_or_a_fragment_is_refused_without_its_password() {
        for ok in ["http://127.0.0.1:8080", "https://registry.example.org/api/"] {
            assert_eq!(server_url_problem(ok), None, "{ok}");
        }
        for (bad, says) in [
            ("http://ana:s3cret@127.0.0.1:8080", "credentials"),
            ("http://ana@127.0.0.1:8080", "credentials"),
            ("http://127.0.0.1:8080/api?x=1", "query"),
            ("http://127.0.0.1:8080/api#top", "fragment"),
        ] {
            let problem = server_url_problem(bad).unwrap_or_default();
            assert!(problem.contains(says), "{bad}: {problem}");
            let Err(Fail::Usage(message)) = check_server_url(bad, "--server") else {
                panic!("{bad} is a usage error");
            };
            assert!(!message.contains("s3cret"), "{message}");
        }
        assert_eq!(
            without_password("http://ana:s3cret@host:8080/api"),
            "http://ana:***@host:8080/api"
        );
        // A lone name may be a token: masked whole, with no password made up.
        assert_eq!(
            without_password("http://tok3nsecret@host:8080/api"),
            "http://***@host:8080/api"
        );
        assert_eq!(
            without_password("http://tok3nsecret@host:99999"),
            "http://***@host:99999"
        );
        // URLs that do not parse are masked by their text.
        for unreadable in [
            "http://admin:s3cret@127.0.0.1:99999",
            "http://admin:s3cret@",
            "http://admin:s3cret@[::1",
            "localhost:s3cret@127.0.0.1",
        ] {
            let shown = without_password(unreadable);
            assert!(!shown.contains("s3cret"), "{shown}");
            let Err(Fail::Usage(message)) = check_server_url(unreadable, "--server") else {
                panic!("{unreadable} is a usage error");
            };
            assert!(!message.contains("s3cret"), "{message}");
        }
    }
}
