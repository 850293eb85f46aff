//! Radioactive waste in decay storage: packages, the clearance levels they must decay to, and the
//! date each may be released (from the half-life table), by the sum rule over its isotopes.

#[cfg(test)]
mod tests;

use crate::equipment::Reference;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::material::{
    brasilia, day_start, past_instant, required_activity, required_radioisotope,
};
use crate::nuclide::{MBQ_PER_MCI, Nuclide};
use crate::payload::{ObjectReader, update};
use crate::values::{Radioisotope, spec_enum, timestamp};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa::ToSchema;

spec_enum!(
    /// The physical form of a waste package.
    WasteForm { Solid => "Sólido", Liquid => "Líquido" }
);

impl WasteForm {
    /// The stored form, or its English name (`solid`, `liquid`), as written: a request body's
    /// listed values are exact (trimmed only), as every other enum's.
    pub fn read(s: &str) -> Option<WasteForm> {
        let s = s.trim();
        match s {
            "solid" => Some(WasteForm::Solid),
            "liquid" => Some(WasteForm::Liquid),
            _ => WasteForm::parse(s),
        }
    }

    /// [`WasteForm::read`] in any case and with or without accents: for what a person types at
    /// the CLI (`--form SOLIDO`).
    pub fn read_loosely(s: &str) -> Option<WasteForm> {
        match s.trim().to_lowercase().as_str() {
            "solid" | "sólido" | "solido" => Some(WasteForm::Solid),
            "liquid" | "líquido" | "liquido" => Some(WasteForm::Liquid),
            _ => None,
        }
    }
}

/// The uniform clearance level of CNEN NE 6.05 (1985) for solid waste released to municipal
/// collection, in Bq/g (2 nCi/g): the default for every isotope (see docs/radioactive-material.md).
pub const DEFAULT_CLEARANCE_BQ_PER_G: f64 = 74.0;

/// Activity concentration (Bq/g) below which each isotope's waste may leave regulatory control.
#[derive(Debug, Clone, PartialEq)]
pub struct ClearanceLevels(BTreeMap<Radioisotope, f64>);

impl Default for ClearanceLevels {
    fn default() -> Self {
        ClearanceLevels(
            Radioisotope::ALL
                .iter()
                .map(|r| (*r, DEFAULT_CLEARANCE_BQ_PER_G))
                .collect(),
        )
    }
}

impl ClearanceLevels {
    /// The defaults with the deployer's overrides: `I(131)=100, Tc(99m)=100` (Bq/g).
    pub fn parse(s: &str) -> Result<ClearanceLevels, String> {
        let mut levels = ClearanceLevels::default();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not ISOTOPE=Bq/g"))?;
            let r = crate::material::radioisotope(&Value::String(name.trim().into())).ok_or_else(
                || {
                    format!(
                        "`{}` is not one of: {}",
                        name.trim(),
                        Radioisotope::allowed()
                    )
                },
            )?;
            let v: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("`{}` is not a positive number of Bq/g", value.trim()))?;
            levels.0.insert(r, v);
        }
        Ok(levels)
    }

    pub fn level(&self, r: Radioisotope) -> f64 {
        self.0
            .get(&r)
            .copied()
            .unwrap_or(DEFAULT_CLEARANCE_BQ_PER_G)
    }
}

/// One isotope in a package and its estimated activity at closure (mCi).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WasteContent {
    pub radioisotope: Radioisotope,
    pub activity: f64,
}

