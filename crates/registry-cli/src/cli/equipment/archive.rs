//! `registry equipment archive`: it and its QC tests leave every list; the audit log keeps them.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};

pub async fn run(ctx: &Ctx, id: &str, yes: bool) -> Result<(), Fail> {
    let e = ctx.client.equipment(id).await?;
    let label = resolve::equipment_label(&e);
    if !prompt::confirm_or_say(
        ctx.interactive,
        yes,
        &format!("Archive {label}?"),
        "Not archived.",
    )? {
        return Ok(());
    }
    let m = ctx.client.archive_equipment(&e.id).await?;
    output::note(format!("{} {label}", m.message));
    Ok(())
}
