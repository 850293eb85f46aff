//! Linearity of a dose calibrator: a decaying source read at several times, against the
//! least-squares exponential through the readings.

use super::{Conclusion, Limits, deviation_percent, judge, max_abs, seconds_between};
use crate::nuclide::Nuclide;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;

/// One reading of a decaying source.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedReading {
    pub at: DateTime<FixedOffset>,
    pub activity: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinearityTest {
    pub unit: String,
    pub nuclide: Nuclide,
    /// At least three, at no fewer than two distinct times.
    pub readings: Vec<TimedReading>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinearityPoint {
    pub at: String,
    /// Hours since the first reading.
    pub elapsed_hours: f64,
    pub activity: f64,
    /// `exp(intercept + slope · elapsedHours)`.
    pub fitted_activity: f64,
    /// `(activity − fitted) / fitted · 100`.
    pub deviation_percent: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinearityFigures {
    pub unit: String,
    pub nuclide: Nuclide,
    pub points: Vec<LinearityPoint>,
    /// Least-squares fit of `ln(activity) = intercept + slope · elapsedHours`.
    pub intercept: f64,
    pub slope_per_hour: f64,
    /// `ln 2 / −slope`; `None` when the readings do not decrease.
    pub fitted_half_life_hours: Option<f64>,
    pub nuclide_half_life_hours: f64,
    /// `(fitted − nuclide) / nuclide · 100`.
    pub half_life_deviation_percent: Option<f64>,
    pub max_deviation_percent: f64,
    pub limit_percent: f64,
    pub warn_percent: Option<f64>,
    pub remarks: Vec<String>,
    pub conclusion: Conclusion,
}

/// The least-squares line through `(x, y)`: `(intercept, slope)`. Needs two distinct `x`.
pub fn least_squares(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = sxy / sxx;
    (mean_y - slope * mean_x, slope)
}

/// Linearity: a decaying source read at several times; each reading against the least-squares
/// exponential through all of them, and the fitted half-life against the nuclide's. The verdict
/// is the largest deviation's; a fitted half-life off the nuclide's by more than the limit turns
/// a satisfactory verdict into one with remarks (the clock or the nuclide may be wrong).
pub fn linearity(test: &LinearityTest, limits: Limits) -> LinearityFigures {
    let mut readings = test.readings.clone();
    readings.sort_by_key(|r| r.at);
    let start = readings[0].at;
    let xy: Vec<(f64, f64)> = readings
        .iter()
        .map(|r| (seconds_between(start, r.at) / 3600.0, r.activity.ln()))
        .collect();
    let (intercept, slope) = least_squares(&xy);
    let points: Vec<LinearityPoint> = readings
        .iter()
        .zip(&xy)
        .map(|(r, (x, _))| {
            let fitted = (intercept + slope * x).exp();
            LinearityPoint {
                at: r.at.to_rfc3339(),
                elapsed_hours: *x,
                activity: r.activity,
                fitted_activity: fitted,
                deviation_percent: deviation_percent(r.activity, fitted),
            }
        })
        .collect();
    let max = max_abs(points.iter().map(|p| p.deviation_percent));
    let nuclide_half_life_hours = test.nuclide.half_life_seconds() / 3600.0;
    let fitted_half_life_hours = (slope < 0.0).then(|| std::f64::consts::LN_2 / -slope);
    let half_life_deviation =
        fitted_half_life_hours.map(|t| deviation_percent(t, nuclide_half_life_hours));
    let mut conclusion = judge(max, limits);
    let mut remarks = Vec::new();
    match half_life_deviation {
        // In Portuguese, as the verdicts and the report they are printed in.
        None => {
            remarks.push("as leituras não decrescem: não é possível ajustar uma meia-vida".into())
        }
        Some(d) if judge(d, Limits::fail_above(limits.limit)) != Conclusion::Satisfactory => {
            remarks.push(format!(
                "a meia-vida ajustada difere {} % da meia-vida do {}",
                format!("{d:+.2}").replace('.', ","),
                test.nuclide
            ))
        }
        Some(_) => {}
    }
    if !remarks.is_empty() && conclusion == Conclusion::Satisfactory {
        conclusion = Conclusion::SatisfactoryWithRemarks;
    }
    LinearityFigures {
        unit: test.unit.clone(),
        nuclide: test.nuclide,
        points,
        intercept,
        slope_per_hour: slope,
        fitted_half_life_hours,
        nuclide_half_life_hours,
        half_life_deviation_percent: half_life_deviation,
        max_deviation_percent: max,
        limit_percent: limits.limit,
        warn_percent: limits.warn,
        remarks,
        conclusion,
    }
}
