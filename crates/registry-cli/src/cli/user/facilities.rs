//! `registry user facilities`: the facilities a user is linked to, with what the user is
//! responsible for at each (`-o json`: the facilities as the API gives them).

use crate::cli::context::{Ctx, Fail};
use crate::cli::facility::view;
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let u = resolve::user(ctx, text).await?;
    let list = ctx.client.user_facilities(&u.id).await?;
    view::print_list_with(ctx.format, &list, "responsabilities", |f| {
        f.users
            .iter()
            .filter(|link| link.id == u.id)
            .flat_map(|link| link.responsabilities.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(", ")
    })
}
