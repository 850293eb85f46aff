//! A computed test's readings from a file: JSON as the `measurements` object, CSV by the kind's
//! columns (docs/qc.md).

use crate::cli::context::Fail;
use registry_core::qc::{TestKind, Tolerances};
use serde_json::{Map, Value, json};

/// Reads a file of readings: JSON as the `measurements` object, CSV by the kind's columns.
pub fn readings_file(path: &std::path::Path, kind: Option<TestKind>) -> Result<Value, Fail> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| Fail::Usage(format!("--readings {}: {e}", path.display())))?
    };
    let is_csv = path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("csv"));
    if !is_csv {
        return serde_json::from_str(&text)
            .map_err(|e| Fail::Rejected(format!("--readings is not valid JSON: {e}")));
    }
    let kind =
        kind.ok_or_else(|| Fail::Usage("--readings as CSV needs a test type with a kind".into()))?;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| Fail::Rejected(format!("--readings: {e}")))?
        .clone();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| Fail::Rejected(format!("--readings: {e}")))?;
        let row: Map<String, Value> = headers
            .iter()
            .zip(record.iter())
            .filter(|(_, v)| !v.is_empty())
            .map(|(h, v)| (h.to_owned(), cell(v)))
            .collect();
        rows.push(row);
    }
    Ok(measurements_from_rows(kind, &rows))
}

/// `a recorded test's (an accuracy test's) --measurements look like '{"values": …}' (docs/qc.md)`: [`shape`] as a hint.
pub fn shape_hint(kind: TestKind, tolerances: &Tolerances) -> String {
    let name = kind.as_str();
    let article = match name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => "an",
        false => "a",
    };
    format!(
        "{article} {name} test's --measurements look like '{}' (docs/qc.md)",
        shape(kind, tolerances)
    )
}

/// What a `kind` test's `measurements` look like (docs/qc.md), for a hint when they are refused;
/// a recorded-value test's with the quantities of its `tolerances`.
pub fn shape(kind: TestKind, tolerances: &Tolerances) -> String {
    let source = r#""sources": [{"nuclide": "Co-57", "certificateActivity": 370, "certificateDate": "2026-01-01T00:00:00Z", "readings": [190, 192, 194]}]"#;
    match kind {
        TestKind::Constancy | TestKind::Accuracy => {
            format!(r#"{{"unit": "MBq", "measuredAt": "2026-09-29T14:45:36-03:00", {source}}}"#)
        }
        TestKind::Precision => {
            r#"{"unit": "MBq", "sources": [{"nuclide": "Cs-137", "readings": [190, 192, 194]}]}"#
                .into()
        }
        TestKind::Linearity => r#"{"unit": "mCi", "nuclide": "Tc-99m", "readings": [{"at": "2026-11-20T08:00", "activity": 1000}, {"at": "2026-11-20T14:00", "activity": 502}, {"at": "2026-11-20T20:00", "activity": 251}]}"#.into(),
        TestKind::Geometry => r#"{"unit": "MBq", "nuclide": "Tc-99m", "reference": {"label": "frasco 10 mL", "reading": 100}, "geometries": [{"label": "seringa 3 mL", "reading": 93}]}"#.into(),
        TestKind::Reproducibility => {
            r#"{"unit": "µSv/h", "referenceReading": 10.0, "readings": [11.2, 11.4, 11.6]}"#.into()
        }
        TestKind::Recorded => {
            let values: Vec<String> = tolerances
                .quantities
                .iter()
                .map(|q| format!("{}: 1.5", json!(q.name)))
                .collect();
            format!(r#"{{"values": {{{}}}}}"#, values.join(", "))
        }
    }
}

/// A CSV cell: a number when it reads as one (decimal comma accepted), else the text.
pub fn cell(v: &str) -> Value {
    v.replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|x| json!(x))
        .unwrap_or_else(|| json!(v))
}

/// Builds `measurements` from CSV rows (docs/qc.md): the test's single values (unit, measuredAt,
/// nuclide, referenceReading) from the first row that has them, the readings row by row.
pub fn measurements_from_rows(kind: TestKind, rows: &[Map<String, Value>]) -> Value {
    let first = |key: &str| rows.iter().find_map(|r| r.get(key).cloned());
    let mut m = Map::new();
    for key in ["unit", "measuredAt", "nuclide", "referenceReading"] {
        let applies = match key {
            "measuredAt" => matches!(kind, TestKind::Accuracy | TestKind::Constancy),
            "nuclide" => matches!(kind, TestKind::Linearity | TestKind::Geometry),
            "referenceReading" => kind == TestKind::Reproducibility,
            _ => kind != TestKind::Recorded,
        };
        if applies && let Some(v) = first(key) {
            m.insert(key.into(), v);
        }
    }
    let col = |r: &Map<String, Value>, key: &str| r.get(key).cloned().unwrap_or(Value::Null);
    match kind {
        TestKind::Constancy | TestKind::Accuracy | TestKind::Precision => {
            let mut sources: Vec<Map<String, Value>> = Vec::new();
            for r in rows {
                let key = ["nuclide", "certificateActivity", "certificateDate"].map(|k| col(r, k));
                let same = sources.iter_mut().find(|s| {
                    ["nuclide", "certificateActivity", "certificateDate"]
                        .iter()
                        .zip(&key)
                        .all(|(k, v)| s.get(*k).unwrap_or(&Value::Null) == v)
                });
                let source = match same {
                    Some(s) => s,
                    None => {
                        let mut s = Map::new();
                        for (k, v) in ["nuclide", "certificateActivity", "certificateDate"]
                            .iter()
                            .zip(key)
                        {
                            if !v.is_null() {
                                s.insert((*k).into(), v);
                            }
                        }
                        s.insert("readings".into(), json!([]));
                        sources.push(s);
                        sources.last_mut().expect("just pushed")
                    }
                };
                if let Some(Value::Array(readings)) = source.get_mut("readings") {
                    readings.push(col(r, "reading"));
                }
            }
            m.insert("sources".into(), json!(sources));
        }
        TestKind::Linearity => {
            let readings: Vec<Value> = rows
                .iter()
                .map(|r| json!({"at": col(r, "at"), "activity": col(r, "activity")}))
                .collect();
            m.insert("readings".into(), json!(readings));
        }
        TestKind::Geometry => {
            let mut geometries: Vec<Value> = rows
                .iter()
                .map(|r| json!({"label": col(r, "label"), "reading": col(r, "reading")}))
                .collect();
            if !geometries.is_empty() {
                m.insert("reference".into(), geometries.remove(0));
            }
            m.insert("geometries".into(), json!(geometries));
        }
        TestKind::Reproducibility => {
            let readings: Vec<Value> = rows.iter().map(|r| col(r, "reading")).collect();
            m.insert("readings".into(), json!(readings));
        }
        TestKind::Recorded => {
            let values: Map<String, Value> = rows
                .iter()
                .filter_map(|r| match r.get("name") {
                    Some(Value::String(n)) => Some((n.clone(), col(r, "value"))),
                    _ => None,
                })
                .collect();
            m.insert("values".into(), Value::Object(values));
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_names_the_kind_with_its_article() {
        let none = Tolerances::default();
        assert!(
            shape_hint(TestKind::Accuracy, &none).starts_with("an accuracy test's --measurements")
        );
        assert!(
            shape_hint(TestKind::Linearity, &none).starts_with("a linearity test's --measurements")
        );
    }
}
