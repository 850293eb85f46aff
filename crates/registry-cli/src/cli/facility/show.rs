//! `registry facility show`: one facility, by _id, cnpj or exact name.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    view::show(ctx.format, &f)
}
