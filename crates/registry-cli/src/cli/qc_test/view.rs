//! How QC tests, what falls due and a computed test's figures are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::equipment::{DueTest, QcTest};
use registry_core::qc;
use serde_json::Value;

const COLUMNS: &[Column<QcTest>] = &[
    ("_id", |t| t.id.clone()),
    ("date", |t| t.date.clone()),
    ("typeOfTest", |t| t.type_of_test.name.clone()),
    ("conclusion", |t| t.conclusion.to_string()),
    ("performedBy", |t| t.performed_by.name.clone()),
    ("document", |t| or_empty(&t.document)),
];

const DUE_COLUMNS: &[Column<DueTest>] = &[
    ("facility", |d| d.facility.name.clone()),
    ("equipment", |d| d.equipment.id.clone()),
    ("description", describe_equipment),
    ("typeOfTest", |d| d.type_of_test.name.clone()),
    ("lastDate", |d| or_empty(&d.last_date)),
    ("nextDue", |d| or_empty(&d.next_due)),
    ("state", |d| d.state.as_str().to_owned()),
    ("lastConclusion", |d| {
        d.last_conclusion.map(|c| c.to_string()).unwrap_or_default()
    }),
];

/// The columns of what falls due kept first on a narrow terminal: which test, when, in what state.
const DUE_RANK: &[&str] = &["typeOfTest", "nextDue", "state", "equipment"];

/// The equipment of a due test: its type, manufacturer, model and serial number.
fn describe_equipment(d: &DueTest) -> String {
    let e = &d.equipment;
    let mut equipment = [&e.manufacturer, &e.model]
        .into_iter()
        .flatten()
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(sn) = &e.serial_number {
        equipment.push_str(&format!(" (SN {sn})"));
    }
    format!("{} {}", d.type_of_equipment.name, equipment.trim())
        .trim()
        .to_owned()
}

pub fn print_list(format: Format, list: &[QcTest]) -> Result<(), Fail> {
    output::print_table(format, list, COLUMNS)?;
    Ok(())
}

pub fn print_due(format: Format, list: &[DueTest]) -> Result<(), Fail> {
    output::print_table_ranked(format, list, DUE_COLUMNS, DUE_RANK)?;
    Ok(())
}

pub fn show(format: Format, t: &QcTest) -> Result<(), Fail> {
    show_with(format, t, true)
}

/// [`show`], the figures' tables left out of a table when `with_figures` is false (they were
/// shown before saving).
pub fn show_with(format: Format, t: &QcTest, with_figures: bool) -> Result<(), Fail> {
    let figures = t
        .figures
        .as_ref()
        .filter(|_| format == Format::Table && with_figures);
    output::print_record(
        format,
        t,
        vec![
            ("_id", t.id.clone()),
            ("equipment", t.equipment.clone()),
            ("facility", t.facility.name.clone()),
            ("typeOfTest", t.type_of_test.name.clone()),
            ("date", t.date.clone()),
            ("conclusion", t.conclusion.to_string()),
            ("performedBy", t.performed_by.name.clone()),
            (
                "measurements",
                t.measurements
                    .as_ref()
                    .map(Value::to_string)
                    .unwrap_or_default(),
            ),
            ("notes", or_empty(&t.notes)),
            ("document", or_empty(&t.document)),
        ],
    )?;
    if let Some(f) = figures {
        output::print_line(figures_text(f, output::terminal_width()))?;
    }
    Ok(())
}

/// The figures as text: a table per list (sources, points, geometries, values), then the
/// figures of the whole test. On a terminal `width` columns wide, a list whose table is wider is
/// shown one entry at a time, each as a two-column table (`sources 1 of 2`), so nothing wraps
/// into pieces. Times are in Brasília, as in every other table.
pub fn figures_text(figures: &Value, width: Option<u16>) -> String {
    let Some(obj) = figures.as_object() else {
        return cell(figures);
    };
    let mut out = Vec::new();
    let mut summary = output::styled_table();
    for key in in_reading_order(obj.keys()) {
        let value = &obj[&key];
        match value {
            Value::Array(rows) if rows.first().is_some_and(Value::is_object) => {
                let headers = rows[0]
                    .as_object()
                    .map(|o| in_reading_order(o.keys()))
                    .unwrap_or_default();
                let mut table = output::styled_table();
                table.set_header(&headers);
                for row in rows {
                    table.add_row(headers.iter().map(|h| cell(&row[h.as_str()])));
                }
                let text = table.to_string();
                match width {
                    Some(width) if output::text_width(&text) > usize::from(width) => {
                        for (n, row) in rows.iter().enumerate() {
                            let mut entry = output::styled_table();
                            for h in &headers {
                                entry.add_row(vec![h.clone(), cell(&row[h.as_str()])]);
                            }
                            out.push(format!("{key} {} of {}:\n{entry}", n + 1, rows.len()));
                        }
                    }
                    _ => out.push(format!("{key}:\n{text}")),
                }
            }
            _ => {
                summary.add_row(vec![key, cell(value)]);
            }
        }
    }
    out.push(summary.to_string());
    out.join("\n")
}

