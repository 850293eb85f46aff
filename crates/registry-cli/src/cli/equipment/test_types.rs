//! `registry equipment test-types`: the QC test types and how often each falls due.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, or_empty};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, equipment_type: Option<String>) -> Result<(), Fail> {
    let type_id = match equipment_type {
        Some(t) => Some(resolve::equipment_type(ctx, &t).await?.id),
        None => None,
    };
    let list = ctx.client.test_types(type_id.as_deref()).await?;
    output::print_list(
        ctx.format,
        &list,
        &[
            "_id",
            "name",
            "typeOfEquipment",
            "expirationInDays",
            "description",
        ],
        |t| {
            vec![
                t.id.clone(),
                t.name.clone(),
                t.type_of_equipment.name.clone(),
                t.expiration_in_days.to_string(),
                or_empty(&t.description),
            ]
        },
    )?;
    Ok(())
}
