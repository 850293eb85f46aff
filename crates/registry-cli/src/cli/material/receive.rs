//! `registry material receive`: record a receipt of radioactive material (checked against the
//! facility's authorisation).

use super::{args, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::offered;
use crate::cli::payload::{insert_given, object};
use crate::cli::rules;
use crate::cli::{output, prompt, resolve};
use clap::Args;
use registry_core::Radioisotope;
use registry_core::material::read_receipt;
use registry_core::nuclide::mbq_to_mci;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct ReceiveArgs {
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Radioisotope as the spec writes it, e.g. "Tc(99m)" (Tc-99m also works).
    #[arg(long, value_parser = offered::radioisotopes(), hide_possible_values = true)]
    radioisotope: Option<String>,
    /// Declared activity in mCi.
    #[arg(long, conflicts_with = "activity_mbq", value_parser = rules::dot_decimal)]
    activity: Option<f64>,
    /// Declared activity in MBq (converted: 1 mCi = 37 MBq).
    #[arg(long, value_parser = rules::dot_decimal)]
    activity_mbq: Option<f64>,
    /// When the declared activity holds (RFC 3339 or YYYY-MM-DD); default: the time received.
    #[arg(long)]
    reference_time: Option<String>,
    /// Who supplied it, e.g. IPEN.
    #[arg(long)]
    supplier: Option<String>,
    /// The supplier's lot number.
    #[arg(long)]
    lot: Option<String>,
    /// Who took delivery (default: you).
    #[arg(long)]
    received_by: Option<String>,
    /// When it arrived (RFC 3339 or YYYY-MM-DD); default: now.
    #[arg(long)]
    received_at: Option<String>,
    /// Free notes.
    #[arg(long)]
    notes: Option<String>,
}

pub async fn run(ctx: &Ctx, a: ReceiveArgs) -> Result<(), Fail> {
    prompt::require(
        ctx.interactive,
        &[
            ("--facility", a.facility.is_some()),
            ("--radioisotope", a.radioisotope.is_some()),
            ("--activity", a.activity.or(a.activity_mbq).is_some()),
            ("--supplier", a.supplier.is_some()),
        ],
    )?;
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let authorised: Vec<Radioisotope> = f.radioisotopes.iter().map(|r| r.name).collect();
    let isotope = match a.radioisotope {
        Some(r) => args::isotope_arg(&r, "--radioisotope", "radioisotope")?,
        None if ctx.interactive && !authorised.is_empty() => {
            let labels: Vec<String> = f
                .radioisotopes
                .iter()
                .map(|r| format!("{} (up to {} mCi a week)", r.name, r.quantity))
                .collect();
            authorised[prompt::fuzzy_pick("Radioisotope", &labels)?]
        }
        None => return Err(prompt::missing("--radioisotope")),
    };
    let activity = match (a.activity, a.activity_mbq) {
        (Some(mci), _) => json!(mci),
        (None, Some(mbq)) => json!(mbq_to_mci(mbq)),
        (None, None) => json!(prompt::text(ctx, None, "--activity", "Activity (mCi)")?),
    };
    let supplier = prompt::text(ctx, a.supplier, "--supplier", "Supplier")?;
    let mut obj = object([
        ("radioisotope", json!(isotope)),
        ("activity", activity),
        ("supplier", json!(supplier)),
    ]);
    insert_given(
        &mut obj,
        [
            ("activityReferenceTime", a.reference_time),
            ("lot", a.lot),
            ("receivedBy", a.received_by),
            ("receivedAt", a.received_at),
            ("notes", a.notes),
        ],
    );
    let payload = Value::Object(obj);
    read_receipt(&payload, chrono::Utc::now()).map_err(Fail::Invalid)?;
    if !authorised.contains(&isotope) {
        return Err(Fail::Invalid(vec![registry_core::FieldError::new(
            "radioisotope",
            registry_core::FieldCode::InvalidRadioisotope,
            format!(
                "{isotope} is not among {}'s authorised radioisotopes",
                f.name
            ),
        )]));
    }
    let r = ctx.client.receive_material(&f.id, &payload).await?;
    output::note(format!(
        "Received {:.3} mCi of {} at {} (week {}).",
        r.activity_at_receipt, r.radioisotope, f.name, r.week
    ));
    if r.over_quantity {
        output::note(format!(
            "WARNING: week {} is now over the authorised weekly quantity of {} (stored and flagged).",
            r.week, r.radioisotope
        ));
    }
    view::show(ctx.format, &r)
}
