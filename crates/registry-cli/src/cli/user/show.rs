//! `registry user show`: a user by _id, e-mail or name.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    view::show(ctx, &resolve::user(ctx, text).await?)
}
