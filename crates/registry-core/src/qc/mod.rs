//! QC tests the registry computes itself: the kinds of test, their tolerances, the calculations
//! (in `calc`), the reading of their `measurements` (in `read`) and the seeded catalogue (in
//! `catalogue`).
//! Sources and decisions: `docs/qc.md`.

pub mod calc;
mod catalogue;
pub mod read;

#[cfg(test)]
mod tests;

pub use catalogue::{CatalogueEntry, DOSE_CALIBRATOR, GAMMA_CAMERA, GEIGER_COUNTER, catalogue};

use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::values::spec_enum;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

spec_enum!(
    /// The conclusion of a QC test, as written in reports (and computed, for the kinds below).
    Conclusion {
        Satisfactory => "Satisfatório",
        SatisfactoryWithRemarks => "Satisfatório com observações",
        Unsatisfactory => "Insatisfatório",
    }
);

/// How a test type's records are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// Dose calibrator, daily: the reference source against its decayed certificate activity.
    Constancy,
    /// Dose calibrator: the mean of each source's readings against its decayed certificate.
    Accuracy,
    /// Dose calibrator: the largest deviation of a reading from its source's mean.
    Precision,
    /// Dose calibrator: a decaying source read over time against a least-squares exponential.
    Linearity,
    /// Dose calibrator: each volume or container against the reference one.
    Geometry,
    /// Survey meter: the mean reading of its check source against the reference reading.
    Reproducibility,
    /// Values read off the equipment's own analysis, each against its limits.
    Recorded,
}

impl TestKind {
    pub const ALL: &'static [TestKind] = &[
        TestKind::Constancy,
        TestKind::Accuracy,
        TestKind::Precision,
        TestKind::Linearity,
        TestKind::Geometry,
        TestKind::Reproducibility,
        TestKind::Recorded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TestKind::Constancy => "constancy",
            TestKind::Accuracy => "accuracy",
            TestKind::Precision => "precision",
            TestKind::Linearity => "linearity",
            TestKind::Geometry => "geometry",
            TestKind::Reproducibility => "reproducibility",
            TestKind::Recorded => "recorded",
        }
    }

    pub fn parse(s: &str) -> Option<TestKind> {
        Self::ALL.iter().copied().find(|k| k.as_str() == s)
    }

    pub fn allowed() -> String {
        crate::values::names_of(Self::ALL, Self::as_str)
    }

    /// The tolerances a new test type of this kind gets when none are given (docs/qc.md);
    /// `None` for recorded-value tests, whose quantities must be named.
    pub fn default_tolerances(self) -> Option<Tolerances> {
        let (limit, warn) = match self {
            TestKind::Constancy => (5.0, None),
            TestKind::Accuracy => (10.0, None),
            TestKind::Precision => (5.0, None),
            TestKind::Linearity => (10.0, None),
            TestKind::Geometry => (10.0, Some(5.0)),
            TestKind::Reproducibility => (20.0, Some(10.0)),
            TestKind::Recorded => return None,
        };
        Some(Tolerances {
            limit_percent: Some(limit),
            warn_percent: warn,
            quantities: Vec::new(),
        })
    }
}

impl std::fmt::Display for TestKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Past `limit` a test fails; past `warn` (when set) it passes with remarks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub warn: Option<f64>,
    pub limit: f64,
}

impl Limits {
    pub fn fail_above(limit: f64) -> Limits {
        Limits { warn: None, limit }
    }
}

/// A recorded quantity and its limits (on its magnitude, in its own unit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Quantity {
    /// The key in `measurements.values`.
    pub name: String,
    pub label: String,
    pub unit: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warn: Option<f64>,
    pub limit: f64,
    /// The least value a reading can take, for a quantity that has one (a uniformity is a
    /// percentage from 0): a reading below it is refused. None: any sign (a centre-of-rotation
    /// offset is signed; the limits apply to its magnitude).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
}

/// A test type's tolerances: percentages for the dose-calibrator and survey-meter kinds, a list
/// of quantities for recorded-value tests.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tolerances {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_percent: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warn_percent: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quantities: Vec<Quantity>,
}

