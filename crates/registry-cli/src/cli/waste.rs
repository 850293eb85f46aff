//! `registry waste …`: store waste packages in decay storage, list them (what can go today), and
//! record a release.

use super::context::{Ctx, Fail};
use super::material::isotope_arg;
use super::output::{self, Format, Rows};
use super::{prompt, resolve};
use clap::{Args, Subcommand};
use registry_client::ListQuery;
use registry_core::waste::{WasteForm, WastePackage, read_release, read_waste};
use serde_json::{Map, Value, json};

#[derive(Debug, Subcommand)]
pub enum WasteCommand {
    /// Store a closed package; the release date is computed by the server.
    Store(StoreArgs),
    /// Packages, newest first (--releasable: what can be released today).
    List(ListArgs),
    /// Record the release of a package whose release date has come.
    Release(ReleaseArgs),
}

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
    #[arg(long)]
    mass: Option<f64>,
    /// When the package was closed (RFC 3339, or YYYY-MM-DD meaning the end of that day); default: now.
    #[arg(long)]
    closed_at: Option<String>,
    #[arg(long)]
    location: Option<String>,
    #[arg(long)]
    description: Option<String>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long)]
    facility: Option<String>,
    /// Only packages that can be released today.
    #[arg(long, conflicts_with = "released")]
    releasable: bool,
    /// Only released packages.
    #[arg(long)]
    released: bool,
    #[arg(long)]
    radioisotope: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// The package's _id.
    package: String,
    /// Dose rate measured at the surface, µSv/h.
    #[arg(long)]
    dose_rate: Option<f64>,
    /// When it was released (RFC 3339 or YYYY-MM-DD); default: now.
    #[arg(long)]
    released_at: Option<String>,
    #[arg(long)]
    notes: Option<String>,
}

pub async fn run(ctx: &Ctx, command: WasteCommand) -> Result<(), Fail> {
    match command {
        WasteCommand::Store(a) => store(ctx, a).await,
        WasteCommand::List(a) => {
            let mut query = ListQuery::default();
            if let Some(f) = a.facility {
                query = query.filter("facilityId", resolve::facility(ctx, &f).await?.id);
            }
            if a.releasable {
                query = query.filter("releasable", "true");
            }
            if a.released {
                query = query.filter("released", "true");
            }
            if let Some(r) = a.radioisotope {
                query = query.filter("radioisotope", isotope_arg(&r, "--radioisotope")?.as_str());
            }
            print_list(ctx.format, &ctx.client.waste(&query).await?)
        }
        WasteCommand::Release(a) => {
            let dose_rate = match a.dose_rate {
                Some(d) => d,
                None => prompt::text_or_ask(
                    None,
                    ctx.interactive,
                    "--dose-rate",
                    "Dose rate at the surface (µSv/h)",
                )?
                .trim()
                .parse()
                .map_err(|_| Fail::Usage("the dose rate must be a number of µSv/h".into()))?,
            };
            let mut obj = Map::new();
            obj.insert("doseRate".into(), json!(dose_rate));
            for (key, value) in [("releasedAt", a.released_at), ("notes", a.notes)] {
                if let Some(v) = value {
                    obj.insert(key.into(), json!(v));
                }
            }
            let payload = Value::Object(obj);
            read_release(&payload, chrono::Utc::now()).map_err(Fail::Invalid)?;
            let w = ctx.client.release_waste(&a.package, &payload).await?;
            output::note(format!(
                "Released the package at {} ({}).",
                w.location, w.facility.name
            ));
            show(ctx.format, &w)
        }
    }
}

/// `I(131)=2.5` → `{"radioisotope": "I(131)", "activity": 2.5}`.
fn content(s: &str) -> Result<Value, Fail> {
    let (name, activity) = s.split_once('=').ok_or_else(|| {
        Fail::Usage(format!(
            "--content `{s}` must be ISOTOPE=mCi, e.g. I(131)=2.5"
        ))
    })?;
    let isotope = isotope_arg(name.trim(), "--content")?;
    Ok(json!({"radioisotope": isotope, "activity": activity.trim()}))
}

