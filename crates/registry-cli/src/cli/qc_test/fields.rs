//! The fields of a QC test record that can be given on record and on edit, as flags and as a
//! payload.

use super::readings;
use crate::cli::context::{Ctx, Fail};
use crate::cli::equipment::fields::put_texts;
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
    /// Refuses an unknown `--conclusion` (exit 4, naming the allowed values) by the server's
    /// own reader, before anything is looked up or sent.
    pub fn check_conclusion(&self) -> Result<(), Fail> {
        let Some(c) = &self.conclusion else {
            return Ok(());
        };
        match read_qc_test(&json!({ "conclusion": c }), false, today()) {
            Ok(_) => Ok(()),
            Err(errors) => Err(Fail::Invalid(
                errors
                    .into_iter()
                    .filter(|e| e.field == "conclusion")
                    .collect(),
            )),
        }
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
                .map_err(|e| Fail::Usage(format!("--measurements is not valid JSON: {e}")))?;
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
