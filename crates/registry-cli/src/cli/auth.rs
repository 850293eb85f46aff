//! `login`, `logout`, `whoami` and `profiles`: the token of each profile.

use super::context::{Ctx, Fail, Globals, check_server_url};
use super::output::{self, or_empty};
use super::prompt;
use base64::Engine;
use clap::Args;
use registry_client::Client;
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

pub async fn login(g: &mut Globals, args: LoginArgs) -> Result<(), Fail> {
    let origin = match &g.server {
        Some(_) => g.server_origin.clone(),
        None => "the prompt".to_owned(),
    };
    let server = prompt::text_or_ask(g.server.clone(), g.interactive, "--server", "Server URL")?;
    check_server_url(&server, &origin)?;
    let email = prompt::text_or_ask(args.email, g.interactive, "--email", "E-mail")?;
    let password = prompt::password(args.password_stdin, g.interactive, "Password", false)?;
    let client = Client::new(&server)?;
    let answer = client.login(&email, &password).await?;
    let profile = g.profiles.profiles.entry(g.profile.clone()).or_default();
    profile.server = Some(server.clone());
    profile.token = Some(answer.token);
    profile.email = Some(answer.user.email.clone());
    g.profiles.current = Some(g.profile.clone());
    let path = g.profiles.save()?;
    output::note(format!(
        "Logged in to {} as {} <{}> ({}); profile `{}` saved in {}",
        client.base(),
        answer.user.name,
        answer.user.email,
        roles(&answer.user.roles),
        g.profile,
        path.display()
    ));
    Ok(())
}

pub fn logout(g: &mut Globals) -> Result<(), Fail> {
    match g.profiles.profiles.get_mut(&g.profile) {
        Some(p) if p.token.is_some() => {
            p.token = None;
            g.profiles.save()?;
            output::note(format!("Logged out of profile `{}`.", g.profile));
        }
        _ => output::note(format!("Profile `{}` was not logged in.", g.profile)),
    }
    Ok(())
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
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims["id"]
        .as_str()
        .or(claims["sub"].as_str())
        .map(str::to_owned)
}

pub async fn whoami(ctx: &Ctx, g: &Globals) -> Result<(), Fail> {
    let Some(token) = ctx.client.token() else {
        return Err(Fail::Client(registry_client::ClientError::Unauthorized(
            registry_core::ErrorBody {
                message: format!("profile `{}` has no token", g.profile),
                code: "unauthorized".into(),
                errors: None,
                id: None,
            },
        )));
    };
    let id = token_user_id(token).ok_or_else(|| {
        Fail::Auth(format!(
            "the token {} is not a registry token; log in with `registry login`",
            token_origin(g)
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
            ("profile", g.profile.clone()),
        ],
    )?;
    Ok(())
}

/// Where the token in use came from, for messages.
fn token_origin(g: &Globals) -> String {
    if g.token_from_profile {
        format!("of profile `{}`", g.profile)
    } else {
        "given by --token / REGISTRY_TOKEN".to_owned()
    }
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

pub fn profiles(g: &Globals) -> Result<(), Fail> {
    #[derive(serde::Serialize)]
    struct Line {
        name: String,
        server: Option<String>,
        email: Option<String>,
        #[serde(rename = "loggedIn")]
        logged_in: bool,
        active: bool,
    }
    const COLUMNS: &[output::Column<Line>] = &[
        ("profile", |l| {
            if l.active {
                format!("* {}", l.name)
            } else {
                l.name.clone()
            }
        }),
        ("server", |l| or_empty(&l.server)),
        ("email", |l| or_empty(&l.email)),
        ("logged in", |l| output::yes_no(l.logged_in)),
    ];
    let lines: Vec<Line> = g
        .profiles
        .profiles
        .iter()
        .map(|(name, p)| Line {
            name: name.clone(),
            server: p.server.clone(),
            email: p.email.clone(),
            logged_in: p.token.is_some(),
            active: *name == g.profile,
        })
        .collect();
    output::print_table(g.format, &lines, COLUMNS)?;
    Ok(())
}
