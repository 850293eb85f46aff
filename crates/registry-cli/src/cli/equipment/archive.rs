//! `registry equipment archive`: it and its QC tests leave every list; the audit log keeps them.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{prompt, resolve};

pub async fn run(ctx: &Ctx, id: &str, yes: bool) -> Result<(), Fail> {
    let e = ctx.client.equipment(id).await?;
    let label = resolve::equipment_label(&e);
    let question = format!("Archive {label}?");
    let archive = ctx.client.archive_equipment(&e.id);
    prompt::confirm_and_send(ctx, yes, &question, "Not archived.", archive, &label).await
}
