//! `registry document comment`: add a comment.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, document: &str, text: Option<String>) -> Result<(), Fail> {
    let text = prompt::text(ctx, text, "--text", "Comment")?;
    let d = ctx.client.comment_document(document, &text).await?;
    output::note(format!(
        "Commented on {} ({} comments)",
        d.name,
        d.comments.len()
    ));
    view::show(ctx.format, &d)
}
