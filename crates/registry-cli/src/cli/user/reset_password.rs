//! `registry user reset-password`: set a new password with the code of a recovery e-mail.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, token: &str, password_stdin: bool) -> Result<(), Fail> {
    let new = prompt::new_password(password_stdin, ctx.interactive)?;
    let m = ctx.client.reset_password(token, &new).await?;
    output::note(m.message);
    Ok(())
}
