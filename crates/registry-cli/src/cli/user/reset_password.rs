//! `registry user reset-password`: set a new password with the code of a recovery e-mail.

use crate::cli::context::{Ctx, Fail};
use crate::cli::flag_terms::FlagTerms;
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, token: &str, password_stdin: bool) -> Result<(), Fail> {
    let new = prompt::new_password(password_stdin, ctx.interactive)?;
    // A refused code or password is named as the person gave it (`--code`, not the API's
    // `token`).
    let source = if password_stdin { " (from stdin)" } else { "" };
    let mut terms = FlagTerms::default();
    terms
        .given("token", "--code")
        .given("newPassword", format!("new password{source}"));
    let m = ctx
        .client
        .reset_password(token, &new)
        .await
        .map_err(|e| terms.apply(e.into()))?;
    Ok(output::message(ctx.format, &m)?)
}
