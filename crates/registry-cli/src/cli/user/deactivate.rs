//! `registry user deactivate`: their tokens stop working; history is kept.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{prompt, resolve};

pub async fn run(ctx: &Ctx, text: &str, yes: bool) -> Result<(), Fail> {
    let u = resolve::user(ctx, text).await?;
    let who = format!("{} <{}>", u.name, u.email);
    let question = format!("Deactivate {who}?");
    let deactivate = ctx.client.deactivate_user(&u.id);
    prompt::confirm_and_send(ctx, yes, &question, "Not deactivated.", deactivate, &who).await
}
