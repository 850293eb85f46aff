//! `registry equipment create`: register equipment at a facility.

use super::fields::EquipmentFields;
use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};
use clap::Args;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The facility: _id, cnpj or exact name (picked from a list when missing).
    #[arg(long)]
    facility: Option<String>,
    /// Equipment type: _id or name (picked from a list when missing).
    #[arg(long = "type")]
    equipment_type: Option<String>,
    #[command(flatten)]
    fields: EquipmentFields,
}

pub async fn run(ctx: &Ctx, a: CreateArgs) -> Result<(), Fail> {
    prompt::require(
        ctx.interactive,
        &[
            ("--facility", a.facility.is_some()),
            ("--type", a.equipment_type.is_some()),
        ],
    )?;
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let t = resolve::equipment_type_or_pick(ctx, a.equipment_type).await?;
    let mut obj = a.fields.payload(false, None)?;
    if ctx.interactive {
        for (key, label) in [
            ("manufacturer", "Manufacturer"),
            ("model", "Model"),
            ("serialNumber", "Serial number"),
        ] {
            let label = format!("{label} (empty to skip)");
            if !obj.contains_key(key)
                && let Some(v) = prompt::optional_text(&label, "", None)?
            {
                obj.insert(key.into(), json!(v));
            }
        }
    }
    obj.insert("facility".into(), json!(f.id));
    obj.insert("typeOfEquipment".into(), json!(t.id));
    let e = ctx.client.register_equipment(&Value::Object(obj)).await?;
    output::note(format!(
        "Registered {} at {} ({})",
        resolve::equipment_label(&e),
        f.name,
        e.id
    ));
    view::show(ctx.format, &e)
}
