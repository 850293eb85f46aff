//! `registry test record`: a QC test done on one equipment (picked from lists at the
//! terminal); a computed test's figures and verdict are shown before saving.

use super::fields::{self, TestFields};
use super::{ask, readings, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt, resolve};
use clap::Args;
use registry_core::equipment::{Conclusion, TestType, read_qc_test, read_qc_test_of};
use registry_core::qc;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// Test type: _id or name (of the equipment's type).
    #[arg(long)]
    test_type: Option<String>,
    #[command(flatten)]
    fields: TestFields,
}

pub async fn run(ctx: &Ctx, mut a: RecordArgs) -> Result<(), Fail> {
    a.fields.check_flags()?;
    let (e, t) = super::equipment_and_test_type(ctx, a.equipment, a.test_type).await?;
    if t.kind.is_some() {
        a.fields.kind = t.kind;
        return record_computed(ctx, &e, &t, a.fields).await;
    }
    let mut obj = a.fields.payload(ctx, false).await?;
    if !obj.contains_key("conclusion") {
        if !ctx.interactive {
            return Err(prompt::missing("--conclusion"));
        }
        let labels: Vec<String> = Conclusion::ALL.iter().map(|c| c.to_string()).collect();
        let i = prompt::fuzzy_pick("Conclusion", &labels)?;
        obj.insert("conclusion".into(), json!(Conclusion::ALL[i]));
    }
    obj.entry("date")
        .or_insert_with(|| json!(fields::today().to_string()));
    obj.insert("equipment".into(), json!(e.id));
    obj.insert("typeOfTest".into(), json!(t.id));
    let payload = Value::Object(obj);
    read_qc_test(&payload, true, fields::today()).map_err(Fail::Invalid)?;
    let r = ctx.client.record_test(&payload).await?;
    output::note(format!(
        "Recorded {} on {} ({}): {}",
        t.name,
        resolve::equipment_label(&e),
        r.date,
        r.conclusion
    ));
    view::show(ctx.format, &r)
}

/// Records a computed test: readings from the flags, a file or prompts; the figures and verdict
/// computed here (the server computes them again and is the authority) and shown before saving.
async fn record_computed(
    ctx: &Ctx,
    e: &registry_core::equipment::Equipment,
    t: &TestType,
    fields: TestFields,
) -> Result<(), Fail> {
    let kind = t.kind.expect("a computed test type");
    let tolerances = t
        .tolerances
        .clone()
        .or_else(|| kind.default_tolerances())
        .unwrap_or_default();
    if fields.conclusion.is_some() {
        return Err(Fail::Usage(format!(
            "--conclusion cannot be given: {} is computed from its readings",
            t.name
        )));
    }
    let mut obj = fields.payload(ctx, false).await?;
    if !obj.contains_key("measurements") {
        if !ctx.interactive {
            return Err(prompt::missing("--measurements (or --readings FILE)")
                .hint(readings::shape_hint(kind, &tolerances)));
        }
        obj.insert("measurements".into(), ask::ask_readings(kind, &tolerances)?);
    }
    // Dated by the day of the readings (the next due date counts from it), else today.
    let day = qc::read::measured_on(obj.get("measurements")).unwrap_or_else(fields::today);
    obj.entry("date").or_insert_with(|| json!(day.to_string()));
    obj.insert("equipment".into(), json!(e.id));
    obj.insert("typeOfTest".into(), json!(t.id));
    let payload = Value::Object(obj);
    // Refused readings: the shape they should have, as the person may not know it.
    let shape_hint = |errors: Vec<registry_core::FieldError>| {
        let about_readings = errors.iter().any(|e| e.field.starts_with("measurements"));
        let fail = Fail::Invalid(errors);
        match about_readings {
            true => fail.hint(readings::shape_hint(kind, &tolerances)),
            false => fail,
        }
    };
    read_qc_test_of(&payload, true, fields::today(), true).map_err(shape_hint)?;
    let computed =
        qc::evaluate(kind, &tolerances, payload.get("measurements")).map_err(shape_hint)?;
    // The figures for the decision to save (Enter saves); at a terminal they are not printed a
    // second time with the record saved.
    output::note(view::figures_text(
        &computed.figures,
        output::stderr_width(),
    ));
    output::note(format!("Verdict: {}", computed.conclusion));
    if ctx.interactive && !prompt::confirm_default(true, false, "Save this test?", true)? {
        output::note("Not saved.");
        return Ok(());
    }
    let r = ctx.client.record_test(&payload).await?;
    output::note(format!(
        "Recorded {} on {} ({}): {}",
        t.name,
        resolve::equipment_label(e),
        r.date,
        r.conclusion
    ));
    view::show_with(ctx.format, &r, !ctx.interactive)
}
