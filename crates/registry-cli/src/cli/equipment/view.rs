//! How equipment is printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Format, or_empty};
use registry_core::equipment::Equipment;

pub fn print_list(format: Format, list: &[Equipment]) -> Result<(), Fail> {
    output::print_list(
        format,
        list,
        &[
            "_id",
            "facility",
            "typeOfEquipment",
            "manufacturer",
            "model",
            "serialNumber",
            "localization",
            "active",
        ],
        |e| {
            vec![
                e.id.clone(),
                e.facility.name.clone(),
                e.type_of_equipment.name.clone(),
                or_empty(&e.manufacturer),
                or_empty(&e.model),
                or_empty(&e.serial_number),
                or_empty(&e.localization),
                if e.active { "yes" } else { "no" }.into(),
            ]
        },
    )?;
    Ok(())
}

pub fn show(format: Format, e: &Equipment) -> Result<(), Fail> {
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
            ("manufacturer", or_empty(&e.manufacturer)),
            ("model", or_empty(&e.model)),
            ("serialNumber", or_empty(&e.serial_number)),
            ("patrimonialNumber", or_empty(&e.patrimonial_number)),
            ("localization", or_empty(&e.localization)),
            ("attributes", e.attributes.to_string()),
            ("active", e.active.to_string()),
        ],
    )?;
    Ok(())
}
