//! `registry equipment types`: the equipment types (Gama Câmara, PET/CT...).

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, or_empty};
use registry_client::ListQuery;

pub async fn run(ctx: &Ctx, q: Option<String>) -> Result<(), Fail> {
    let query = ListQuery::default().filter_opt("q", q);
    let types = ctx.client.equipment_types(&query).await?;
    output::print_list(ctx.format, &types, &["_id", "name", "description"], |t| {
        vec![t.id.clone(), t.name.clone(), or_empty(&t.description)]
    })?;
    Ok(())
}
