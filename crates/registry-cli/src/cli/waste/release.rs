//! `registry waste release`: record the release of a package.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::payload::insert_given;
use crate::cli::rules;
use crate::cli::{output, prompt};
use clap::Args;
use registry_core::waste::read_release;
use serde_json::{Map, Value, json};

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// The package's _id.
    package: String,
    /// Dose rate measured at the surface, µSv/h.
    #[arg(long, value_parser = rules::dot_decimal, allow_negative_numbers = true)]
    dose_rate: Option<f64>,
    /// When it was released (RFC 3339 or YYYY-MM-DD); default: now.
    #[arg(long)]
    released_at: Option<String>,
    /// Free notes.
    #[arg(long)]
    notes: Option<String>,
}

pub async fn run(ctx: &Ctx, a: ReleaseArgs) -> Result<(), Fail> {
    let dose_rate = match a.dose_rate {
        Some(d) => d,
        None => prompt::text(ctx, None, "--dose-rate", "Dose rate at the surface (µSv/h)")?
            .trim()
            .parse()
            .map_err(|_| Fail::Usage("the dose rate must be a number of µSv/h".into()))?,
    };
    let mut obj = Map::new();
    obj.insert("doseRate".into(), json!(dose_rate));
    insert_given(
        &mut obj,
        [("releasedAt", a.released_at), ("notes", a.notes)],
    );
    let payload = Value::Object(obj);
    read_release(&payload, chrono::Utc::now()).map_err(Fail::Invalid)?;
    let w = ctx.client.release_waste(&a.package, &payload).await?;
    output::note(format!(
        "Released the package at {} ({}).",
        w.location, w.facility.name
    ));
    view::show(ctx.format, &w)
}
