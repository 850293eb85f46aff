//! `registry equipment edit`: only the fields given change.

use super::fields::EquipmentFields;
use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve};
use clap::Args;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The equipment's _id.
    equipment: String,
    /// Equipment type: _id or name (refused once QC tests were recorded).
    #[arg(long = "type")]
    equipment_type: Option<String>,
    /// In service (true) or out of service (false; it leaves `test due`).
    #[arg(long)]
    active: Option<bool>,
    #[command(flatten)]
    fields: EquipmentFields,
}

pub async fn run(ctx: &Ctx, a: EditArgs) -> Result<(), Fail> {
    let mut obj = a.fields.payload(true)?;
    if let Some(t) = a.equipment_type {
        obj.insert(
            "typeOfEquipment".into(),
            json!(resolve::equipment_type(ctx, &t).await?.id),
        );
    }
    if let Some(active) = a.active {
        obj.insert("active".into(), json!(active));
    }
    if obj.is_empty() {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help)".into(),
        ));
    }
    obj.insert("_id".into(), json!(a.equipment));
    let e = ctx.client.edit_equipment(&Value::Object(obj)).await?;
    output::note(format!("Saved {}", resolve::equipment_label(&e)));
    view::show(ctx.format, &e)
}
