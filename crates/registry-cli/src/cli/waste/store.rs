//! `registry waste store`: a waste package into decay storage.

use super::view;
use crate::cli::context::{Ctx, Fail, invalid_flag};
use crate::cli::flag_terms::FlagTerms;
use crate::cli::flag_terms::Refusals;
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
    #[arg(long, value_parser = rules::dot_decimal, allow_negative_numbers = true)]
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

/// `I(131)=2.5` → `("I(131)", "2.5")`; without `=`, a usage error.
fn content_parts(s: &str) -> Result<(&str, &str), Fail> {
    let (name, activity) = s.split_once('=').ok_or_else(|| {
        Fail::Usage(format!(
            "--content `{s}` must be ISOTOPE=mCi, e.g. I(131)=2.5"
        ))
    })?;
    Ok((name.trim(), activity.trim()))
}

/// `I(131)=2.5` → `{"radioisotope": "I(131)", "activity": 2.5}`: the `i`-th content.
fn content(i: usize, s: &str) -> Result<Value, Fail> {
    let (name, activity) = content_parts(s)?;
    let field = format!("contents[{i}].radioisotope");
    let isotope = isotope_arg(name, "--content", &field)?;
    Ok(json!({"radioisotope": isotope, "activity": activity}))
}

/// Every flag given that the local checks refuse — the form, each content's isotope and
/// activity, the mass, the location, the closing time — named at once (exit 4), before the
/// facility is looked up or anything is asked for.
fn check_given(a: &StoreArgs) -> Result<(), Fail> {
    let mut refusals = Refusals::default();
    let mut payload = serde_json::Map::new();
    if let Some(s) = &a.form {
        match WasteForm::read_loosely(s) {
            Some(form) => {
                payload.insert("form".into(), json!(form));
            }
            None => refusals.add(invalid_flag(
                "form",
                "--form",
                s,
                format!("must be one of: {}", WasteForm::allowed()),
            ))?,
        }
    }
    if !a.contents.is_empty() {
        let mut contents = Vec::new();
        for (i, c) in a.contents.iter().enumerate() {
            contents.push(match content(i, c) {
                Ok(v) => v,
                Err(fail) => {
                    refusals.add(fail)?;
                    let (name, activity) = content_parts(c)?;
                    json!({"radioisotope": name, "activity": activity})
                }
            });
        }
        payload.insert("contents".into(), json!(contents));
    }
    if let Some(m) = a.mass {
        payload.insert("mass".into(), json!(m));
    }
    insert_given(
        &mut payload,
        [
            ("location", a.location.clone()),
            ("closedAt", a.closed_at.clone()),
            ("description", a.description.clone()),
        ],
    );
    let mut terms = FlagTerms::default();
    terms.each("contents", "--content", &a.contents);
    for (field, flag) in [
        ("mass", "--mass"),
        ("location", "--location"),
        ("closedAt", "--closed-at"),
        ("description", "--description"),
    ] {
        terms.given(field, flag);
    }
    let mut errors = read_waste(&Value::Object(payload.clone()), true, chrono::Utc::now())
        .err()
        .unwrap_or_default();
    errors.retain(|e| !refusals.has(&e.field));
    refusals.add_given(errors, &payload, &terms);
    refusals.into_result()
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
    // Every flag refused is named at once, before the facility is looked up or asked for.
    check_given(&a)?;
    let given_form = match a.form {
        Some(s) => Some(WasteForm::read_loosely(&s).ok_or_else(|| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refused_flag_is_named_at_once() {
        let args = StoreArgs {
            facility: Some("X".into()),
            form: Some("goo".into()),
            contents: vec!["Xx=1".into(), "I(131)=-2".into()],
            mass: Some(0.0),
            closed_at: None,
            location: Some(String::new()),
            description: None,
        };
        let Err(Fail::Relabelled(inner, shown)) = check_given(&args) else {
            panic!("refused");
        };
        let Fail::Invalid(api) = *inner else {
            panic!("a validation failure");
        };
        let fields: Vec<&str> = api.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "form",
                "contents[0].radioisotope",
                "contents[1].activity",
                "mass",
                "location"
            ]
        );
        let shown: Vec<&str> = shown.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            shown,
            [
                "--form `goo`",
                "--content `Xx`",
                "--content `I(131)=-2`",
                "--mass",
                "--location"
            ]
        );
    }
}
