//! `registry equipment edit`: only the fields given change; at the terminal without fields, a
//! wizard walks every field with the stored value to keep or change.

use super::fields::EquipmentFields;
use super::view;
use crate::cli::changes::Changes;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve, rules};
use clap::Args;
use registry_client::ListQuery;
use registry_core::equipment::Equipment;
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
    let stored = match a.fields.merges_attributes() {
        true => {
            Some(resolve::equipment_or_pick(ctx, Some(a.equipment.clone()), "EQUIPMENT").await?)
        }
        false => None,
    };
    let mut obj = a
        .fields
        .payload(true, stored.as_ref().map(|e| &e.attributes))?;
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
        if !ctx.interactive {
            return Err(Fail::Usage(
                "nothing to change: give fields as flags (see --help)".into(),
            ));
        }
        let e = resolve::equipment_or_pick(ctx, Some(a.equipment.clone()), "EQUIPMENT").await?;
        match walk(ctx, &e).await?.finish() {
            Some(changed) => obj = changed,
            None => return view::show(ctx.format, &e),
        }
    }
    obj.insert("_id".into(), json!(a.equipment));
    let e = ctx.client.edit_equipment(&Value::Object(obj)).await?;
    output::note(format!("Saved {}", resolve::equipment_label(&e)));
    view::show(ctx.format, &e)
}

/// Every field of `e` with the stored value to keep or change: the type picked from the list,
/// the texts (emptied: cleared), the attributes as one JSON object, whether it is in service.
async fn walk(ctx: &Ctx, e: &Equipment) -> Result<Changes, Fail> {
    let mut c = Changes::default();
    let types = ctx.client.equipment_types(&ListQuery::default()).await?;
    let names: Vec<String> = types.iter().map(|t| t.name.clone()).collect();
    let stored = types.iter().position(|t| t.id == e.type_of_equipment.id);
    let label = "Equipment type (refused once QC tests were recorded)";
    let i = prompt::fuzzy_pick_from(label, &names, stored.unwrap_or(0))?;
    let new_type = types.get(i).map(|t| t.id.as_str());
    c.compare(
        "typeOfEquipment",
        json!(e.type_of_equipment.id),
        json!(new_type),
    );
    for (key, label, stored) in [
        ("manufacturer", "Manufacturer", &e.manufacturer),
        ("model", "Model", &e.model),
        ("serialNumber", "Serial number", &e.serial_number),
        (
            "patrimonialNumber",
            "Patrimonial number",
            &e.patrimonial_number,
        ),
        ("localization", "Localization", &e.localization),
    ] {
        c.optional(key, label, stored.as_deref(), None)?;
    }
    let stored = match &e.attributes {
        Value::Object(o) if !o.is_empty() => e.attributes.to_string(),
        _ => String::new(),
    };
    let label = "Attributes, one JSON object (optional)";
    let answer = prompt::optional_text(label, &stored, Some(&rules::json_object))?;
    let attributes = answer.map_or(Ok(json!({})), |a| serde_json::from_str(&a));
    let old = if e.attributes.is_null() {
        json!({})
    } else {
        e.attributes.clone()
    };
    c.compare("attributes", old, attributes.map_err(anyhow::Error::from)?);
    c.yes_no("active", "In service?", e.active)?;
    Ok(c)
}
