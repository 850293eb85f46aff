//! `registry user password`: change your password, or (Administrator) another user's. After a
//! change of your own the server ends older sessions and answers a fresh token, which replaces
//! the profile's so that it stays logged in.

use crate::cli::config;
use crate::cli::context::{Ctx, Fail};
use crate::cli::flag_terms::FlagTerms;
use crate::cli::prompt::PasswordKind;
use crate::cli::{output, prompt, resolve};

pub async fn run(ctx: &Ctx, user: Option<String>, password_stdin: bool) -> Result<(), Fail> {
    // Without a terminal the password comes from stdin or not at all: said before the user is
    // looked up.
    prompt::require(ctx.interactive, &[("--password-stdin", password_stdin)])?;
    let target = match user {
        Some(u) => Some(resolve::user(ctx, &u).await?),
        None => None,
    };
    let current = match &target {
        Some(_) => None,
        None => Some(prompt::password(
            password_stdin,
            ctx.interactive,
            "Current password",
            PasswordKind::Existing,
        )?),
    };
    let new = prompt::new_password(password_stdin, ctx.interactive).map_err(|e| match e {
        // Your own change reads two lines: the first was the current password.
        Fail::Usage(_) if password_stdin && current.is_some() => Fail::Usage(
            "--password-stdin: stdin gave the current password (its first line) but no new \
             one: give the new password on the second line"
                .into(),
        ),
        e => e,
    })?;
    // The passwords came from prompts or stdin, not flags: named as the prompts name them.
    let source = if password_stdin { " (from stdin)" } else { "" };
    let mut terms = FlagTerms::default();
    terms
        .given("currentPassword", format!("current password{source}"))
        .given("newPassword", format!("new password{source}"));
    let m = ctx
        .client
        .change_password(
            target.as_ref().map(|u| u.id.as_str()),
            current.as_deref(),
            &new,
        )
        .await
        .map_err(|e| terms.apply(e.into()))?;
    output::note(&m.message);
    if let Some(token) = m.token {
        match &ctx.token_profile {
            Some(name) => {
                save_token(name, token)?;
                output::note(format!(
                    "Profile `{name}` stays logged in with the new token."
                ));
            }
            None => output::note(
                "Older sessions were ended, including the token given by --token / REGISTRY_TOKEN: \
                 log in again with `registry login`.",
            ),
        }
    }
    Ok(())
}

/// Profile `name`'s token replaced in the profiles file as it is now (it may have changed since
/// the command started).
fn save_token(name: &str, token: String) -> Result<(), Fail> {
    config::Profiles::update(|all| {
        all.profiles.entry(name.to_owned()).or_default().token = Some(token);
    })?;
    Ok(())
}
