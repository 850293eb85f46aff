//! Why a command failed (`Fail`): its exit code (product.md §7), its `-o json` envelope and how it
//! is printed; and the refusals of flag values that make one.

use crate::cli::cancel;
use crate::cli::output::note;
use registry_client::ClientError;
use registry_core::text::search_key;
use registry_core::values::names_of;
use registry_core::{ErrorBody, FieldCode, FieldError};

/// A line on stderr, shown as [`note`] shows it (an input's control characters escaped).
macro_rules! say {
    ($($arg:tt)*) => {
        note(format!($($arg)*))
    };
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
            Fail::Cancelled => cancel::CANCELLED,
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
            Fail::Cancelled => cancel::envelope(),
            Fail::Hinted(inner, _) | Fail::Relabelled(inner, _) => inner.envelope(),
        }
    }

    pub fn print(&self) {
        match self {
            Fail::Cancelled => cancel::say(),
            Fail::Hinted(inner, hint) => {
                inner.print();
                say!("hint: {hint}");
            }
            Fail::Relabelled(inner, shown) => {
                match inner.as_ref() {
                    Fail::Client(ClientError::Validation(b)) => validation_headline(b),
                    _ => say!("error: the input is not valid:"),
                }
                print_field_errors(shown);
            }
            Fail::Usage(m) => say!("error: {m}"),
            Fail::NotFound(m) | Fail::Rejected(m) | Fail::Auth(m) => say!("error: {m}"),
            Fail::Other(e) => say!("error: {e:#}"),
            Fail::Invalid(errors) => {
                say!("error: the input is not valid:");
                print_field_errors(errors);
            }
            Fail::Client(e) => {
                match e {
                    ClientError::Validation(b) => validation_headline(b),
                    _ => say!("error: {e}"),
                }
                print_field_errors(e.field_errors());
                match e {
                    ClientError::Conflict(b) if b.code == "duplicate_facility" => {
                        if let Some(id) = &b.id {
                            say!("the facility already registered is {id}");
                        }
                    }
                    ClientError::Server { status, .. }
                        if *status == reqwest::StatusCode::PAYLOAD_TOO_LARGE =>
                    {
                        say!(
                            "hint: the file is over the server's upload limit \
                             (REGISTRY_UPLOAD_LIMIT_MIB on the server, 25 MiB by default)"
                        )
                    }
                    ClientError::Conflict(b) if b.code == "version_mismatch" => {
                        say!("hint: someone changed it meanwhile; show it again and retry")
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

/// The one of `all` whose name is `s` in any case, with or without accents and with any run of
/// white space as one space, else the message naming the allowed values: a `parse` for
/// [`allowed_values`].
pub fn one_of<T: Copy>(s: &str, all: &[T], name: fn(T) -> &'static str) -> Result<T, String> {
    let wanted = search_key(s.trim());
    all.iter()
        .copied()
        .find(|&v| search_key(name(v)) == wanted)
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
        say!("error: the input is not valid:");
    } else {
        say!("error: {}", body.message);
    }
}

/// One line per failing field, in plain words: `  - telephone: must include the area code...`.
pub fn print_field_errors(errors: &[FieldError]) {
    for e in errors {
        let field = if e.field.is_empty() { "body" } else { &e.field };
        say!("  - {field}: {}", e.message);
    }
}
