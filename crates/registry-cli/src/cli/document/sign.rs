//! `registry document sign`: sign a document awaiting signature (Físico, Administrator).

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output;

pub async fn run(ctx: &Ctx, document: &str) -> Result<(), Fail> {
    let d = ctx.client.sign_document(document).await?;
    output::note(format!(
        "Signed {} by {} at {}: authenticity code {}",
        d.name,
        d.signed_by.as_ref().map(|p| p.name.as_str()).unwrap_or("?"),
        d.signed_at.as_deref().map_or("?".into(), output::brasilia),
        d.code.as_deref().unwrap_or("?")
    ));
    view::show(ctx.format, &d)
}
