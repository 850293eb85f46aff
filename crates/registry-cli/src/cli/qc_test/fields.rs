//! The fields of a QC test record that can be given on record and on edit, as flags and as a
//! payload.

use super::readings;
use crate::cli::context::{Ctx, Fail};
use crate::cli::equipment::fields::put_texts;
use crate::cli::payload::insert_given;
use crate::cli::resolve;
use clap::Args;
use registry_core::equipment::{local_date, read_qc_test};
use registry_core::qc::TestKind;
use serde_json::{Map, Value, json};

/// The fields of a record that can be given on record and on edit.
#[derive(Debug, Args, Default)]
pub struct TestFields {
    /// The kind of the test type, once known (how a CSV of readings is read).
    #[arg(skip)]
    pub kind: Option<TestKind>,
    /// The day it was done, YYYY-MM-DD (default on record: today in Brasília).
    #[arg(long)]
    date: Option<String>,
    /// Satisfatório, "Satisfatório com observações" or Insatisfatório (another value: exit 4).
    #[arg(long)]
    pub conclusion: Option<String>,
    /// Who did it: _id, e-mail or name (default: you).
    #[arg(long)]
    performed_by: Option<String>,
    /// The measurements as JSON in the shape of the test type's kind (docs/qc.md), e.g. for
    /// Uniformidade '{"values": {"integralUfov": 3.2, "differentialUfov": 2.4}}'.
    #[arg(long, conflicts_with = "readings")]
    measurements: Option<String>,
    /// A computed test's readings from a file: JSON (the `measurements` object) or CSV (columns
    /// per kind: docs/qc.md); `-` reads JSON from stdin.
    #[arg(long)]
    pub readings: Option<std::path::PathBuf>,
    /// Notes ("" clears them on edit).
    #[arg(long)]
    notes: Option<String>,
    /// The report document's _id ("" clears it on edit).
    #[arg(long)]
    document: Option<String>,
}

impl TestFields {
    /// Refuses a `--date` that is not a date or is in the future, or an unknown `--conclusion`
    /// (naming the allowed values), by the server's own reader: exit 4 before anything is looked
    /// up, asked for (a computed test's readings) or sent.
    pub fn check_flags(&self) -> Result<(), Fail> {
        let mut flags = Map::new();
        let (date, conclusion) = (self.date.as_deref(), self.conclusion.as_deref());
        insert_given(&mut flags, [("date", date), ("conclusion", conclusion)]);
        read_qc_test(&Value::Object(flags), false, today())
            .map(|_| ())
            .map_err(Fail::Invalid)
    }

    pub async fn payload(&self, ctx: &Ctx, clear_empty: bool) -> Result<Map<String, Value>, Fail> {
        let mut obj = Map::new();
        if let Some(d) = &self.date {
            obj.insert("date".into(), json!(d));
        }
        if let Some(c) = &self.conclusion {
            obj.insert("conclusion".into(), json!(c));
        }
        if let Some(u) = &self.performed_by {
            obj.insert("performedBy".into(), json!(resolve::user(ctx, u).await?.id));
        }
        if let Some(m) = &self.measurements {
            let v: Value = serde_json::from_str(m)
                .map_err(|e| Fail::Rejected(format!("--measurements is not valid JSON: {e}")))?;
            obj.insert("measurements".into(), v);
        }
        if let Some(path) = &self.readings {
            obj.insert(
                "measurements".into(),
                readings::readings_file(path, self.kind)?,
            );
        }
        put_texts(
            &mut obj,
            [("notes", &self.notes), ("document", &self.document)],
            clear_empty,
        );
        Ok(obj)
    }
}

/// The day QC tests are dated in (product.md §4: Brasília).
pub fn today() -> chrono::NaiveDate {
    local_date(chrono::Utc::now())
}
