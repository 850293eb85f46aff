//! How waste packages are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::waste::WastePackage;

fn describe(w: &WastePackage) -> String {
    w.contents
        .iter()
        .map(|c| format!("{} {} mCi", c.radioisotope, c.activity))
        .collect::<Vec<_>>()
        .join(", ")
}

fn status(w: &WastePackage) -> String {
    match (&w.release, w.releasable) {
        (Some(r), _) => format!("released {}", output::brasilia(&r.released_at)),
        (None, true) => "releasable".into(),
        (None, false) => "stored".into(),
    }
}

const COLUMNS: &[Column<WastePackage>] = &[
    ("_id", |w| w.id.clone()),
    ("facility", |w| w.facility.name.clone()),
    ("form", |w| w.form.to_string()),
    ("contents", describe),
    ("location", |w| w.location.clone()),
    ("closedAt", |w| output::brasilia(&w.closed_at)),
    ("releaseDate", |w| w.release_date.clone()),
    ("status", status),
];

pub fn print_list(format: Format, list: &[WastePackage]) -> Result<(), Fail> {
    output::print_table(format, list, COLUMNS)?;
    Ok(())
}

pub fn show(format: Format, w: &WastePackage) -> Result<(), Fail> {
    let mut fields = vec![
        ("_id", w.id.clone()),
        ("facility", w.facility.name.clone()),
        ("form", w.form.to_string()),
        ("contents", describe(w)),
        ("mass", format!("{} kg", w.mass)),
        ("closedAt", output::brasilia(&w.closed_at)),
        ("location", w.location.clone()),
        ("description", or_empty(&w.description)),
        ("releaseDate", w.release_date.clone()),
        ("status", status(w)),
    ];
    if let Some(r) = &w.release {
        fields.push(("releasedBy", r.released_by.name.clone()));
        fields.push(("doseRate", format!("{} µSv/h", r.dose_rate)));
    }
    output::print_record(format, w, fields)?;
    Ok(())
}
