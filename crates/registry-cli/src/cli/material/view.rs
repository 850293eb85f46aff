//! How receipts and a week's usage are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Format, Rows};
use registry_core::material::{Receipt, WeeklyUsage};

pub fn print_list(format: Format, list: &[Receipt]) -> Result<(), Fail> {
    let cells = list
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.received_at.clone(),
                r.facility.name.clone(),
                r.radioisotope.to_string(),
                format!("{:.3}", r.activity_at_receipt),
                r.supplier.clone(),
                r.lot.clone().unwrap_or_default(),
                r.week.clone(),
                if r.over_quantity {
                    "OVER".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id",
                "receivedAt",
                "facility",
                "radioisotope",
                "mCi",
                "supplier",
                "lot",
                "week",
                "overQuantity",
            ],
            cells,
        },
    )?;
    Ok(())
}

pub fn print_usage(format: Format, u: &WeeklyUsage) -> Result<(), Fail> {
    if format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(u).map_err(anyhow::Error::from)?
        );
        return Ok(());
    }
    output::note(format!(
        "{} — week {} (from {} to {})",
        u.facility.name, u.week, u.from, u.to
    ));
    let cells = u
        .radioisotopes
        .iter()
        .map(|l| {
            vec![
                l.radioisotope.to_string(),
                format!("{:.3}", l.authorised),
                format!("{:.3}", l.received),
                format!("{:.3}", l.remaining),
                l.receipts.to_string(),
                if l.exceeded {
                    "EXCEEDED".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: &u.radioisotopes,
            headers: &[
                "radioisotope",
                "authorised",
                "received",
                "remaining",
                "receipts",
                "exceeded",
            ],
            cells,
        },
    )?;
    Ok(())
}

pub fn show(format: Format, r: &Receipt) -> Result<(), Fail> {
    output::print_record(
        format,
        r,
        vec![
            ("_id", r.id.clone()),
            ("facility", r.facility.name.clone()),
            ("radioisotope", r.radioisotope.to_string()),
            (
                "activity",
                format!("{} mCi at {}", r.activity, r.activity_reference_time),
            ),
            (
                "activityAtReceipt",
                format!("{:.3} mCi", r.activity_at_receipt),
            ),
            ("supplier", r.supplier.clone()),
            ("lot", r.lot.clone().unwrap_or_default()),
            ("receivedBy", r.received_by.clone()),
            ("receivedAt", r.received_at.clone()),
            ("week", r.week.clone()),
            ("overQuantity", r.over_quantity.to_string()),
            ("notes", r.notes.clone().unwrap_or_default()),
        ],
    )?;
    Ok(())
}
