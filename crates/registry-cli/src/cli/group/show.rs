//! `registry group show`: a group and its facilities.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, group: &str) -> Result<(), Fail> {
    view::show(ctx, &resolve::group(ctx, group).await?)
}
