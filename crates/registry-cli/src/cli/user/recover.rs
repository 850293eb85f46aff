//! `registry user recover`: ask for a password recovery e-mail.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output;

pub async fn run(ctx: &Ctx, email: &str) -> Result<(), Fail> {
    let m = ctx.client.request_password_recovery(email).await?;
    Ok(output::message(ctx.format, &m)?)
}
