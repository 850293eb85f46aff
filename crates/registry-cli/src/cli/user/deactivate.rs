//! `registry user deactivate`: their tokens stop working; history is kept.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};

pub async fn run(ctx: &Ctx, text: &str, yes: bool) -> Result<(), Fail> {
    let u = resolve::user(ctx, text).await?;
    if !prompt::confirm_or_say(
        ctx.interactive,
        yes,
        &format!("Deactivate {} <{}>?", u.name, u.email),
        "Not deactivated.",
    )? {
        return Ok(());
    }
    let m = ctx.client.deactivate_user(&u.id).await?;
    output::note(format!("{} {} <{}>", m.message, u.name, u.email));
    Ok(())
}
