//! `registry document comment`: add a comment.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, document: &str, text: Option<String>) -> Result<(), Fail> {
    let text = prompt::text(ctx, text, "--text", "Comment")?;
    let d = ctx.client.comment_document(document, &text).await?;
    let n = d.comments.len();
    output::note(format!(
        "Commented on {} ({n} comment{})",
        d.name,
        if n == 1 { "" } else { "s" }
    ));
    view::show(ctx.format, &d)
}
