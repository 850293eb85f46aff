//! `registry test edit`: only the fields given change.

use super::fields::{self, TestFields};
use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output;
use clap::Args;
use registry_core::equipment::read_qc_test_of;
use serde_json::Value;

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The QC test record's _id.
    test: String,
    #[command(flatten)]
    fields: TestFields,
}

pub async fn run(ctx: &Ctx, mut a: EditArgs) -> Result<(), Fail> {
    a.fields.check_flags()?;
    if a.fields.readings.is_some() {
        let current = ctx.client.qc_test(&a.test).await?;
        a.fields.kind = ctx.client.test_type(&current.type_of_test.id).await?.kind;
    }
    let obj = a.fields.payload(ctx, true).await?;
    if obj.is_empty() {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help)".into(),
        ));
    }
    let payload = Value::Object(obj);
    let current = ctx.client.qc_test(&a.test).await?;
    let kind = ctx.client.test_type(&current.type_of_test.id).await?.kind;
    read_qc_test_of(&payload, false, fields::today(), kind.is_some()).map_err(Fail::Invalid)?;
    let t = ctx.client.edit_test(&a.test, &payload).await?;
    output::note(format!("Saved {} of {}", t.type_of_test.name, t.date));
    view::show(ctx.format, &t)
}
