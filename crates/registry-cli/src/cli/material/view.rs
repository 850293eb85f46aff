//! How receipts and a week's usage are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Format, or_empty};
use registry_core::material::{Receipt, WeeklyUsage};

pub fn print_list(format: Format, list: &[Receipt]) -> Result<(), Fail> {
    output::print_list(
        format,
        list,
        &[
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
        |r| {
            vec![
                r.id.clone(),
                r.received_at.clone(),
                r.facility.name.clone(),
                r.radioisotope.to_string(),
                format!("{:.3}", r.activity_at_receipt),
                r.supplier.clone(),
                or_empty(&r.lot),
                r.week.clone(),
                output::mark(r.over_quantity, "OVER"),
            ]
        },
    )?;
    Ok(())
}

pub fn print_usage(format: Format, u: &WeeklyUsage) -> Result<(), Fail> {
    if format == Format::Json {
        output::print_json(u)?;
        return Ok(());
    }
    output::note(format!(
        "{} — week {} (from {} to {})",
        u.facility.name, u.week, u.from, u.to
    ));
    output::print_list(
        format,
        &u.radioisotopes,
        &[
            "radioisotope",
            "authorised",
            "received",
            "remaining",
            "receipts",
            "exceeded",
        ],
        |l| {
            vec![
                l.radioisotope.to_string(),
                format!("{:.3}", l.authorised),
                format!("{:.3}", l.received),
                format!("{:.3}", l.remaining),
                l.receipts.to_string(),
                output::mark(l.exceeded, "EXCEEDED"),
            ]
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
            ("lot", or_empty(&r.lot)),
            ("receivedBy", r.received_by.clone()),
            ("receivedAt", r.received_at.clone()),
            ("week", r.week.clone()),
            ("overQuantity", r.over_quantity.to_string()),
            ("notes", or_empty(&r.notes)),
        ],
    )?;
    Ok(())
}
