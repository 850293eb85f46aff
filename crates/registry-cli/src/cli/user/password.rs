//! `registry user password`: change your password, or (Administrator) another user's.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};

pub async fn run(ctx: &Ctx, user: Option<String>, password_stdin: bool) -> Result<(), Fail> {
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
            false,
        )?),
    };
    let new = prompt::password(password_stdin, ctx.interactive, "New password", true)?;
    let m = ctx
        .client
        .change_password(
            target.as_ref().map(|u| u.id.as_str()),
            current.as_deref(),
            &new,
        )
        .await?;
    output::note(&m.message);
    if m.token.is_some() {
        output::note("Log in again with `registry login` (older sessions were ended).");
    }
    Ok(())
}
