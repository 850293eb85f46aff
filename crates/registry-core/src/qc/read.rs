//! Reading the `measurements` of a computed test, field by field (paths such as
//! `measurements.sources[0].readings[2]`), into the typed inputs of the calculations; the
//! reader of one object and its numbers are in `reader`.

use super::Quantity;
use super::calc::{
    Certificate, Geometry, GeometryTest, LinearityTest, ReproducibilityTest, SourceReadings,
    SourceTest, TimedReading,
};
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::nuclide::MAX_DECAY_HALF_LIVES;
use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone};
use serde_json::Value;

mod reader;

use reader::{Reader, finite, object, positive};

/// Why `x` is not a reading the readers take (a positive number from 10⁻⁹ to 10⁹), if it is not:
/// how a prompt checks an answer as it is typed.
pub fn reading_problem(x: f64) -> Option<String> {
    let mut errs = FieldErrors::default();
    positive(&Value::from(x), "", &mut errs);
    errs.into_vec().pop().map(|e| e.message)
}

/// Activity units a dose calibrator shows.
pub const ACTIVITY_UNITS: &[&str] = &["MBq", "mCi"];

/// Brasília (UTC−03:00), the zone of a time written without an offset.
fn brasilia() -> FixedOffset {
    FixedOffset::west_opt(3 * 3600).expect("valid offset")
}

/// A time: RFC 3339 (`2026-11-20T08:00:00-03:00`), or without an offset (`2026-11-20T08:00`,
/// `2026-11-20 08:00`) or a bare day (`2026-11-20`, taken as midnight), both read in Brasília.
pub fn parse_time(s: &str) -> Option<DateTime<FixedOffset>> {
    let s = s.trim();
    if let Some(t) = crate::time::rfc3339(s) {
        return Some(t);
    }
    let naive = [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
    .or_else(|| crate::time::day(s).and_then(|d| d.and_hms_opt(0, 0, 0)))?;
    brasilia().from_local_datetime(&naive).single()
}

/// The latest time the readings name (`measuredAt`, or a linearity reading's `at`): its field
/// and its day in Brasília, when there is a readable one.
fn latest_reading(measurements: Option<&Value>) -> Option<(String, NaiveDate)> {
    let m = measurements?;
    let day = |v: &Value| {
        let at = parse_time(v.as_str()?)?;
        Some(at.with_timezone(&brasilia()).date_naive())
    };
    let measured = m
        .get("measuredAt")
        .and_then(day)
        .map(|d| (format!("{ROOT}.measuredAt"), d));
    let readings = m.get("readings").and_then(Value::as_array).into_iter();
    let timed = readings.flatten().enumerate().filter_map(|(i, r)| {
        let d = day(r.get("at")?)?;
        Some((format!("{ROOT}.readings[{i}].at"), d))
    });
    measured.into_iter().chain(timed).max_by_key(|(_, d)| *d)
}

/// The day (in Brasília) of the last reading (`measuredAt`, linearity readings' `at`), when the
/// readings carry a readable time: the day a computed test was made.
pub fn measured_on(measurements: Option<&Value>) -> Option<NaiveDate> {
    latest_reading(measurements).map(|(_, d)| d)
}

/// The error of a reading made on a later day (in Brasília) than the test's `date`: a test is
/// dated by the day its readings were made, and its next due date counts from that day.
pub fn measured_after(measurements: Option<&Value>, date: NaiveDate) -> Option<FieldError> {
    let (field, day) = latest_reading(measurements)?;
    (day > date).then(|| {
        FieldError::new(
            field,
            FieldCode::InvalidValue,
            format!(
                "is on {day}, after the test's date ({date}): date the test by the day it was made"
            ),
        )
    })
}

/// The years a measurement or a source certificate may be dated in.
pub(crate) const MIN_YEAR: i32 = 1900;
pub(crate) const MAX_YEAR: i32 = 2100;

const ROOT: &str = "measurements";

fn root<'a>(v: Option<&'a Value>, errs: &mut FieldErrors) -> Option<Reader<'a>> {
    object(v, ROOT, errs).map(|o| Reader::new(o, ROOT))
}

fn done<T>(errs: FieldErrors, value: Option<T>) -> Result<T, Vec<FieldError>> {
    match value {
        Some(v) if errs.is_empty() => Ok(v),
        _ => Err(errs.into_vec()),
    }
}

