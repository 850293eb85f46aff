//! `registry group delete` (Administrator); refused while facilities use it.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{prompt, resolve};

pub async fn run(ctx: &Ctx, group: &str, yes: bool) -> Result<(), Fail> {
    let g = resolve::group(ctx, group).await?;
    let question = format!("Delete group {}?", g.name);
    let delete = ctx.client.delete_group(&g.id);
    prompt::confirm_and_send(ctx, yes, &question, "Not deleted.", delete, &g.name).await
}
