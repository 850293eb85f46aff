//! How equipment is printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::equipment::Equipment;

const COLUMNS: &[Column<Equipment>] = &[
    ("_id", |e| e.id.clone()),
    ("facility", |e| e.facility.name.clone()),
    ("typeOfEquipment", |e| e.type_of_equipment.name.clone()),
    ("manufacturer", |e| or_empty(&e.manufacturer)),
    ("model", |e| or_empty(&e.model)),
    ("serialNumber", |e| or_empty(&e.serial_number)),
    ("localization", |e| or_empty(&e.localization)),
    ("active", |e| output::yes_no(e.active)),
];

pub fn print_list(format: Format, list: &[Equipment]) -> Result<(), Fail> {
    output::print_table(format, list, COLUMNS)?;
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
            ("active", output::yes_no(e.active)),
        ],
    )?;
    Ok(())
}
