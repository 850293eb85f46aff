//! `registry user list` (staff).

use super::view;
use crate::cli::context::{Ctx, Fail};
use registry_client::ListQuery;
use registry_core::Role;
use registry_core::api::User;

pub async fn run(
    ctx: &Ctx,
    q: Option<String>,
    role: Option<Role>,
    active: Option<bool>,
) -> Result<(), Fail> {
    let mut query = ListQuery::default();
    if let Some(q) = q {
        query = query.filter("q", q);
    }
    if let Some(r) = role {
        query = query.filter("role", r.as_str());
    }
    if let Some(a) = active {
        query = query.filter("active", a.to_string());
    }
    let users: Vec<User> = ctx.client.all_pages("/users", &query).await?;
    view::print_list(ctx, &users)
}
