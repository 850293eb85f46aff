//! The readings of a computed test asked for at the terminal, one prompt per figure the
//! physicist reads.

use super::readings::cell;
use crate::cli::context::Fail;
use crate::cli::{prompt, rules};
use registry_core::qc::{self, TestKind};
use serde_json::{Map, Value, json};

fn ask(label: &str) -> Result<String, Fail> {
    prompt::input_checked(label, &rules::not_empty)
}

/// A reading (a positive number, a decimal comma accepted), asked again until it is one.
fn ask_reading(label: &str) -> Result<Value, Fail> {
    Ok(cell(&prompt::input_checked(label, &rules::reading)?))
}

/// A time (`YYYY-MM-DD[ HH:MM]`, Brasília), asked again until it reads as one.
fn ask_time(label: &str) -> Result<Value, Fail> {
    Ok(json!(prompt::input_checked(label, &rules::time)?))
}

/// Readings asked for one at a time (`Reading 1`, `Reading 2`, …) until an answer is left empty
/// (a decimal comma accepted). An answer may hold several, separated by spaces or semicolons, as
/// when a row is pasted.
fn ask_each_reading() -> Result<Value, Fail> {
    let mut text = prompt::input_checked("Reading 1", &rules::readings)?;
    let mut readings = Vec::new();
    loop {
        readings.extend(text.split([' ', ';']).filter(|s| !s.is_empty()).map(cell));
        let label = format!("Reading {} (empty when done)", readings.len() + 1);
        match prompt::optional_text(&label, "", Some(&rules::readings))? {
            Some(more) => text = more,
            None => return Ok(json!(readings)),
        }
    }
}

/// A list of `{first: text, second: number}` objects, asked for until the first answer is left
/// empty; `first_check` checks a first answer that is not empty.
fn ask_pairs(
    first: (&str, &str),
    first_check: prompt::Check,
    second: (&str, &str),
) -> Result<Value, Fail> {
    let mut out = Vec::new();
    loop {
        let Some(text) = prompt::optional_text(first.1, "", Some(first_check))? else {
            return Ok(Value::Array(out));
        };
        let mut pair = Map::new();
        pair.insert(first.0.into(), json!(text.trim()));
        pair.insert(second.0.into(), ask_reading(second.1)?);
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
                    ask_time("Measured at (YYYY-MM-DD HH:MM, Brasília)")?,
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
                        ask_reading("Certificate activity")?,
                    );
                    s.insert(
                        "certificateDate".into(),
                        ask_time("Certificate date (YYYY-MM-DD[ HH:MM])")?,
                    );
                }
                s.insert("readings".into(), ask_each_reading()?);
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
            m.insert(
                "readings".into(),
                ask_pairs(at, &rules::time, ("activity", "Activity"))?,
            );
        }
        TestKind::Geometry => {
            unit(&mut m)?;
            m.insert(
                "reference".into(),
                json!({"label": ask("Reference geometry")?, "reading": ask_reading("Its reading")?}),
            );
            let geometry = ("label", "Geometry (empty when done)");
            let reading = ("reading", "Its reading");
            let any: prompt::Check = &|_| Ok(());
            m.insert("geometries".into(), ask_pairs(geometry, any, reading)?);
        }
        TestKind::Reproducibility => {
            m.insert("unit".into(), json!(ask("Unit (e.g. µSv/h)")?));
            m.insert(
                "referenceReading".into(),
                ask_reading("Reference reading of the check source")?,
            );
            m.insert("readings".into(), ask_each_reading()?);
        }
        TestKind::Recorded => {
            let mut values = Map::new();
            for q in &tolerances.quantities {
                let label = format!("{} ({})", q.label, q.unit);
                let answer = prompt::input_checked(&label, &rules::recorded(q))?;
                values.insert(q.name.clone(), cell(&answer));
            }
            m.insert("values".into(), Value::Object(values));
        }
    }
    Ok(Value::Object(m))
}
