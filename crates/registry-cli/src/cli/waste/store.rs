//! `registry waste store`: a waste package into decay storage.

use super::view;
use crate::cli::context::{Ctx, Fail, invalid_flag};
use crate::cli::material::args::isotope_arg;
use crate::cli::payload::{insert_given, object};
use crate::cli::rules;
use crate::cli::{output, prompt, resolve};
use clap::Args;
use registry_core::waste::{WasteForm, read_waste};
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct StoreArgs {
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Sólido or Líquido (solid, liquid).
    #[arg(long)]
    form: Option<String>,
    /// An isotope and its estimated activity at closure in mCi, e.g. "I(131)=2.5"; repeat for a mixture.
    #[arg(long = "content")]
    contents: Vec<String>,
    /// Mass in kg (a liquid's volume in litres).
    #[arg(long, value_parser = rules::dot_decimal)]
    mass: Option<f64>,
    /// When the package was closed (RFC 3339, or YYYY-MM-DD meaning the end of that day); default: now.
    #[arg(long)]
    closed_at: Option<String>,
    /// Where it is stored, e.g. "Abrigo A".
    #[arg(long)]
    location: Option<String>,
    /// What the package holds, in a few words.
    #[arg(long)]
    description: Option<String>,
}

/// `I(131)=2.5` → `{"radioisotope": "I(131)", "activity": 2.5}`: the `i`-th content.
fn content(i: usize, s: &str) -> Result<Value, Fail> {
    let (name, activity) = s.split_once('=').ok_or_else(|| {
        Fail::Usage(format!(
            "--content `{s}` must be ISOTOPE=mCi, e.g. I(131)=2.5"
        ))
    })?;
    let field = format!("contents[{i}].radioisotope");
    let isotope = isotope_arg(name.trim(), "--content", &field)?;
    Ok(json!({"radioisotope": isotope, "activity": activity.trim()}))
}

pub async fn run(ctx: &Ctx, a: StoreArgs) -> Result<(), Fail> {
    prompt::require(
        ctx.interactive,
        &[
            ("--facility", a.facility.is_some()),
            ("--form", a.form.is_some()),
            ("--content", !a.contents.is_empty()),
            ("--mass", a.mass.is_some()),
            ("--location", a.location.is_some()),
        ],
    )?;
    // A form outside the set is refused before the facility is looked up or asked for.
    let given_form = match a.form {
        Some(s) => Some(WasteForm::read(&s).ok_or_else(|| {
            let allowed = format!("must be one of: {}", WasteForm::allowed());
            invalid_flag("form", "--form", &s, allowed)
        })?),
        None => None,
    };
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let form = match given_form {
        Some(form) => form,
        None if ctx.interactive => {
            let labels: Vec<String> = WasteForm::ALL.iter().map(|w| w.to_string()).collect();
            WasteForm::ALL[prompt::fuzzy_pick("Form", &labels)?]
        }
        None => return Err(prompt::missing("--form")),
    };
    let mut contents = a.contents;
    if contents.is_empty() {
        contents.push(prompt::text(
            ctx,
            None,
            "--content",
            "Isotope and activity at closure (e.g. I(131)=2.5)",
        )?);
    }
    let contents: Vec<Value> = contents
        .iter()
        .enumerate()
        .map(|(i, c)| content(i, c))
        .collect::<Result<_, _>>()?;
    let mass = match a.mass {
        Some(m) => json!(m),
        None => json!(prompt::text(ctx, None, "--mass", "Mass (kg)")?),
    };
    let location = prompt::text(ctx, a.location, "--location", "Location in storage")?;
    let mut obj = object([
        ("form", json!(form)),
        ("contents", json!(contents)),
        ("mass", mass),
        ("location", json!(location)),
    ]);
    insert_given(
        &mut obj,
        [("closedAt", a.closed_at), ("description", a.description)],
    );
    let payload = Value::Object(obj);
    read_waste(&payload, true, chrono::Utc::now()).map_err(Fail::Invalid)?;
    let w = ctx.client.store_waste(&f.id, &payload).await?;
    output::note(format!(
        "Stored at {} ({}); it may be released from {}.",
        w.location, f.name, w.release_date
    ));
    view::show(ctx.format, &w)
}
