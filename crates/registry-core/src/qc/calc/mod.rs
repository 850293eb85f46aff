//! The physicist's arithmetic: each function takes typed readings and returns every intermediate
//! figure with the verdict. Activities are in whatever unit the readings came in (MBq or mCi): the
//! figures are ratios, so the unit only travels along.

use super::Conclusion;
use super::{Limits, worst};
use crate::nuclide::Nuclide;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;

mod linearity;
pub use linearity::*;

/// A deviation this close above a limit still counts as on it: `(11 − 10) / 10 · 100` is
/// `10.000000000000002` in floating point, and the physicist wrote "10 %".
const ON_THE_LIMIT: f64 = 1e-9;

/// The verdict for one deviation (in %, either sign): within `warn` (or within `limit` when there
/// is no `warn`) satisfactory; within `limit` satisfactory with remarks; past `limit` not.
pub fn judge(deviation_percent: f64, limits: Limits) -> Conclusion {
    let d = deviation_percent.abs();
    if !d.is_finite() || d > limits.limit + ON_THE_LIMIT {
        Conclusion::Unsatisfactory
    } else if limits.warn.is_some_and(|w| d > w + ON_THE_LIMIT) {
        Conclusion::SatisfactoryWithRemarks
    } else {
        Conclusion::Satisfactory
    }
}

/// `(value − reference) / reference · 100`.
pub fn deviation_percent(value: f64, reference: f64) -> f64 {
    (value - reference) / reference * 100.0
}

/// The largest magnitude (0 for none). Not a number when one of them is not (a figure that
/// overflowed), so that it fails its test instead of being passed over by `f64::max`.
pub fn max_abs(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().map(f64::abs).fold(0.0, |max, v| {
        if v.is_nan() || max.is_nan() {
            f64::NAN
        } else {
            max.max(v)
        }
    })
}

pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The verdict of a test over several rows (sources, geometries): the largest |deviation| among
/// them and the worst of their conclusions, with the limits they were judged against.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorstDeviation {
    pub worst_deviation_percent: f64,
    pub limit_percent: f64,
    pub warn_percent: Option<f64>,
    pub conclusion: Conclusion,
}

impl WorstDeviation {
    /// Of the rows' `(deviation %, conclusion)`.
    pub fn of(rows: impl IntoIterator<Item = (f64, Conclusion)>, limits: Limits) -> Self {
        let (deviations, conclusions): (Vec<f64>, Vec<Conclusion>) = rows.into_iter().unzip();
        WorstDeviation {
            worst_deviation_percent: max_abs(deviations),
            limit_percent: limits.limit,
            warn_percent: limits.warn,
            conclusion: worst(conclusions),
        }
    }
}

fn seconds_between(from: DateTime<FixedOffset>, to: DateTime<FixedOffset>) -> f64 {
    (to - from).num_milliseconds() as f64 / 1000.0
}

/// A reference source with a calibration certificate.
#[derive(Debug, Clone, PartialEq)]
pub struct Certificate {
    pub activity: f64,
    pub date: DateTime<FixedOffset>,
}

/// The readings of one source in the dose calibrator.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceReadings {
    pub nuclide: Nuclide,
    /// Required by accuracy and constancy, not by precision.
    pub certificate: Option<Certificate>,
    pub readings: Vec<f64>,
}

