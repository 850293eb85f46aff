//! `registry material …`: receive radioactive material at a facility, list receipts, and the
//! week's usage against the authorised quantities.

use super::context::{Ctx, Fail};
use super::output::{self, Format, Rows};
use super::{prompt, resolve};
use clap::{Args, Subcommand};
use registry_client::ListQuery;
use registry_core::Radioisotope;
use registry_core::material::{IsoWeek, Receipt, WeeklyUsage, radioisotope, read_receipt};
use registry_core::nuclide::mbq_to_mci;
use serde_json::{Map, Value, json};

#[derive(Debug, Subcommand)]
pub enum MaterialCommand {
    /// Record a receipt of radioactive material (checked against the facility's authorisation).
    Receive(ReceiveArgs),
    /// Receipts, latest received first; over-quantity ones are flagged.
    List(ListArgs),
    /// A week's usage per isotope: authorised, received, remaining (mCi).
    Usage(UsageArgs),
}

#[derive(Debug, Args)]
pub struct ReceiveArgs {
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Radioisotope as the spec writes it, e.g. "Tc(99m)" (Tc-99m also works).
    #[arg(long)]
    radioisotope: Option<String>,
    /// Declared activity in mCi.
    #[arg(long, conflicts_with = "activity_mbq")]
    activity: Option<f64>,
    /// Declared activity in MBq (converted: 1 mCi = 37 MBq).
    #[arg(long)]
    activity_mbq: Option<f64>,
    /// When the declared activity holds (RFC 3339 or YYYY-MM-DD); default: the time received.
    #[arg(long)]
    reference_time: Option<String>,
    #[arg(long)]
    supplier: Option<String>,
    #[arg(long)]
    lot: Option<String>,
    /// Who took delivery (default: you).
    #[arg(long)]
    received_by: Option<String>,
    /// When it arrived (RFC 3339 or YYYY-MM-DD); default: now.
    #[arg(long)]
    received_at: Option<String>,
    #[arg(long)]
    notes: Option<String>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long)]
    facility: Option<String>,
    /// Only this ISO week, YYYY-Www.
    #[arg(long)]
    week: Option<String>,
    #[arg(long)]
    radioisotope: Option<String>,
    /// Only receipts that took their week over the authorised quantity.
    #[arg(long)]
    over_quantity: bool,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// ISO week, YYYY-Www (Monday to Sunday, Brasília time); default: this week.
    #[arg(long, value_parser = parse_week)]
    week: Option<String>,
}

fn parse_week(s: &str) -> Result<String, String> {
    IsoWeek::parse(s)
        .map(|w| w.to_string())
        .ok_or_else(|| "must be an ISO week YYYY-Www, e.g. 2026-W05".into())
}

/// The spec's spelling of an isotope typed either way, or a usage error.
pub fn isotope_arg(s: &str, flag: &str) -> Result<Radioisotope, Fail> {
    radioisotope(&json!(s)).ok_or_else(|| {
        Fail::Usage(format!(
            "{flag} must be one of: {}",
            Radioisotope::allowed()
        ))
    })
}

pub async fn run(ctx: &Ctx, command: MaterialCommand) -> Result<(), Fail> {
    match command {
        MaterialCommand::Receive(a) => receive(ctx, a).await,
        MaterialCommand::List(a) => {
            let mut query = ListQuery::default();
            if let Some(f) = a.facility {
                query = query.filter("facilityId", resolve::facility(ctx, &f).await?.id);
            }
            if let Some(w) = a.week {
                query = query.filter(
                    "week",
                    parse_week(&w).map_err(|e| Fail::Usage(format!("--week {e}")))?,
                );
            }
            if let Some(r) = a.radioisotope {
                query = query.filter("radioisotope", isotope_arg(&r, "--radioisotope")?.as_str());
            }
            if a.over_quantity {
                query = query.filter("overQuantity", "true");
            }
            print_list(ctx.format, &ctx.client.receipts(&query).await?)
        }
        MaterialCommand::Usage(a) => {
            let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
            let usage = ctx.client.weekly_usage(&f.id, a.week.as_deref()).await?;
            print_usage(ctx.format, &usage)
        }
    }
}

async fn receive(ctx: &Ctx, a: ReceiveArgs) -> Result<(), Fail> {
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let authorised: Vec<Radioisotope> = f.radioisotopes.iter().map(|r| r.name).collect();
    let isotope = match a.radioisotope {
        Some(r) => isotope_arg(&r, "--radioisotope")?,
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
        (None, None) => json!(prompt::text_or_ask(
            None,
            ctx.interactive,
            "--activity",
            "Activity (mCi)"
        )?),
    };
    let supplier = prompt::text_or_ask(a.supplier, ctx.interactive, "--supplier", "Supplier")?;
    let mut obj = Map::new();
    obj.insert("radioisotope".into(), json!(isotope));
    obj.insert("activity".into(), activity);
    obj.insert("supplier".into(), json!(supplier));
    for (key, value) in [
        ("activityReferenceTime", a.reference_time),
        ("lot", a.lot),
        ("receivedBy", a.received_by),
        ("receivedAt", a.received_at),
        ("notes", a.notes),
    ] {
        if let Some(v) = value {
            obj.insert(key.into(), json!(v));
        }
    }
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
    show(ctx.format, &r)
}

fn print_list(format: Format, list: &[Receipt]) -> Result<(), Fail> {
    let cells = list
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.received_at.clone(),
                r.facility.name.clone(),
                r.radioisotope.to_string(),
                format!("{:.3}", r.activity_at_receipt),
                r.supplier.clone(),
                r.lot.clone().unwrap_or_default(),
                r.week.clone(),
                if r.over_quantity {
                    "OVER".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id",
                "receivedAt",
                "facility",
                "radioisotope",
                "mCi",
                "supplier",
                "lot",
                "week",
                "overQuantity",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn print_usage(format: Format, u: &WeeklyUsage) -> Result<(), Fail> {
    if format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(u).map_err(anyhow::Error::from)?
        );
        return Ok(());
    }
    output::note(format!(
        "{} — week {} (from {} to {})",
        u.facility.name, u.week, u.from, u.to
    ));
    let cells = u
        .radioisotopes
        .iter()
        .map(|l| {
            vec![
                l.radioisotope.to_string(),
                format!("{:.3}", l.authorised),
                format!("{:.3}", l.received),
                format!("{:.3}", l.remaining),
                l.receipts.to_string(),
                if l.exceeded {
                    "EXCEEDED".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: &u.radioisotopes,
            headers: &[
                "radioisotope",
                "authorised",
                "received",
                "remaining",
                "receipts",
                "exceeded",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn show(format: Format, r: &Receipt) -> Result<(), Fail> {
    output::print_record(
        format,
        r,
        vec![
            ("_id", r.id.clone()),
            ("facility", r.facility.name.clone()),
            ("radioisotope", r.radioisotope.to_string()),
            (
                "activity",
                format!("{} mCi at {}", r.activity, r.activity_reference_time),
            ),
            (
                "activityAtReceipt",
                format!("{:.3} mCi", r.activity_at_receipt),
            ),
            ("supplier", r.supplier.clone()),
            ("lot", r.lot.clone().unwrap_or_default()),
            ("receivedBy", r.received_by.clone()),
            ("receivedAt", r.received_at.clone()),
            ("week", r.week.clone()),
            ("overQuantity", r.over_quantity.to_string()),
            ("notes", r.notes.clone().unwrap_or_default()),
        ],
    )?;
    Ok(())
}