/// Seconds after closure until `Σ Cᵢ(t) / CLᵢ ≤ 1`, the sum rule for a mixture, where `Cᵢ` is
/// the activity concentration of isotope `i` (its activity over the package's mass).
pub fn seconds_to_clearance(
    contents: &[WasteContent],
    mass_kg: f64,
    levels: &ClearanceLevels,
) -> f64 {
    // Each term's ratio at closure and its half-life.
    let terms: Vec<(f64, f64)> = contents
        .iter()
        .map(|c| {
            let bq_per_g = c.activity * MBQ_PER_MCI * 1e6 / (mass_kg * 1000.0);
            (
                bq_per_g / levels.level(c.radioisotope),
                Nuclide::from(c.radioisotope).half_life_seconds(),
            )
        })
        .collect();
    let sum = |t: f64| -> f64 { terms.iter().map(|(a, h)| a * (-t / h).exp2()).sum() };
    if sum(0.0) <= 1.0 {
        return 0.0;
    }
    // Once every term is at most 1/n the sum is at most 1: an upper bound for the search.
    let n = terms.len() as f64;
    let mut high = terms
        .iter()
        .map(|(a, h)| (h * (a * n).log2()).max(0.0))
        .fold(0.0, f64::max);
    let mut low = 0.0;
    // The sum decreases with time: bisect to well under a second.
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if sum(mid) <= 1.0 {
            high = mid;
        } else {
            low = mid;
        }
        if high - low < 1e-3 {
            break;
        }
    }
    high
}

/// The first day (Brasília) that begins when the package is already below clearance: the day it
/// may be released.
pub fn release_date(
    contents: &[WasteContent],
    mass_kg: f64,
    closed_at: DateTime<Utc>,
    levels: &ClearanceLevels,
) -> NaiveDate {
    let seconds = seconds_to_clearance(contents, mass_kg, levels);
    // Whole milliseconds, rounded up, so the release instant is never early.
    let clear_at = closed_at + Duration::milliseconds((seconds * 1000.0).ceil() as i64);
    let day = clear_at.with_timezone(&brasilia()).date_naive();
    if day_start(day) >= clear_at {
        day
    } else {
        day + Duration::days(1)
    }
}

/// Who released a package, when, and the dose rate measured at its surface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WasteRelease {
    pub released_by: Reference,
    #[schema(format = DateTime)]
    pub released_at: String,
    /// µSv/h at the package's surface.
    pub dose_rate: f64,
    pub notes: Option<String>,
}

/// A package of waste in decay storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WastePackage {
    #[serde(rename = "_id")]
    pub id: String,
    pub facility: Reference,
    pub form: WasteForm,
    pub contents: Vec<WasteContent>,
    /// Mass in kg (for a liquid, its volume in litres taken as kg).
    pub mass: f64,
    #[schema(format = DateTime)]
    pub closed_at: String,
    pub location: String,
    pub description: Option<String>,
    /// The first day (`YYYY-MM-DD`, Brasília) the package is below its clearance levels.
    #[schema(format = Date)]
    pub release_date: String,
    /// Whether it may be released today (not released yet, release date reached).
    pub releasable: bool,
    pub release: Option<WasteRelease>,
    pub created_by: Reference,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl WastePackage {
    /// Closes the package at `closed_at` and computes its release date under `levels` again;
    /// `releasable` as of `today` (Brasília).
    pub fn close_at(
        &mut self,
        closed_at: DateTime<Utc>,
        levels: &ClearanceLevels,
        today: NaiveDate,
    ) {
        self.closed_at = timestamp(closed_at);
        self.release_date = release_date(&self.contents, self.mass, closed_at, levels).to_string();
        self.releasable = self.release_date <= today.to_string();
    }
}

/// A package's fields as read from a request; on edit `None` leaves a field unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WasteChanges {
    pub form: Option<WasteForm>,
    pub contents: Option<Vec<WasteContent>>,
    pub mass: Option<f64>,
    pub closed_at: Option<DateTime<Utc>>,
    pub location: Option<String>,
    pub description: Option<Option<String>>,
}

impl WasteChanges {
    /// `package` with the fields present replaced (the closure kept when absent) and its release
    /// date computed again under `levels`; an error when the stored closure is not RFC 3339.
    pub fn apply_to(
        self,
        package: &WastePackage,
        levels: &ClearanceLevels,
        today: NaiveDate,
    ) -> Result<WastePackage, chrono::ParseError> {
        let mut changed = package.clone();
        update(&mut changed.form, self.form);
        update(&mut changed.contents, self.contents);
        update(&mut changed.mass, self.mass);
        update(&mut changed.location, self.location);
        update(&mut changed.description, self.description);
        let closed_at = match self.closed_at {
            Some(t) => t,
            None => DateTime::parse_from_rfc3339(&package.closed_at)?.with_timezone(&Utc),
        };
        changed.close_at(closed_at, levels, today);
        Ok(changed)
    }
}

