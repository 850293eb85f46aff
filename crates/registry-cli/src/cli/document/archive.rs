//! `registry document archive`: delete a document (it leaves every list; its files and the audit
//! log keep it).

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};

pub async fn run(ctx: &Ctx, document: &str, yes: bool) -> Result<(), Fail> {
    let d = resolve::document(ctx, document).await?;
    if !prompt::confirm_or_say(
        ctx.interactive,
        yes,
        &format!("Delete document {} ({})?", d.name, d.status),
        "Not deleted.",
    )? {
        return Ok(());
    }
    let m = ctx.client.archive_document(&d.id).await?;
    output::note(format!("{} {}", m.message, d.name));
    Ok(())
}
