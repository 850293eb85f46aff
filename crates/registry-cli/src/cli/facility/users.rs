//! `registry facility users`: the users linked to a facility, with their responsibilities and
//! licences.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    view::print_users(ctx.format, &f.users)
}
