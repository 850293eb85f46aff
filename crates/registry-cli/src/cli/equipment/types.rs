//! `registry equipment types`: the equipment types (Gama Câmara, PET/CT...).

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Rows};
use registry_client::ListQuery;

pub async fn run(ctx: &Ctx, q: Option<String>) -> Result<(), Fail> {
    let query = match q {
        Some(q) => ListQuery::default().filter("q", q),
        None => ListQuery::default(),
    };
    let types = ctx.client.equipment_types(&query).await?;
    let cells = types
        .iter()
        .map(|t| {
            vec![
                t.id.clone(),
                t.name.clone(),
                t.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: &types,
            headers: &["_id", "name", "description"],
            cells,
        },
    )?;
    Ok(())
}
