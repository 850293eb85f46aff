//! The reader of one JSON object of the measurements: each field read and checked, and a
//! failing one reported at its path (`measurements.sources[0].readings[2]`).

use super::{ACTIVITY_UNITS, MAX_YEAR, MIN_YEAR, parse_time};
use crate::error::{FieldCode, FieldErrors};
use crate::nuclide::Nuclide;
use chrono::{DateTime, Datelike, FixedOffset};
use serde_json::{Map, Value};

pub(super) struct Reader<'a> {
    obj: &'a Map<String, Value>,
    prefix: String,
}

pub(super) fn object<'a>(
    v: Option<&'a Value>,
    path: &str,
    errs: &mut FieldErrors,
) -> Option<&'a Map<String, Value>> {
    match v {
        None | Some(Value::Null) => {
            errs.push(path, FieldCode::Required, "is required");
            None
        }
        Some(Value::Object(o)) => Some(o),
        Some(_) => {
            errs.push(path, FieldCode::InvalidValue, "must be a JSON object");
            None
        }
    }
}

impl<'a> Reader<'a> {
    pub(super) fn new(obj: &'a Map<String, Value>, prefix: impl Into<String>) -> Self {
        Reader {
            obj,
            prefix: prefix.into(),
        }
    }

    pub(super) fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.prefix)
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn required(&self, key: &str, errs: &mut FieldErrors) -> Option<&'a Value> {
        let v = self.get(key);
        if v.is_none() {
            errs.push(self.path(key), FieldCode::Required, "is required");
        }
        v
    }

    pub(super) fn positive(&self, key: &str, errs: &mut FieldErrors) -> Option<f64> {
        let v = self.required(key, errs)?;
        positive(v, &self.path(key), errs)
    }

    pub(super) fn text(&self, key: &str, errs: &mut FieldErrors) -> Option<String> {
        match self.required(key, errs)? {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            _ => {
                errs.push(
                    self.path(key),
                    FieldCode::InvalidValue,
                    "must be a non-empty string",
                );
                None
            }
        }
    }

    pub(super) fn time(&self, key: &str, errs: &mut FieldErrors) -> Option<DateTime<FixedOffset>> {
        let path = self.path(key);
        match self.required(key, errs)? {
            Value::String(s) => match parse_time(s) {
                Some(t) if (MIN_YEAR..=MAX_YEAR).contains(&t.year()) => Some(t),
                Some(_) => {
                    errs.push(
                        path,
                        FieldCode::InvalidValue,
                        format!("must be a time in the years {MIN_YEAR} to {MAX_YEAR}"),
                    );
                    None
                }
                None => {
                    errs.push(
                        path,
                        FieldCode::InvalidValue,
                        "must be a date and time (2026-11-20T08:00:00-03:00; 2026-11-20T08:00, or a bare day 2026-11-20 at midnight, in Brasília)",
                    );
                    None
                }
            },
            _ => {
                errs.push(
                    path,
                    FieldCode::InvalidValue,
                    "must be a date and time string",
                );
                None
            }
        }
    }

    pub(super) fn nuclide(&self, key: &str, errs: &mut FieldErrors) -> Option<Nuclide> {
        let path = self.path(key);
        match self.required(key, errs)? {
            Value::String(s) => Nuclide::parse(s.trim()).or_else(|| {
                errs.push(
                    path,
                    FieldCode::InvalidValue,
                    format!("must be one of: {}", Nuclide::allowed()),
                );
                None
            }),
            _ => {
                errs.push(path, FieldCode::InvalidValue, "must be a nuclide name");
                None
            }
        }
    }

    /// `MBq` (the default) or `mCi`.
    pub(super) fn activity_unit(&self, errs: &mut FieldErrors) -> String {
        match self.get("unit") {
            None => "MBq".into(),
            Some(Value::String(s)) if ACTIVITY_UNITS.contains(&s.trim()) => s.trim().into(),
            Some(_) => {
                errs.push(
                    self.path("unit"),
                    FieldCode::InvalidValue,
                    "must be MBq or mCi",
                );
                "MBq".into()
            }
        }
    }

    /// An array of at least `min` items.
    pub(super) fn array(
        &self,
        key: &str,
        min: usize,
        errs: &mut FieldErrors,
    ) -> Option<&'a [Value]> {
        let path = self.path(key);
        match self.required(key, errs)? {
            Value::Array(items) if items.len() >= min => Some(items),
            Value::Array(_) => {
                errs.push(
                    path,
                    FieldCode::InvalidValue,
                    format!("needs at least {min} item(s)"),
                );
                None
            }
            _ => {
                errs.push(path, FieldCode::InvalidValue, "must be an array");
                None
            }
        }
    }

    /// An array of at least `min` positive numbers.
    pub(super) fn readings(
        &self,
        key: &str,
        min: usize,
        errs: &mut FieldErrors,
    ) -> Option<Vec<f64>> {
        let items = self.array(key, min, errs)?;
        let path = self.path(key);
        let before = errs.len();
        let values: Vec<Option<f64>> = items
            .iter()
            .enumerate()
            .map(|(i, v)| positive(v, &format!("{path}[{i}]"), errs))
            .collect();
        (errs.len() == before).then(|| values.into_iter().flatten().collect())
    }

    /// Each object of an array, read by `each` with its own prefix (`sources[1]`).
    pub(super) fn each<T>(
        &self,
        key: &str,
        min: usize,
        errs: &mut FieldErrors,
        mut each: impl FnMut(Reader<'a>, &mut FieldErrors) -> Option<T>,
    ) -> Option<Vec<T>> {
        let items = self.array(key, min, errs)?;
        let path = self.path(key);
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let item_path = format!("{path}[{i}]");
            if let Some(o) = object(Some(item), &item_path, errs)
                && let Some(t) = each(Reader::new(o, item_path), errs)
            {
                out.push(t);
            }
        }
        (out.len() == items.len()).then_some(out)
    }
}

/// The largest reading (in size): beyond any instrument's range, and small enough that the
/// figures computed from readings (squares, sums) stay finite.
const MAX_READING: f64 = 1e9;
/// The smallest positive reading (1e-9, as the smallest activity a receipt holds): a ratio to a
/// smaller one (a subnormal) would overflow.
const MIN_READING: f64 = 1e-9;

/// A JSON number, or a numeric string with a dot or a comma.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().replace(',', ".").parse::<f64>().ok(),
        _ => None,
    }
}

/// A positive number from [`MIN_READING`] to [`MAX_READING`].
pub(super) fn positive(v: &Value, path: &str, errs: &mut FieldErrors) -> Option<f64> {
    let valid = number(v).filter(|x| (MIN_READING..=MAX_READING).contains(x));
    if valid.is_none() {
        errs.push(
            path,
            FieldCode::InvalidValue,
            "must be a positive number from 0.000000001 to 1000000000",
        );
    }
    valid
}

/// Any number within ±[`MAX_READING`] (recorded values may be signed, e.g. a centre-of-rotation
/// offset).
pub(super) fn finite(v: &Value, path: &str, errs: &mut FieldErrors) -> Option<f64> {
    let valid = number(v).filter(|x| x.abs() <= MAX_READING);
    if valid.is_none() {
        errs.push(
            path,
            FieldCode::InvalidValue,
            "must be a number from -1000000000 to 1000000000",
        );
    }
    valid
}
