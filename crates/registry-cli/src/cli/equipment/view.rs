//! How equipment is printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Format, Rows};
use registry_core::equipment::Equipment;

pub fn print_list(format: Format, list: &[Equipment]) -> Result<(), Fail> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let cells = list
        .iter()
        .map(|e| {
            vec![
                e.id.clone(),
                e.facility.name.clone(),
                e.type_of_equipment.name.clone(),
                opt(&e.manufacturer),
                opt(&e.model),
                opt(&e.serial_number),
                opt(&e.localization),
                if e.active { "yes" } else { "no" }.into(),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id",
                "facility",
                "typeOfEquipment",
                "manufacturer",
                "model",
                "serialNumber",
                "localization",
                "active",
            ],
            cells,
        },
    )?;
    Ok(())
}

pub fn show(format: Format, e: &Equipment) -> Result<(), Fail> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    output::print_record(
        format,
        e,
        vec![
            ("_id", e.id.clone()),
            (
                "facility",
                format!("{} ({})", e.facility.name, e.facility.id),
            ),
            ("typeOfEquipment", e.type_of_equipment.name.clone()),
            ("manufacturer", opt(&e.manufacturer)),
            ("model", opt(&e.model)),
            ("serialNumber", opt(&e.serial_number)),
            ("patrimonialNumber", opt(&e.patrimonial_number)),
            ("localization", opt(&e.localization)),
            ("attributes", e.attributes.to_string()),
            ("active", e.active.to_string()),
        ],
    )?;
    Ok(())
}
