//! `registry user list` (staff).

use super::view;
use crate::cli::context::{Ctx, Fail, allowed_value};
use registry_client::ListQuery;
use registry_core::Role;
use registry_core::api::User;

/// A role to list by, read as the server reads the filter: in any case, with or without accents
/// (`fisico`). A role given to a user is written exactly.
fn parse_role(s: &str) -> Result<Role, String> {
    Role::parse_loosely(s).ok_or_else(|| format!("must be one of: {}", Role::allowed()))
}

pub async fn run(
    ctx: &Ctx,
    q: Option<String>,
    role: Option<String>,
    active: Option<bool>,
) -> Result<(), Fail> {
    let role = allowed_value("--role", role, parse_role)?;
    let query = ListQuery::default()
        .filter_opt("q", q)
        .filter_opt("role", role.map(|r| r.as_str()))
        .filter_opt("active", active.map(|a| a.to_string()));
    let users: Vec<User> = ctx.client.all_pages("/users", &query).await?;
    view::print_list(ctx, &users)
}