async fn store(ctx: &Ctx, a: StoreArgs) -> Result<(), Fail> {
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let form = match a.form {
        Some(s) => WasteForm::read(&s).ok_or_else(|| {
            Fail::Usage(format!("--form must be one of: {}", WasteForm::allowed()))
        })?,
        None if ctx.interactive => {
            let labels: Vec<String> = WasteForm::ALL.iter().map(|w| w.to_string()).collect();
            WasteForm::ALL[prompt::fuzzy_pick("Form", &labels)?]
        }
        None => return Err(prompt::missing("--form")),
    };
    let mut contents = a.contents;
    if contents.is_empty() {
        contents.push(prompt::text_or_ask(
            None,
            ctx.interactive,
            "--content",
            "Isotope and activity at closure (e.g. I(131)=2.5)",
        )?);
    }
    let contents: Vec<Value> = contents
        .iter()
        .map(|c| content(c))
        .collect::<Result<_, _>>()?;
    let mass = match a.mass {
        Some(m) => json!(m),
        None => json!(prompt::text_or_ask(
            None,
            ctx.interactive,
            "--mass",
            "Mass (kg)"
        )?),
    };
    let location = prompt::text_or_ask(
        a.location,
        ctx.interactive,
        "--location",
        "Location in storage",
    )?;
    let mut obj = Map::new();
    obj.insert("form".into(), json!(form));
    obj.insert("contents".into(), json!(contents));
    obj.insert("mass".into(), mass);
    obj.insert("location".into(), json!(location));
    for (key, value) in [("closedAt", a.closed_at), ("description", a.description)] {
        if let Some(v) = value {
            obj.insert(key.into(), json!(v));
        }
    }
    let payload = Value::Object(obj);
    read_waste(&payload, true, chrono::Utc::now()).map_err(Fail::Invalid)?;
    let w = ctx.client.store_waste(&f.id, &payload).await?;
    output::note(format!(
        "Stored at {} ({}); it may be released from {}.",
        w.location, f.name, w.release_date
    ));
    show(ctx.format, &w)
}

fn describe(w: &WastePackage) -> String {
    w.contents
        .iter()
        .map(|c| format!("{} {} mCi", c.radioisotope, c.activity))
        .collect::<Vec<_>>()
        .join(", ")
}

fn status(w: &WastePackage) -> String {
    match (&w.release, w.releasable) {
        (Some(r), _) => format!("released {}", r.released_at),
        (None, true) => "releasable".into(),
        (None, false) => "stored".into(),
    }
}

fn print_list(format: Format, list: &[WastePackage]) -> Result<(), Fail> {
    let cells = list
        .iter()
        .map(|w| {
            vec![
                w.id.clone(),
                w.facility.name.clone(),
                w.form.to_string(),
                describe(w),
                w.location.clone(),
                w.closed_at.clone(),
                w.release_date.clone(),
                status(w),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id",
                "facility",
                "form",
                "contents",
                "location",
                "closedAt",
                "releaseDate",
                "status",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn show(format: Format, w: &WastePackage) -> Result<(), Fail> {
    let mut fields = vec![
        ("_id", w.id.clone()),
        ("facility", w.facility.name.clone()),
        ("form", w.form.to_string()),
        ("contents", describe(w)),
        ("mass", format!("{} kg", w.mass)),
        ("closedAt", w.closed_at.clone()),
        ("location", w.location.clone()),
        ("description", w.description.clone().unwrap_or_default()),
        ("releaseDate", w.release_date.clone()),
        ("status", status(w)),
    ];
    if let Some(r) = &w.release {
        fields.push(("releasedBy", r.released_by.name.clone()));
        fields.push(("doseRate", format!("{} µSv/h", r.dose_rate)));
    }
    output::print_record(format, w, fields)?;
    Ok(())
}
