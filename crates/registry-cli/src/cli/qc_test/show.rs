//! `registry test show`: one QC test record (with the figures of a computed test).

use super::view;
use crate::cli::context::{Ctx, Fail};

pub async fn run(ctx: &Ctx, test: &str) -> Result<(), Fail> {
    view::show(ctx.format, &ctx.client.qc_test(test).await?)
}
