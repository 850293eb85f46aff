//! `login`, `logout`, `whoami` and `profiles`: the token of each profile.

use super::config::Profiles;
use super::context::{Ctx, Fail, Globals, check_server_url, same_server, without_password};
use super::output::{self, or_empty};
use super::prompt::PasswordKind;
use super::{prompt, rules};
use base64::Engine;
use clap::{Args, Subcommand};
use registry_client::ClientError;
use registry_core::api::User;

#[derive(Debug, Args)]
pub struct LoginArgs {
    /// E-mail of the account (prompted when missing).
    #[arg(long)]
    email: Option<String>,
    /// Read the password from the first line of stdin instead of prompting.
    #[arg(long)]
    password_stdin: bool,
}

/// `registry profiles`: list them; `registry profiles use NAME`: switch the active one.
#[derive(Debug, Args)]
pub struct ProfilesArgs {
    #[command(subcommand)]
    command: Option<ProfilesCommand>,
}

#[derive(Debug, Subcommand)]
enum ProfilesCommand {
    /// Make a profile the active one (used when no --profile is given), without logging in again.
    Use {
        /// The profile's name, as `registry profiles` lists it.
        name: String,
    },
}

pub async fn login(g: &Globals, args: LoginArgs) -> Result<(), Fail> {
    // A given URL that is not one is a usage error naming where it came from; then, without a
    // terminal, every missing flag is named at once. A URL typed at the prompt is asked again
    // until it is one.
    if let Some(given) = &g.server {
        check_server_url(given, &g.server_origin)?;
    }
    prompt::require(
        g.interactive,
        &[
            ("--server", g.server.is_some()),
            ("--email", args.email.is_some()),
            ("--password-stdin", args.password_stdin),
        ],
    )?;
    let server = match g.server.clone() {
        Some(given) => given,
        None => prompt::checked(
            None,
            g.interactive,
            "--server",
            "Server URL",
            None,
            Some(&rules::server_url),
        )?,
    };
    let email = prompt::checked(
        args.email,
        g.interactive,
        "--email",
        "E-mail",
        None,
        Some(&rules::email),
    )?;
    let password = prompt::password(
        args.password_stdin,
        g.interactive,
        "Password",
        PasswordKind::Existing,
    )?;
    let client = super::context::client(&server)?;
    let answer = match client.login(&email, &password).await {
        Ok(answer) => answer,
        // A refused login is no expired session: say what the server said (exit 3 all the same).
        Err(ClientError::Unauthorized(body)) => {
            return Err(Fail::Auth(format!(
                "login to {} refused: {}",
                client.base(),
                body.message
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let name = g.profile.clone();
    let (before, path) = Profiles::update(|all| {
        let profile = all.profiles.entry(name.clone()).or_default();
        let before = profile.server.replace(server.clone());
        profile.token = Some(answer.token);
        profile.email = Some(answer.user.email.clone());
        all.current = Some(name);
        before
    })?;
    if let Some(before) = before.filter(|b| !same_server(b, &server)) {
        output::note(format!(
            "warning: profile `{}` pointed at {before} and now points at {server}",
            g.profile
        ));
    }
    output::note(format!(
        "Logged in to {} as {} <{}> ({}); profile `{}` saved in {}",
        client.base(),
        answer.user.name,
        answer.user.email,
        roles(&answer.user.roles),
        g.profile,
        path.display()
    ));
    // For scripts: who is logged in where, as `profiles -o json` names them (never the token).
    if g.format == output::Format::Json {
        output::print_json(&serde_json::json!({
            "profile": g.profile,
            "server": client.base(),
            "email": answer.user.email,
            "name": answer.user.name,
            "roles": answer.user.roles,
            "_id": answer.user.id,
            "loggedIn": true,
        }))?;
    }
    Ok(())
}

pub fn logout(g: &Globals) -> Result<(), Fail> {
    let name = &g.profile;
    let (was_logged_in, _) = Profiles::update(|all| {
        all.profiles
            .get_mut(name)
            .and_then(|p| p.token.take())
            .is_some()
    })?;
    output::note(if was_logged_in {
        format!("Logged out of profile `{name}`.")
    } else {
        format!("Profile `{name}` was not logged in.")
    });
    if g.format == output::Format::Json {
        output::print_json(&serde_json::json!({
            "profile": name,
            "loggedOut": true,
            "wasLoggedIn": was_logged_in,
        }))?;
    }
    Ok(())
}

/// `registry profiles use NAME`: profile `NAME` becomes the active one, as after a `login` into it.
fn use_profile(name: &str, format: output::Format) -> Result<(), Fail> {
    let (known, _) = Profiles::update(|all| {
        let known: Vec<String> = all.profiles.keys().cloned().collect();
        if all.profiles.contains_key(name) {
            all.current = Some(name.to_owned());
            Ok(())
        } else {
            Err(known)
        }
    })?;
    match known {
        Ok(()) => {
            output::note(format!("Profile `{name}` is now the active one."));
            if format == output::Format::Json {
                output::print_json(&serde_json::json!({"profile": name, "active": true}))?;
            }
            Ok(())
        }
        Err(known) if known.is_empty() => Err(Fail::NotFound(format!(
            "no profile `{name}` (there are none yet): log into it with `registry --profile {name} login`"
        ))),
        Err(known) => Err(Fail::NotFound(format!(
            "no profile `{name}`; one of: {} (a new one: `registry --profile {name} login`)",
            known.join(", ")
        ))),
    }
}

fn roles(roles: &[registry_core::Role]) -> String {
    roles
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The user id inside the token (its payload is readable without the key).
pub fn token_user_id(token: &str) -> Option<String> {
    let claims = token_claims(token)?;
    claims["id"]
        .as_str()
        .or(claims["sub"].as_str())
        .map(str::to_owned)
}

/// The claims of a registry token (its middle part), unchecked: the server is the judge.
fn token_claims(token: &str) -> Option<serde_json::Value> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The roles a registry token names, for messages.
pub fn token_roles(token: &str) -> Option<Vec<String>> {
    let claims = token_claims(token)?;
    let roles = claims["roles"].as_array()?;
    Some(
        roles
            .iter()
            .filter_map(|r| r.as_str().map(str::to_owned))
            .collect(),
    )
}

pub async fn whoami(ctx: &Ctx, g: &Globals) -> Result<(), Fail> {
    let Some(token) = ctx.client.token() else {
        // Whether the server answers at all comes first: "not logged in" would hide that it
        // is not there (a wrong --server). Any answer (a 401 included) says it is there.
        // The server is named as the person gave it, with what was being checked: the path
        // asked (its public key, which needs no token) is an internal detail.
        let checked = format!(
            "{} (whoami checks that the server answers, having no token to ask it with)",
            ctx.client.base()
        );
        match ctx.client.signing_key().await {
            Err(ClientError::Connection { source, .. }) => {
                let source = source.without_url();
                return Err(ClientError::Connection {
                    url: checked,
                    source,
                }
                .into());
            }
            Err(ClientError::Timeout { seconds, .. }) => {
                return Err(ClientError::Timeout {
                    url: checked,
                    seconds,
                }
                .into());
            }
            _ => {}
        }
        let message = match &g.token_withheld {
            // `dispatch` says that none was sent to this server (and the note why).
            Some(_) => "whoami needs one".to_owned(),
            None => format!("profile `{}` has no token", g.profile),
        };
        return Err(Fail::Client(ClientError::Unauthorized(
            registry_core::ErrorBody {
                message,
                code: "unauthorized".into(),
                errors: None,
                id: None,
            },
        )));
    };
    let id = token_user_id(token).ok_or_else(|| {
        Fail::Auth(format!(
            "the token (from {}) is not a registry token; log in with `{}`",
            g.token_origin,
            g.login_command()
        ))
    })?;
    let user = ctx.client.user(&id).await?;
    output::print_record(
        ctx.format,
        &user,
        vec![
            ("name", user.name.clone()),
            ("email", user.email.clone()),
            ("roles", roles(&user.roles)),
            ("_id", user.id.clone()),
            ("server", ctx.client.base().to_owned()),
            // The profile only when the token is its own: `--token` / `REGISTRY_TOKEN` may be
            // anyone's, whatever the active profile.
            ("profile", output::mark(g.token_from_profile, &g.profile)),
            ("token from", g.token_origin.clone()),
        ],
    )?;
    Ok(())
}

/// The user the client's token belongs to, read fresh from the server (`GET /user/:id`, which
/// anyone may ask about themself); `None` without a token or with one that is not a registry
/// token (the server then refuses the request that needed it).
pub async fn caller(ctx: &Ctx) -> Result<Option<User>, Fail> {
    let Some(id) = ctx.client.token().and_then(token_user_id) else {
        return Ok(None);
    };
    Ok(Some(ctx.client.user(&id).await?))
}

pub fn profiles(g: &Globals, args: ProfilesArgs) -> Result<(), Fail> {
    if let Some(ProfilesCommand::Use { name }) = args.command {
        return use_profile(&name, g.format);
    }
    #[derive(serde::Serialize)]
    struct Line {
        name: String,
        server: Option<String>,
        email: Option<String>,
        #[serde(rename = "loggedIn")]
        logged_in: bool,
        active: bool,
    }
    // The active marker in a column of its own, and headers as the JSON names them, so the
    // CSV reads like the JSON.
    const COLUMNS: &[output::Column<Line>] = &[
        ("active", |l| output::mark(l.active, "*")),
        ("profile", |l| l.name.clone()),
        ("server", |l| or_empty(&l.server)),
        ("email", |l| or_empty(&l.email)),
        ("loggedIn", |l| output::yes_no(l.logged_in)),
    ];
    let lines: Vec<Line> = g
        .profiles
        .profiles
        .iter()
        .map(|(name, p)| Line {
            name: name.clone(),
            server: p.server.as_deref().map(without_password),
            email: p.email.clone(),
            logged_in: p.token.is_some(),
            active: *name == g.profile,
        })
        .collect();
    output::print_table(g.format, &lines, COLUMNS)?;
    Ok(())
}
