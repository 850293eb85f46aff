//! `registry equipment test-types`: the QC test types and how often each falls due.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Rows};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, equipment_type: Option<String>) -> Result<(), Fail> {
    let type_id = match equipment_type {
        Some(t) => Some(resolve::equipment_type(ctx, &t).await?.id),
        None => None,
    };
    let list = ctx.client.test_types(type_id.as_deref()).await?;
    let cells = list
        .iter()
        .map(|t| {
            vec![
                t.id.clone(),
                t.name.clone(),
                t.type_of_equipment.name.clone(),
                t.expiration_in_days.to_string(),
                t.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: &list,
            headers: &[
                "_id",
                "name",
                "typeOfEquipment",
                "expirationInDays",
                "description",
            ],
            cells,
        },
    )?;
    Ok(())
}
