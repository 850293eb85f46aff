//! `registry group delete` (Administrator); refused while facilities use it.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, group: &str, yes: bool) -> Result<(), Fail> {
    let g = ctx.client.group(group).await?;
    if !prompt::confirm_or_say(
        ctx.interactive,
        yes,
        &format!("Delete group {}?", g.name),
        "Not deleted.",
    )? {
        return Ok(());
    }
    let m = ctx.client.delete_group(&g.id).await?;
    output::note(format!("{} {}", m.message, g.name));
    Ok(())
}
