//! `registry document show`: one document with its signature, comments and file versions.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, id: &str) -> Result<(), Fail> {
    view::show(ctx.format, &resolve::document(ctx, id).await?)
}