impl Tolerances {
    /// The percentage limits (validated tolerances of a percentage kind always have them).
    pub fn limits(&self) -> Limits {
        Limits {
            warn: self.warn_percent,
            limit: self.limit_percent.unwrap_or(0.0),
        }
    }
}

/// The most severe of the conclusions (`Satisfatório` for none).
pub fn worst(conclusions: impl IntoIterator<Item = Conclusion>) -> Conclusion {
    conclusions
        .into_iter()
        .max()
        .unwrap_or(Conclusion::Satisfactory)
}

fn limit_value(v: &Value, path: &str, errs: &mut FieldErrors) -> Option<f64> {
    let n = v.as_f64().filter(|x| x.is_finite() && *x > 0.0);
    if n.is_none() {
        errs.push(path, FieldCode::InvalidValue, "must be a positive number");
    }
    n
}

fn warn_below_limit(warn: Option<f64>, limit: Option<f64>, path: &str, errs: &mut FieldErrors) {
    if let (Some(w), Some(l)) = (warn, limit)
        && w >= l
    {
        errs.push(path, FieldCode::InvalidValue, "must be below the limit");
    }
}

/// Reads `tolerances` for a test type of `kind`: absent or null gives the kind's defaults.
pub fn read_tolerances(kind: TestKind, v: Option<&Value>) -> Result<Tolerances, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    const P: &str = "tolerances";
    let obj = match v {
        None | Some(Value::Null) => {
            return kind.default_tolerances().ok_or_else(|| {
                vec![FieldError::new(
                    format!("{P}.quantities"),
                    FieldCode::Required,
                    "is required: a recorded-value test needs its quantities and their limits",
                )]
            });
        }
        Some(Value::Object(o)) => o,
        Some(_) => {
            return Err(vec![FieldError::new(
                P,
                FieldCode::InvalidValue,
                "must be a JSON object",
            )]);
        }
    };
    let mut out = Tolerances::default();
    let mut seen: Vec<String> = Vec::new();
    if kind == TestKind::Recorded {
        match obj.get("quantities") {
            Some(Value::Array(items)) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    let path = format!("{P}.quantities[{i}]");
                    let Some(q) = item.as_object() else {
                        errs.push(&path, FieldCode::InvalidValue, "must be a JSON object");
                        continue;
                    };
                    let text = |key: &str, errs: &mut FieldErrors| match q.get(key) {
                        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
                        _ => {
                            errs.push(
                                format!("{path}.{key}"),
                                FieldCode::Required,
                                "is required (a non-empty string)",
                            );
                            None
                        }
                    };
                    let name = text("name", &mut errs);
                    let label = q
                        .get("label")
                        .and_then(Value::as_str)
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned);
                    let unit = text("unit", &mut errs);
                    let limit = match q.get("limit") {
                        Some(v) => limit_value(v, &format!("{path}.limit"), &mut errs),
                        None => {
                            errs.push(format!("{path}.limit"), FieldCode::Required, "is required");
                            None
                        }
                    };
                    let warn = q
                        .get("warn")
                        .filter(|v| !v.is_null())
                        .and_then(|v| limit_value(v, &format!("{path}.warn"), &mut errs));
                    warn_below_limit(warn, limit, &format!("{path}.warn"), &mut errs);
                    let minimum = match q.get("minimum") {
                        None | Some(Value::Null) => None,
                        Some(v) => {
                            let at = format!("{path}.minimum");
                            match v.as_f64().filter(|x| x.is_finite()) {
                                None => {
                                    errs.push(&at, FieldCode::InvalidValue, "must be a number");
                                    None
                                }
                                // Every reading from it on would fail: a typing mistake.
                                Some(m) if limit.is_some_and(|l| m >= l) => {
                                    errs.push(
                                        &at,
                                        FieldCode::InvalidValue,
                                        "must be below the limit",
                                    );
                                    None
                                }
                                Some(m) => Some(m),
                            }
                        }
                    };
                    if let Some(n) = &name {
                        if seen.contains(n) {
                            errs.push(
                                format!("{path}.name"),
                                FieldCode::InvalidValue,
                                "appears twice",
                            );
                        }
                        seen.push(n.clone());
                    }
                    if let (Some(name), Some(unit), Some(limit)) = (name, unit, limit) {
                        out.quantities.push(Quantity {
                            label: label.unwrap_or_else(|| name.clone()),
                            name,
                            unit,
                            warn,
                            limit,
                            minimum,
                        });
                    }
                }
            }
            _ => errs.push(
                format!("{P}.quantities"),
                FieldCode::Required,
                "must be a non-empty array: a recorded-value test needs its quantities",
            ),
        }
    } else {
        out.limit_percent = match obj.get("limitPercent") {
            None | Some(Value::Null) => {
                errs.push(
                    format!("{P}.limitPercent"),
                    FieldCode::Required,
                    "is required",
                );
                None
            }
            Some(v) => limit_value(v, &format!("{P}.limitPercent"), &mut errs),
        };
        out.warn_percent = obj
            .get("warnPercent")
            .filter(|v| !v.is_null())
            .and_then(|v| limit_value(v, &format!("{P}.warnPercent"), &mut errs));
        warn_below_limit(
            out.warn_percent,
            out.limit_percent,
            &format!("{P}.warnPercent"),
            &mut errs,
        );
    }
    errs.finish(out)
}

