//! `registry equipment test-types`: the QC test types and how often each falls due.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Column, or_empty};
use crate::cli::resolve;
use registry_core::equipment::TestType;

const COLUMNS: &[Column<TestType>] = &[
    ("_id", |t| t.id.clone()),
    ("name", |t| t.name.clone()),
    ("typeOfEquipment", |t| t.type_of_equipment.name.clone()),
    ("expirationInDays", |t| t.expiration_in_days.to_string()),
    ("description", |t| or_empty(&t.description)),
];

pub async fn run(ctx: &Ctx, equipment_type: Option<String>) -> Result<(), Fail> {
    let type_id = match equipment_type {
        Some(t) => Some(resolve::equipment_type(ctx, &t).await?.id),
        None => None,
    };
    let list = ctx.client.test_types(type_id.as_deref()).await?;
    output::print_table(ctx.format, &list, COLUMNS)?;
    Ok(())
}