/// Accuracy and constancy (`with_certificate`) or precision: sources, each with its readings.
pub fn source_test(
    measurements: Option<&Value>,
    with_certificate: bool,
) -> Result<SourceTest, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let test = root(measurements, &mut errs).and_then(|r| {
        let unit = r.activity_unit(&mut errs);
        let measured_at = if with_certificate {
            r.time("measuredAt", &mut errs)
        } else {
            None
        };
        let min_readings = if with_certificate { 1 } else { 2 };
        let sources = r.each("sources", 1, &mut errs, |s, errs| {
            let nuclide = s.nuclide("nuclide", errs);
            let certificate = with_certificate.then(|| {
                let activity = s.positive("certificateActivity", errs);
                let date = s.time("certificateDate", errs);
                activity
                    .zip(date)
                    .map(|(activity, date)| Certificate { activity, date })
            });
            let readings = s.readings("readings", min_readings, errs);
            if certificate.as_ref().is_some_and(Option::is_none) {
                return None;
            }
            Some(SourceReadings {
                nuclide: nuclide?,
                certificate: certificate.flatten(),
                readings: readings?,
            })
        });
        Some(SourceTest {
            unit,
            measured_at,
            sources: sources?,
        })
    });
    if let Some(t) = &test
        && let Some(at) = t.measured_at
    {
        for (i, s) in t.sources.iter().enumerate() {
            let Some(c) = &s.certificate else { continue };
            let field = format!("{ROOT}.sources[{i}].certificateDate");
            if c.date > at {
                errs.push(
                    field,
                    FieldCode::InvalidValue,
                    "is after the measurement time",
                );
            } else if s.nuclide.too_many_half_lives(at - c.date) {
                // The expected activity would be under a millionth of the certificate's (and
                // past ≈ 1,000 half-lives zero): no reading can be compared with it.
                errs.push(
                    field,
                    FieldCode::InvalidValue,
                    format!(
                        "is more than {MAX_DECAY_HALF_LIVES} half-lives of {} before the measurement: the source has decayed away",
                        s.nuclide
                    ),
                );
            }
        }
    }
    done(errs, test)
}

pub fn linearity_test(measurements: Option<&Value>) -> Result<LinearityTest, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let test = root(measurements, &mut errs).and_then(|r| {
        let unit = r.activity_unit(&mut errs);
        let nuclide = r.nuclide("nuclide", &mut errs);
        let readings = r.each("readings", 3, &mut errs, |p, errs| {
            let at = p.time("at", errs);
            let activity = p.positive("activity", errs);
            Some(TimedReading {
                at: at?,
                activity: activity?,
            })
        });
        if let Some(rs) = &readings
            && rs.iter().all(|x| x.at == rs[0].at)
        {
            errs.push(
                format!("{ROOT}.readings"),
                FieldCode::InvalidValue,
                "needs readings at two different times at least",
            );
        }
        Some(LinearityTest {
            unit,
            nuclide: nuclide?,
            readings: readings?,
        })
    });
    done(errs, test)
}

pub fn geometry_test(measurements: Option<&Value>) -> Result<GeometryTest, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let test = root(measurements, &mut errs).and_then(|r| {
        let unit = r.activity_unit(&mut errs);
        let nuclide = r.get("nuclide").map(|_| r.nuclide("nuclide", &mut errs));
        let geometry = |g: Reader<'_>, errs: &mut FieldErrors| {
            let label = g.text("label", errs);
            let reading = g.positive("reading", errs);
            Some(Geometry {
                label: label?,
                reading: reading?,
            })
        };
        let path = r.path("reference");
        let reference = object(r.get("reference"), &path, &mut errs)
            .and_then(|o| geometry(Reader::new(o, path), &mut errs));
        let geometries = r.each("geometries", 1, &mut errs, geometry);
        Some(GeometryTest {
            unit,
            nuclide: nuclide.flatten(),
            reference: reference?,
            geometries: geometries?,
        })
    });
    done(errs, test)
}

pub fn reproducibility_test(
    measurements: Option<&Value>,
) -> Result<ReproducibilityTest, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let test = root(measurements, &mut errs).and_then(|r| {
        let unit = match r.get("unit") {
            None => "µSv/h".to_owned(),
            Some(_) => r.text("unit", &mut errs).unwrap_or_default(),
        };
        let reference = r.positive("referenceReading", &mut errs);
        let readings = r.readings("readings", 1, &mut errs);
        Some(ReproducibilityTest {
            unit,
            reference_reading: reference?,
            readings: readings?,
        })
    });
    done(errs, test)
}

/// `{"values": {name: number}}`: every quantity of the test type, and no other.
pub fn recorded_values(
    measurements: Option<&Value>,
    quantities: &[Quantity],
) -> Result<Vec<(Quantity, f64)>, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let values = root(measurements, &mut errs).and_then(|r| {
        let path = r.path("values");
        let values = object(r.get("values"), &path, &mut errs)?;
        for key in values.keys() {
            if !quantities.iter().any(|q| &q.name == key) {
                errs.push(
                    format!("{path}.{key}"),
                    FieldCode::InvalidValue,
                    format!(
                        "is not a quantity of this test (expected: {})",
                        quantities
                            .iter()
                            .map(|q| q.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
        let read = Reader::new(values, path);
        let out: Vec<Option<(Quantity, f64)>> = quantities
            .iter()
            .map(|q| {
                let v = read.required(&q.name, &mut errs)?;
                let at = read.path(&q.name);
                let x = finite(v, &at, &mut errs)?;
                if let Some(min) = q.minimum.filter(|min| x < *min) {
                    errs.push(
                        at,
                        FieldCode::InvalidValue,
                        format!("must be at least {min} {} ({})", q.unit, q.label),
                    );
                    return None;
                }
                Some((q.clone(), x))
            })
            .collect();
        out.into_iter().collect::<Option<Vec<_>>>()
    });
    done(errs, values)
}
