//! `registry group list`.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Rows};
use registry_client::ListQuery;
use registry_core::api::Group;

pub async fn run(ctx: &Ctx, q: Option<String>) -> Result<(), Fail> {
    let query = match q {
        Some(q) => ListQuery::default().filter("q", q),
        None => ListQuery::default(),
    };
    let groups: Vec<Group> = ctx.client.all_pages("/group", &query).await?;
    let cells = groups
        .iter()
        .map(|g| {
            vec![
                g.id.clone(),
                g.name.clone(),
                g.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: &groups,
            headers: &["_id", "name", "description"],
            cells,
        },
    )?;
    Ok(())
}
