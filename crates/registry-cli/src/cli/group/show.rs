//! `registry group show`: a group and its facilities.

use super::view;
use crate::cli::context::{Ctx, Fail};

pub async fn run(ctx: &Ctx, group: &str) -> Result<(), Fail> {
    view::show(ctx, &ctx.client.group(group).await?)
}