/// What the registry computed for one test record.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Every intermediate figure and the verdict, as stored and shown (`figures`).
    pub figures: Value,
    pub conclusion: Conclusion,
}

/// The figures as stored, with the verdict `conclusion` reads off them.
fn evaluation<T: Serialize>(figures: T, conclusion: impl FnOnce(&T) -> Conclusion) -> Evaluation {
    Evaluation {
        conclusion: conclusion(&figures),
        figures: serde_json::to_value(figures).expect("figures serialize"),
    }
}

/// Reads the `measurements` of a test of `kind` and computes its figures and verdict.
pub fn evaluate(
    kind: TestKind,
    tolerances: &Tolerances,
    measurements: Option<&Value>,
) -> Result<Evaluation, Vec<FieldError>> {
    let limits = tolerances.limits();
    Ok(match kind {
        TestKind::Constancy | TestKind::Accuracy => evaluation(
            calc::accuracy(&read::source_test(measurements, true)?, limits),
            |f| f.verdict.conclusion,
        ),
        TestKind::Precision => evaluation(
            calc::precision(&read::source_test(measurements, false)?, limits),
            |f| f.verdict.conclusion,
        ),
        TestKind::Linearity => evaluation(
            calc::linearity(&read::linearity_test(measurements)?, limits),
            |f| f.conclusion,
        ),
        TestKind::Geometry => evaluation(
            calc::geometry(&read::geometry_test(measurements)?, limits),
            |f| f.verdict.conclusion,
        ),
        TestKind::Reproducibility => evaluation(
            calc::reproducibility(&read::reproducibility_test(measurements)?, limits),
            |f| f.conclusion,
        ),
        TestKind::Recorded => evaluation(
            calc::recorded(read::recorded_values(measurements, &tolerances.quantities)?),
            |f| f.conclusion,
        ),
    })
}

/// A figure as text for tables and reports: numbers with four decimals (trailing zeros dropped),
/// lists joined with commas, `null` empty. Where four decimals would show a rounder number than
/// the figure is (by more than a verdict's margin, 10⁻⁹), more are shown, up to nine: a deviation
/// of 10.00001 % reads `10.00001`, never `10` beside its failing verdict at a limit of 10 %.
pub fn display_value(v: &Value) -> String {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x.abs() < 1e15 => {
                let mut s = format!("{x:.4}");
                for decimals in 5..=9 {
                    let shown: f64 = s.parse().unwrap_or(x);
                    if !s.ends_with('0') || (x - shown).abs() <= 1e-9 {
                        break;
                    }
                    s = format!("{x:.decimals$}");
                }
                match s.trim_end_matches('0').trim_end_matches('.') {
                    "-0" => "0".to_owned(),
                    shown => shown.to_owned(),
                }
            }
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => items
            .iter()
            .map(display_value)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}
