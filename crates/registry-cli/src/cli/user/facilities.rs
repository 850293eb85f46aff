//! `registry user facilities`: the facilities a user is linked to.

use crate::cli::context::{Ctx, Fail};
use crate::cli::facility::view;
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let u = resolve::user(ctx, text).await?;
    let list = ctx.client.user_facilities(&u.id).await?;
    view::print_list(ctx.format, &list)
}