/// Reads a package. On create `form`, `contents`, `mass`, `location` are required and `closedAt`
/// defaults to now; a bare closure date is the end of that day in Brasília (the later instant
/// gives the later, safe release date).
pub fn read_waste(
    body: &Value,
    create: bool,
    now: DateTime<Utc>,
) -> Result<WasteChanges, Vec<FieldError>> {
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let form = r
        .required_if(create, "form", "is required", &mut errs)
        .and_then(|v| {
            errs.check(
                v.as_str().and_then(WasteForm::read),
                "form",
                FieldCode::InvalidValue,
                format!("must be one of: {}", WasteForm::allowed()),
            )
        });
    let contents_required = "is required: [{radioisotope, activity}]";
    let contents = match r.required_if(create, "contents", contents_required, &mut errs) {
        None => None,
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut list = Vec::new();
            // Every isotope named so far, its activity readable or not, for the duplicate check.
            let mut seen = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let path = format!("contents[{i}]");
                let message = "must be {radioisotope, activity}";
                let Some(ir) = ObjectReader::item(item, path, message, &mut errs) else {
                    continue;
                };
                let iso = required_radioisotope(&ir, "radioisotope", &mut errs);
                let activity = required_activity(&ir, "activity", &mut errs);
                if let Some(iso) = iso {
                    if seen.contains(&iso) {
                        errs.push(
                            format!("contents[{i}].radioisotope"),
                            FieldCode::DuplicateRadioisotope,
                            "is listed twice",
                        );
                        continue;
                    }
                    seen.push(iso);
                    if let Some(activity) = activity {
                        list.push(WasteContent {
                            radioisotope: iso,
                            activity,
                        });
                    }
                }
            }
            Some(list)
        }
        Some(_) => {
            errs.push(
                "contents",
                FieldCode::InvalidValue,
                "must be a non-empty array of {radioisotope, activity}",
            );
            None
        }
    };
    let mass = r
        .required_if(create, "mass", "is required (kg)", &mut errs)
        .and_then(|v| {
            errs.check(
                crate::values::positive_amount(v),
                "mass",
                FieldCode::InvalidValue,
                "must be a positive number of kg from 0.000000001 to 1000000000",
            )
        });
    let end_of_day = |d: NaiveDate| day_start(d + Duration::days(1));
    let closed_at =
        past_instant(&r, "closedAt", now, end_of_day, &mut errs).or(create.then_some(now));
    let location = r.string_required_if(create, "location", &mut errs);
    let description = r.clearable_string("description", &mut errs);
    errs.finish(WasteChanges {
        form,
        contents,
        mass,
        closed_at,
        location,
        description,
    })
}

/// Reads a release: `doseRate` (µSv/h, zero or more) is required; `releasedAt` defaults to now.
pub fn read_release(
    body: &Value,
    now: DateTime<Utc>,
) -> Result<(f64, DateTime<Utc>, Option<String>), Vec<FieldError>> {
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let dose_rate_required = "is required (µSv/h measured at the surface)";
    let dose_rate = r
        .required_if(true, "doseRate", dose_rate_required, &mut errs)
        .and_then(|v| {
            let n = match v {
                // `-0.0` is zero (`+ 0.0` drops the sign).
                Value::Number(n) => n.as_f64().map(|n| n + 0.0),
                Value::String(s) if s.trim().parse::<f64>() == Ok(0.0) => Some(0.0),
                _ => crate::values::positive_amount(v),
            };
            errs.check(
                n.filter(|n| (0.0..=1e9).contains(n)),
                "doseRate",
                FieldCode::InvalidValue,
                "must be a number of µSv/h from 0 to 1000000000",
            )
        });
    let at = past_instant(
        &r,
        "releasedAt",
        now,
        |d| day_start(d) + Duration::hours(12),
        &mut errs,
    );
    let notes = r.clearable_string("notes", &mut errs).flatten();
    if !errs.is_empty() {
        return Err(errs.into_vec());
    }
    Ok((dose_rate.expect("checked"), at.unwrap_or(now), notes))
}
