//! `registry document release`: release a signed document to the facility.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output;

pub async fn run(ctx: &Ctx, document: &str) -> Result<(), Fail> {
    let d = ctx.client.release_document(document).await?;
    output::note(format!(
        "Released {} to {}",
        d.name,
        view::facility_name(&d)
    ));
    view::show(ctx.format, &d)
}
