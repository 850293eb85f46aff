//! `registry document submit` and `return`: the moves of the review that go through the API's
//! document edit (product.md §5): a draft or a document to correct is handed in for signing, and
//! a signer sends one awaiting signature back for correction, with a comment saying why.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};
use registry_core::document::{Document, DocumentStatus};

/// `Em andamento`/`Corrigir` → `Falta assinar`; from any other status a conflict (exit 5).
pub async fn submit(ctx: &Ctx, document: &str) -> Result<(), Fail> {
    use DocumentStatus::{InProgress, ToCorrect};
    let current = in_status(ctx, document, &[InProgress, ToCorrect], "submitted").await?;
    let d = ctx
        .client
        .move_document(&current.id, DocumentStatus::AwaitingSignature)
        .await?;
    output::note(format!("{} is now \"{}\"", d.name, d.status.as_str()));
    view::show(ctx.format, &d)
}

/// The document, when it is in one of `from`: the server takes an edit to the current status as
/// a no-op, so a document already awaiting signature (or sent back) would seem moved; it is
/// refused here instead, as the server refuses every other move.
async fn in_status(
    ctx: &Ctx,
    document: &str,
    from: &[DocumentStatus],
    done: &str,
) -> Result<Document, Fail> {
    let current = resolve::document(ctx, document).await?;
    if from.contains(&current.status) {
        return Ok(current);
    }
    let names: Vec<String> = from.iter().map(|s| format!("\"{}\"", s.as_str())).collect();
    Err(Fail::NotFound(format!(
        "{} is in \"{}\": only a document in {} can be {done}",
        current.name,
        current.status.as_str(),
        names.join(" or ")
    )))
}

/// `Falta assinar` → `Corrigir` (Físico, Administrator), then `text` as a comment on what to
/// correct; from any other status a conflict (exit 5).
pub async fn send_back(ctx: &Ctx, document: &str, text: Option<String>) -> Result<(), Fail> {
    // Without a terminal, a missing --text is said before the document is looked up, as
    // `document comment` says it.
    prompt::require(ctx.interactive, &[("--text", text.is_some())])?;
    let current = in_status(
        ctx,
        document,
        &[DocumentStatus::AwaitingSignature],
        "sent back",
    )
    .await?;
    let text = prompt::text(ctx, text, "--text", "What to correct")?;
    ctx.client
        .move_document(&current.id, DocumentStatus::ToCorrect)
        .await?;
    let d = ctx.client.comment_document(&current.id, &text).await?;
    output::note(format!(
        "{} is now \"{}\", with the comment",
        d.name,
        d.status.as_str()
    ));
    view::show(ctx.format, &d)
}
