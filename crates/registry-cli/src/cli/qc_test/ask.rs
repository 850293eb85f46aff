//! The readings of a computed test asked for at the terminal, one prompt per figure the
//! physicist reads.

use super::readings::cell;
use crate::cli::context::Fail;
use crate::cli::prompt;
use registry_core::qc::{self, TestKind};
use serde_json::{Map, Value, json};

fn ask(label: &str) -> Result<String, Fail> {
    prompt::input(label, None)
}

/// Numbers separated by spaces or semicolons (a decimal comma is accepted).
fn ask_numbers(label: &str) -> Result<Value, Fail> {
    let text = ask(label)?;
    Ok(json!(
        text.split([' ', ';'])
            .filter(|s| !s.is_empty())
            .map(cell)
            .collect::<Vec<_>>()
    ))
}

/// A list of `{first: text, second: number}` objects, asked for until the first answer is left
/// empty.
fn ask_pairs(first: (&str, &str), second: (&str, &str)) -> Result<Value, Fail> {
    let mut out = Vec::new();
    loop {
        let text = prompt::optional_text(first.1)?;
        if text.trim().is_empty() {
            return Ok(Value::Array(out));
        }
        let mut pair = Map::new();
        pair.insert(first.0.into(), json!(text.trim()));
        pair.insert(second.0.into(), cell(&ask(second.1)?));
        out.push(Value::Object(pair));
    }
}

/// Asks for the readings of a test of `kind`, one prompt per figure the physicist reads.
pub fn ask_readings(kind: TestKind, tolerances: &qc::Tolerances) -> Result<Value, Fail> {
    let mut m = Map::new();
    let unit = |m: &mut Map<String, Value>| -> Result<(), Fail> {
        let units = [String::from("MBq"), String::from("mCi")];
        let i = prompt::fuzzy_pick("Unit", &units)?;
        m.insert("unit".into(), json!(units[i]));
        Ok(())
    };
    match kind {
        TestKind::Constancy | TestKind::Accuracy | TestKind::Precision => {
            unit(&mut m)?;
            let certified = kind != TestKind::Precision;
            if certified {
                m.insert(
                    "measuredAt".into(),
                    json!(ask("Measured at (YYYY-MM-DD HH:MM, Brasília)")?),
                );
            }
            let mut sources = Vec::new();
            loop {
                let mut s = Map::new();
                s.insert(
                    "nuclide".into(),
                    json!(ask("Source nuclide (e.g. Cs-137)")?),
                );
                if certified {
                    s.insert(
                        "certificateActivity".into(),
                        cell(&ask("Certificate activity")?),
                    );
                    s.insert(
                        "certificateDate".into(),
                        json!(ask("Certificate date (YYYY-MM-DD[ HH:MM])")?),
                    );
                }
                s.insert(
                    "readings".into(),
                    ask_numbers("Readings (separated by spaces)")?,
                );
                sources.push(Value::Object(s));
                if !prompt::confirm(true, false, "Another source?")? {
                    break;
                }
            }
            m.insert("sources".into(), json!(sources));
        }
        TestKind::Linearity => {
            unit(&mut m)?;
            m.insert("nuclide".into(), json!(ask("Nuclide (e.g. Tc-99m)")?));
            let at = ("at", "Reading time (YYYY-MM-DD HH:MM; empty when done)");
            m.insert("readings".into(), ask_pairs(at, ("activity", "Activity"))?);
        }
        TestKind::Geometry => {
            unit(&mut m)?;
            m.insert(
                "reference".into(),
                json!({"label": ask("Reference geometry")?, "reading": cell(&ask("Its reading")?)}),
            );
            let geometry = ("label", "Geometry (empty when done)");
            let reading = ("reading", "Its reading");
            m.insert("geometries".into(), ask_pairs(geometry, reading)?);
        }
        TestKind::Reproducibility => {
            m.insert("unit".into(), json!(ask("Unit (e.g. µSv/h)")?));
            m.insert(
                "referenceReading".into(),
                cell(&ask("Reference reading of the check source")?),
            );
            m.insert(
                "readings".into(),
                ask_numbers("Readings (separated by spaces)")?,
            );
        }
        TestKind::Recorded => {
            let mut values = Map::new();
            for q in &tolerances.quantities {
                values.insert(
                    q.name.clone(),
                    cell(&ask(&format!("{} ({})", q.label, q.unit))?),
                );
            }
            m.insert("values".into(), Value::Object(values));
        }
    }
    Ok(Value::Object(m))
}
