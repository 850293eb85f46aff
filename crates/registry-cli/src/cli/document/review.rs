//! `registry document submit` and `return`: the moves of the review that go through the API's
//! document edit (product.md §5): a draft or a document to correct is handed in for signing, and
//! a signer sends one awaiting signature back for correction, with a comment saying why.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};
use registry_core::document::DocumentStatus;

/// `Em andamento`/`Corrigir` → `Falta assinar`.
pub async fn submit(ctx: &Ctx, document: &str) -> Result<(), Fail> {
    let d = ctx
        .client
        .move_document(document, DocumentStatus::AwaitingSignature)
        .await?;
    output::note(format!("{} is now \"{}\"", d.name, d.status.as_str()));
    view::show(ctx.format, &d)
}

/// `Falta assinar` → `Corrigir` (Físico, Administrator), then `text` as a comment on what to
/// correct; from any other status a conflict (exit 5).
pub async fn send_back(ctx: &Ctx, document: &str, text: Option<String>) -> Result<(), Fail> {
    // Without a terminal, a missing --text is said before the document is looked up, as
    // `document comment` says it.
    prompt::require(ctx.interactive, &[("--text", text.is_some())])?;
    // The server takes an edit to the current status as a no-op: a document already sent back
    // (or in any other status) is refused here, as the server refuses every other move.
    let current = ctx.client.document(document).await?;
    if current.status != DocumentStatus::AwaitingSignature {
        return Err(Fail::NotFound(format!(
            "{} is in \"{}\": only a document in \"{}\" can be sent back",
            current.name,
            current.status.as_str(),
            DocumentStatus::AwaitingSignature.as_str()
        )));
    }
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
