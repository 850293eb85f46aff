//! How receipts and a week's usage are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::material::{IsotopeUsage, Receipt, WeeklyUsage};

/// An activity in mCi as the server keeps it, to 1e-9 mCi (docs/radioactive-material.md), without
/// trailing zeros: `100`, `0.0001`, `-0.001` (a week just over); never `-0`.
pub fn mci(value: f64) -> String {
    let text = format!("{value:.9}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" => "0".to_owned(),
        other => other.to_owned(),
    }
}

const RECEIPT_COLUMNS: &[Column<Receipt>] = &[
    ("_id", |r| r.id.clone()),
    ("receivedAt", |r| output::brasilia(&r.received_at)),
    ("facility", |r| r.facility.name.clone()),
    ("radioisotope", |r| r.radioisotope.to_string()),
    ("mCi", |r| mci(r.activity_at_receipt)),
    ("supplier", |r| r.supplier.clone()),
    ("lot", |r| or_empty(&r.lot)),
    ("week", |r| r.week.clone()),
    ("overQuantity", |r| output::mark(r.over_quantity, "OVER")),
];

const USAGE_COLUMNS: &[Column<IsotopeUsage>] = &[
    ("radioisotope", |l| l.radioisotope.to_string()),
    ("authorised mCi", |l| mci(l.authorised)),
    ("received mCi", |l| mci(l.received)),
    ("remaining mCi", |l| mci(l.remaining)),
    ("receipts", |l| l.receipts.to_string()),
    ("exceeded", |l| output::mark(l.exceeded, "EXCEEDED")),
];

pub fn print_list(format: Format, list: &[Receipt]) -> Result<(), Fail> {
    output::print_table(format, list, RECEIPT_COLUMNS)?;
    Ok(())
}

pub fn print_usage(format: Format, u: &WeeklyUsage) -> Result<(), Fail> {
    if format == Format::Json {
        output::print_json(u)?;
        return Ok(());
    }
    output::note(format!(
        "{} — week {} (from {} to {})",
        u.facility.name,
        u.week,
        output::brasilia(&u.from),
        output::brasilia(&u.to)
    ));
    output::print_table(format, &u.radioisotopes, USAGE_COLUMNS)?;
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
                format!(
                    "{} mCi at {}",
                    r.activity,
                    output::brasilia(&r.activity_reference_time)
                ),
            ),
            (
                "activityAtReceipt",
                format!("{} mCi", mci(r.activity_at_receipt)),
            ),
            ("supplier", r.supplier.clone()),
            ("lot", or_empty(&r.lot)),
            ("receivedBy", r.received_by.clone()),
            ("receivedAt", output::brasilia(&r.received_at)),
            ("week", r.week.clone()),
            ("overQuantity", output::yes_no(r.over_quantity)),
            ("notes", or_empty(&r.notes)),
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::mci;

    #[test]
    fn activities_show_to_the_nanocurie_without_trailing_zeros() {
        assert_eq!(mci(100.0), "100");
        assert_eq!(mci(0.0001), "0.0001");
        assert_eq!(mci(20.015469123), "20.015469123");
        assert_eq!(mci(-0.001), "-0.001");
        assert_eq!(mci(-0.0000000001), "0");
    }
}