/// Readings of one or more sources taken at one time (accuracy, precision, constancy).
#[derive(Debug, Clone, PartialEq)]
pub struct SourceTest {
    pub unit: String,
    pub measured_at: Option<DateTime<FixedOffset>>,
    pub sources: Vec<SourceReadings>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecayedCertificate {
    pub certificate_activity: f64,
    pub certificate_date: String,
    pub elapsed_days: f64,
    pub half_life_days: f64,
    /// `2^(−Δt / T½)`.
    pub decay_factor: f64,
    /// The certificate activity decayed to the measurement time.
    pub expected_activity: f64,
}

fn decayed(nuclide: Nuclide, c: &Certificate, at: DateTime<FixedOffset>) -> DecayedCertificate {
    let elapsed = seconds_between(c.date, at);
    DecayedCertificate {
        certificate_activity: c.activity,
        certificate_date: c.date.to_rfc3339(),
        elapsed_days: elapsed / 86_400.0,
        half_life_days: nuclide.half_life_seconds() / 86_400.0,
        decay_factor: nuclide.decay(1.0, elapsed),
        expected_activity: nuclide.decay(c.activity, elapsed),
    }
}

/// Accuracy and constancy of one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccuracySource {
    pub nuclide: Nuclide,
    pub readings: Vec<f64>,
    pub mean: f64,
    #[serde(flatten)]
    pub expected: DecayedCertificate,
    /// `(mean − expected) / expected · 100`.
    pub deviation_percent: f64,
    pub conclusion: Conclusion,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccuracyFigures {
    pub unit: String,
    pub measured_at: String,
    pub sources: Vec<AccuracySource>,
    #[serde(flatten)]
    pub verdict: WorstDeviation,
}

/// Accuracy (and daily constancy): the mean reading of each source against its certificate
/// activity decayed to the measurement time. The caller guarantees a measurement time, a
/// certificate on every source and at least one reading each.
pub fn accuracy(test: &SourceTest, limits: Limits) -> AccuracyFigures {
    let at = test
        .measured_at
        .expect("accuracy needs the measurement time");
    let sources: Vec<AccuracySource> = test
        .sources
        .iter()
        .map(|s| {
            let certificate = s
                .certificate
                .as_ref()
                .expect("accuracy needs a certificate");
            let expected = decayed(s.nuclide, certificate, at);
            let mean = mean(&s.readings);
            let deviation = deviation_percent(mean, expected.expected_activity);
            AccuracySource {
                nuclide: s.nuclide,
                readings: s.readings.clone(),
                mean,
                expected,
                deviation_percent: deviation,
                conclusion: judge(deviation, limits),
            }
        })
        .collect();
    AccuracyFigures {
        unit: test.unit.clone(),
        measured_at: at.to_rfc3339(),
        verdict: WorstDeviation::of(
            sources.iter().map(|s| (s.deviation_percent, s.conclusion)),
            limits,
        ),
        sources,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrecisionSource {
    pub nuclide: Nuclide,
    pub readings: Vec<f64>,
    pub mean: f64,
    /// `(reading − mean) / mean · 100`, one per reading.
    pub deviations_percent: Vec<f64>,
    /// The largest |deviation|.
    pub max_deviation_percent: f64,
    pub conclusion: Conclusion,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrecisionFigures {
    pub unit: String,
    pub sources: Vec<PrecisionSource>,
    #[serde(flatten)]
    pub verdict: WorstDeviation,
}

/// Precision: the largest deviation of a reading from the mean of its source's readings.
pub fn precision(test: &SourceTest, limits: Limits) -> PrecisionFigures {
    let sources: Vec<PrecisionSource> = test
        .sources
        .iter()
        .map(|s| {
            let mean = mean(&s.readings);
            let deviations: Vec<f64> = s
                .readings
                .iter()
                .map(|r| deviation_percent(*r, mean))
                .collect();
            let max = max_abs(deviations.iter().copied());
            PrecisionSource {
                nuclide: s.nuclide,
                readings: s.readings.clone(),
                mean,
                deviations_percent: deviations,
                max_deviation_percent: max,
                conclusion: judge(max, limits),
            }
        })
        .collect();
    PrecisionFigures {
        unit: test.unit.clone(),
        verdict: WorstDeviation::of(
            sources
                .iter()
                .map(|s| (s.max_deviation_percent, s.conclusion)),
            limits,
        ),
        sources,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub label: String,
    pub reading: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GeometryTest {
    pub unit: String,
    pub nuclide: Option<Nuclide>,
    pub reference: Geometry,
    pub geometries: Vec<Geometry>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeometryRow {
    pub label: String,
    pub reading: f64,
    /// `(reading − reference) / reference · 100`.
    pub deviation_percent: f64,
    /// `reference / reading`, to multiply readings in this geometry by; only between the warning
    /// and the failing limit.
    pub correction_factor: Option<f64>,
    pub conclusion: Conclusion,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeometryFigures {
    pub unit: String,
    pub nuclide: Option<Nuclide>,
    pub reference_label: String,
    pub reference_reading: f64,
    pub geometries: Vec<GeometryRow>,
    #[serde(flatten)]
    pub verdict: WorstDeviation,
}

/// Geometry: the same activity in each volume or container against the reference one.
pub fn geometry(test: &GeometryTest, limits: Limits) -> GeometryFigures {
    let reference = test.reference.reading;
    let geometries: Vec<GeometryRow> = test
        .geometries
        .iter()
        .map(|g| {
            let deviation = deviation_percent(g.reading, reference);
            let conclusion = judge(deviation, limits);
            GeometryRow {
                label: g.label.clone(),
                reading: g.reading,
                deviation_percent: deviation,
                correction_factor: (conclusion == Conclusion::SatisfactoryWithRemarks)
                    .then(|| reference / g.reading),
                conclusion,
            }
        })
        .collect();
    GeometryFigures {
        unit: test.unit.clone(),
        nuclide: test.nuclide,
        reference_label: test.reference.label.clone(),
        reference_reading: reference,
        verdict: WorstDeviation::of(
            geometries
                .iter()
                .map(|g| (g.deviation_percent, g.conclusion)),
            limits,
        ),
        geometries,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReproducibilityTest {
    pub unit: String,
    /// The check source's reading taken as reference (at acceptance or last calibration).
    pub reference_reading: f64,
    pub readings: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReproducibilityFigures {
    pub unit: String,
    pub reference_reading: f64,
    pub readings: Vec<f64>,
    pub mean: f64,
    /// `(mean − reference) / reference · 100`: the verdict's figure.
    pub deviation_percent: f64,
    /// The largest |reading − mean| / mean · 100 (the scatter of the readings).
    pub max_spread_percent: f64,
    pub limit_percent: f64,
    pub warn_percent: Option<f64>,
    pub conclusion: Conclusion,
}

/// Reproducibility of a survey meter: the mean reading of its check source against the reference.
pub fn reproducibility(test: &ReproducibilityTest, limits: Limits) -> ReproducibilityFigures {
    let mean = mean(&test.readings);
    let deviation = deviation_percent(mean, test.reference_reading);
    ReproducibilityFigures {
        unit: test.unit.clone(),
        reference_reading: test.reference_reading,
        readings: test.readings.clone(),
        mean,
        deviation_percent: deviation,
        max_spread_percent: max_abs(test.readings.iter().map(|r| deviation_percent(*r, mean))),
        limit_percent: limits.limit,
        warn_percent: limits.warn,
        conclusion: judge(deviation, limits),
    }
}

/// A named quantity read off the equipment's own analysis (uniformity, centre of rotation…).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedValue {
    pub name: String,
    pub label: String,
    pub unit: String,
    pub value: f64,
    pub warn: Option<f64>,
    pub limit: f64,
    pub conclusion: Conclusion,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedFigures {
    pub values: Vec<RecordedValue>,
    pub conclusion: Conclusion,
}

/// Recorded-value tests: each value (its magnitude) against its own limits.
pub fn recorded(values: Vec<(super::Quantity, f64)>) -> RecordedFigures {
    let values: Vec<RecordedValue> = values
        .into_iter()
        .map(|(q, value)| RecordedValue {
            conclusion: judge(
                value,
                Limits {
                    warn: q.warn,
                    limit: q.limit,
                },
            ),
            name: q.name,
            label: q.label,
            unit: q.unit,
            value,
            warn: q.warn,
            limit: q.limit,
        })
        .collect();
    RecordedFigures {
        conclusion: worst(values.iter().map(|v| v.conclusion)),
        values,
    }
}
