//! The session context of a command: the resolved global options (profile, server, token,
//! output, whether a person is at the terminal), the server URL checks and the client. Why a
//! command failed (its exit code, product.md §7) is in `fail`.

use super::config;
use super::output::{self, Format};
use registry_client::{Client, api_base};
use std::io::IsTerminal;

mod fail;

pub use fail::{
    Fail, allowed_value, allowed_values, invalid_flag, invalid_value, one_of, refuse_to_overwrite,
};

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
