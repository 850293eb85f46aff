//! `registry document archive`: delete a document (it leaves every list; its files and the audit
//! log keep it).

use crate::cli::context::{Ctx, Fail};
use crate::cli::{prompt, resolve};

pub async fn run(ctx: &Ctx, document: &str, yes: bool) -> Result<(), Fail> {
    let d = resolve::document(ctx, document).await?;
    let question = format!("Delete document {} ({})?", d.name, d.status);
    let delete = ctx.client.archive_document(&d.id);
    prompt::confirm_and_send(ctx, yes, &question, "Not deleted.", delete, &d.name).await
}
