//! `registry equipment show`: one piece of equipment by _id.

use super::view;
use crate::cli::context::{Ctx, Fail};

pub async fn run(ctx: &Ctx, id: &str) -> Result<(), Fail> {
    view::show(ctx.format, &ctx.client.equipment(id).await?)
}
