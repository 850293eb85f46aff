//! `registry material receive`: record a receipt of radioactive material (checked against the
//! facility's authorisation).

use super::{args, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::flag_terms::FlagTerms;
use crate::cli::flag_terms::Refusals;
use crate::cli::offered;
use crate::cli::payload::{insert_given, object};
use crate::cli::rules;
use crate::cli::{output, prompt, resolve};
use clap::Args;
use registry_core::Radioisotope;
use registry_core::material::nano;
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
    #[arg(
        long,
        conflicts_with = "activity_mbq",
        value_parser = rules::dot_decimal,
        allow_negative_numbers = true
    )]
    activity: Option<f64>,
    /// Declared activity in MBq (converted: 1 mCi = 37 MBq).
    #[arg(long, value_parser = rules::dot_decimal, allow_negative_numbers = true)]
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

/// Every flag given that the local checks refuse — the radioisotope, the activity, the supplier,
/// the times — named at once (exit 4); whether the facility may receive the radioisotope is
/// checked once it is looked up.
fn check_given(a: &ReceiveArgs) -> Result<(), Fail> {
    let mut refusals = Refusals::default();
    let mut payload = serde_json::Map::new();
    if let Some(r) = &a.radioisotope {
        match args::isotope_arg(r, "--radioisotope", "radioisotope") {
            Ok(isotope) => {
                payload.insert("radioisotope".into(), json!(isotope));
            }
            Err(fail) => refusals.add(fail)?,
        }
    }
    let mut terms = FlagTerms::default();
    match (a.activity, a.activity_mbq) {
        (Some(mci), _) => {
            payload.insert("activity".into(), json!(mci));
            terms.given("activity", "--activity");
        }
        (None, Some(mbq)) => {
            payload.insert("activity".into(), json!(mci_from_mbq(mbq)));
            terms.given("activity", "--activity-mbq");
        }
        (None, None) => {}
    }
    insert_given(
        &mut payload,
        [
            ("supplier", a.supplier.clone()),
            ("activityReferenceTime", a.reference_time.clone()),
            ("lot", a.lot.clone()),
            ("receivedBy", a.received_by.clone()),
            ("receivedAt", a.received_at.clone()),
            ("notes", a.notes.clone()),
        ],
    );
    for (field, flag) in [
        ("supplier", "--supplier"),
        ("activityReferenceTime", "--reference-time"),
        ("lot", "--lot"),
        ("receivedBy", "--received-by"),
        ("receivedAt", "--received-at"),
        ("notes", "--notes"),
    ] {
        terms.given(field, flag);
    }
    let mut errors = read_receipt(&Value::Object(payload.clone()), chrono::Utc::now())
        .err()
        .unwrap_or_default();
    if a.activity.is_none() && a.activity_mbq.is_some_and(|mbq| !mbq_in_range(mbq)) {
        // Said in the flag's unit; and a value that rounds up to the least activity kept is not
        // that activity.
        let said = registry_core::FieldError::new(
            "activity",
            registry_core::FieldCode::InvalidQuantity,
            "must be a positive number of MBq from 0.000000037 to 37000000000 (0.000000001 to \
             1000000000 mCi), with a dot for decimals",
        );
        match errors.iter().position(|e| e.field == "activity") {
            Some(i) => errors[i] = said,
            None => errors.push(said),
        }
    }
    refusals.add_given(errors, &payload, &terms);
    refusals.into_result()
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
    // Every flag refused is named at once, before the facility is looked up or asked for.
    check_given(&a)?;
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
        (None, Some(mbq)) => json!(mci_from_mbq(mbq)),
        (None, None) => {
            let check: prompt::Check = &rules::activity;
            let label = "Activity (mCi)";
            json!(prompt::checked(
                None,
                ctx.interactive,
                "--activity",
                label,
                None,
                Some(check)
            )?)
        }
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
        "Received {} mCi of {} at {} (week {}).",
        view::mci(r.activity_at_receipt),
        r.radioisotope,
        f.name,
        r.week
    ));
    if r.over_quantity {
        output::note(format!(
            "WARNING: week {} is now over the authorised weekly quantity of {} (stored and flagged).",
            r.week, r.radioisotope
        ));
    }
    view::show(ctx.format, &r)
}

/// `--activity-mbq` in mCi, to the 1e-9 mCi the registry keeps: 2.22 MBq is 0.06 mCi, not the
/// 0.060000000000000005 of the division.
fn mci_from_mbq(mbq: f64) -> f64 {
    nano(mbq_to_mci(mbq))
}

/// Whether `mbq` is an activity the registry keeps: from 1e-9 mCi (0.000000037 MBq) to 1e9 mCi,
/// before any rounding (a millionth of the least activity is the conversion's noise).
fn mbq_in_range(mbq: f64) -> bool {
    let mci = mbq_to_mci(mbq);
    mbq.is_finite() && mci * 1e9 >= 1.0 - 1e-6 && mci <= 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `material receive --facility X [--radioisotope R] --activity-mbq MBQ --supplier S`.
    fn receive(radioisotope: Option<&str>, mbq: f64, supplier: &str) -> ReceiveArgs {
        ReceiveArgs {
            facility: Some("X".into()),
            radioisotope: radioisotope.map(str::to_owned),
            activity: None,
            activity_mbq: Some(mbq),
            reference_time: None,
            supplier: Some(supplier.into()),
            lot: None,
            received_by: None,
            received_at: None,
            notes: None,
        }
    }

    #[test]
    fn every_refused_flag_is_named_at_once() {
        let args = receive(Some("Xx(1)"), -37.0, "");
        let Err(Fail::Relabelled(inner, shown)) = check_given(&args) else {
            panic!("refused");
        };
        let Fail::Invalid(api) = *inner else {
            panic!("a validation failure");
        };
        let fields: Vec<&str> = api.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["radioisotope", "activity", "supplier"]);
        let shown: Vec<&str> = shown.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            shown,
            ["--radioisotope `Xx(1)`", "--activity-mbq", "--supplier"]
        );
    }

    #[test]
    fn megabecquerels_convert_without_binary_noise() {
        assert_eq!(mci_from_mbq(2.22), 0.06);
        assert_eq!(mci_from_mbq(740.0), 20.0);
        // The least activity kept is 1e-9 mCi: half of it is refused, not rounded up to it.
        assert!(mbq_in_range(0.000000037));
        assert!(!mbq_in_range(0.0000000185));
        assert!(!mbq_in_range(-37.0));
        assert!(!mbq_in_range(f64::INFINITY));
    }

    #[test]
    fn a_refused_activity_in_mbq_is_told_in_mbq() {
        let args = receive(Some("Tc(99m)"), 0.0000000185, "IPEN");
        let Err(Fail::Relabelled(_, shown)) = check_given(&args) else {
            panic!("refused");
        };
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert_eq!(shown[0].field, "--activity-mbq");
        assert!(
            shown[0].message.contains("MBq from 0.000000037"),
            "{}",
            shown[0].message
        );
    }
}
