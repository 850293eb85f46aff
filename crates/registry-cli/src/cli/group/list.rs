//! `registry group list`.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, or_empty};
use registry_client::ListQuery;
use registry_core::api::Group;

pub async fn run(ctx: &Ctx, q: Option<String>) -> Result<(), Fail> {
    let query = ListQuery::default().filter_opt("q", q);
    let groups: Vec<Group> = ctx.client.all_pages("/group", &query).await?;
    output::print_list(ctx.format, &groups, &["_id", "name", "description"], |g| {
        vec![g.id.clone(), g.name.clone(), or_empty(&g.description)]
    })?;
    Ok(())
}