/// The figures' keys as a physicist reads a row: what it is, what was measured and what was
/// computed from it, then the levels it is judged by and the verdict; keys not named here go
/// between the two, by name. (The server sends them in this order, but a JSON object read here
/// keeps its keys sorted by name.)
fn in_reading_order<'a>(keys: impl Iterator<Item = &'a String>) -> Vec<String> {
    const FIRST: &[&str] = &[
        "name",
        "label",
        "nuclide",
        "reference",
        "referenceLabel",
        "referenceReading",
        "measuredAt",
        "at",
        "elapsedHours",
        "value",
        "unit",
        "reading",
        "readings",
        "activity",
        "certificateActivity",
        "certificateDate",
        "elapsedDays",
        "halfLifeDays",
        "nuclideHalfLifeHours",
        "decayFactor",
        "expectedActivity",
        "fittedActivity",
        "mean",
        "slopePerHour",
        "intercept",
        "fittedHalfLifeHours",
        "deviationPercent",
        "deviationsPercent",
        "halfLifeDeviationPercent",
        "maxDeviationPercent",
        "maxSpreadPercent",
        "correctionFactor",
        "remarks",
    ];
    const LAST: &[&str] = &[
        "worstDeviationPercent",
        "warn",
        "warnPercent",
        "limit",
        "limitPercent",
        "conclusion",
        "verdict",
    ];
    let rank = |key: &str| match (
        FIRST.iter().position(|k| *k == key),
        LAST.iter().position(|k| *k == key),
    ) {
        (Some(i), _) => (0, i),
        (None, Some(i)) => (2, i),
        (None, None) => (1, 0),
    };
    let mut keys: Vec<String> = keys.cloned().collect();
    // Stable: the keys named in neither list stay in name order.
    keys.sort_by_key(|k| rank(k));
    keys
}

/// A figure as a cell: a time in Brasília (`2026-11-26 23:00:00 -03:00`), anything else as the
/// QC rules write it.
fn cell(value: &Value) -> String {
    match value {
        Value::String(s) if chrono::DateTime::parse_from_rfc3339(s).is_ok() => output::brasilia(s),
        other => qc::display_value(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn figures() -> Value {
        let source = json!({
            "nuclide": "Co-57", "certificateActivity": 370.0,
            "certificateDate": "2020-01-01T03:00:00Z", "conclusion": "Satisfatório",
            "decayFactor": 0.0123, "deviationPercent": -1.25, "elapsedDays": 2521,
            "expectedActivity": 4.55, "halfLifeDays": 271.8, "mean": 4.49,
            "readings": [4.5, 4.49, 4.48],
        });
        json!({"sources": [source.clone(), source], "measuredAt": "2026-11-27T02:00:00Z"})
    }

    /// The column names of the table of `figures` whose header names `key`.
    fn columns(figures: &Value, key: &str) -> Vec<String> {
        figures_text(figures, None)
            .lines()
            .find(|l| l.split(['│', '┆']).any(|c| c.trim() == key))
            .unwrap_or_else(|| panic!("no table with {key}"))
            .split(['│', '┆'])
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// Whether `keys` stand in `columns` in that order.
    fn in_order(columns: &[String], keys: &[&str]) -> bool {
        let at = |key: &&str| columns.iter().position(|c| c == key);
        keys.iter()
            .map(at)
            .collect::<Option<Vec<_>>>()
            .is_some_and(|at| at.is_sorted())
    }

    #[test]
    fn figures_are_in_reading_order_with_the_verdict_last() {
        let sources = columns(&figures(), "nuclide");
        let order = [
            "nuclide",
            "readings",
            "certificateActivity",
            "expectedActivity",
            "mean",
            "deviationPercent",
            "conclusion",
        ];
        assert!(in_order(&sources, &order), "{sources:?}");
        assert_eq!(sources.last().map(String::as_str), Some("conclusion"));
        let points = json!({"points": [{"activity": 1000.0, "at": "2026-11-20T11:00:00Z",
            "deviationPercent": 0.1, "elapsedHours": 0.0, "fittedActivity": 999.0}]});
        let points = columns(&points, "activity");
        let order = [
            "at",
            "elapsedHours",
            "activity",
            "fittedActivity",
            "deviationPercent",
        ];
        assert!(in_order(&points, &order), "{points:?}");
        let recorded = json!({"values": [{"conclusion": "Satisfatório", "label": "Integral",
            "limit": 5, "name": "integralUfov", "unit": "%", "value": 3.2, "warn": 4}]});
        assert_eq!(
            columns(&recorded, "label"),
            [
                "name",
                "label",
                "value",
                "unit",
                "warn",
                "limit",
                "conclusion"
            ]
        );
    }

    #[test]
    fn figures_wider_than_the_terminal_are_shown_one_entry_at_a_time() {
        let text = figures_text(&figures(), Some(80));
        assert!(output::text_width(&text) <= 80, "{text}");
        assert!(
            text.contains("sources 1 of 2") && text.contains("sources 2 of 2"),
            "{text}"
        );
        assert!(
            text.contains("deviationPercent") && text.contains("-1.25"),
            "{text}"
        );
        // Wide enough (or piped): one table for the list.
        let wide = figures_text(&figures(), None);
        assert!(
            wide.contains("sources:") && !wide.contains("1 of 2"),
            "{wide}"
        );
    }

    #[test]
    fn figures_times_are_in_brasilia() {
        let text = figures_text(&figures(), None);
        assert!(text.contains("2026-11-26 23:00:00 -03:00"), "{text}");
        assert!(text.contains("2020-01-01 00:00:00 -03:00"), "{text}");
        assert!(!text.contains("T02:00:00Z"), "{text}");
    }
}
