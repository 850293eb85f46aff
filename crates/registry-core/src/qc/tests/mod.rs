//! Worked examples (numbers computed by hand from the formulas, written in the comments, in
//! `examples`), the readers of measurements, tolerances and times with the seeded catalogue (in
//! `readers`), and property tests of the calculations (in `properties`); the helpers they share.

mod examples;
mod properties;
mod readers;

use super::calc::*;
use super::*;
use crate::error::{assert_codes, codes};
use crate::nuclide::Nuclide;
use crate::qc::Conclusion::{Satisfactory, SatisfactoryWithRemarks, Unsatisfactory};
use proptest::prelude::*;
use serde_json::json;

/// Whether the figure `v` (a JSON number) is within `tol` of `expected`.
fn close(v: &Value, expected: f64, tol: f64) -> bool {
    (v.as_f64().unwrap() - expected).abs() <= tol
}

/// Asserts [`close`]`(v, expected, tol)`, showing the figure when it is not.
#[track_caller]
fn assert_close(v: &Value, expected: f64, tol: f64) {
    assert!(close(v, expected, tol), "{v} is not {expected} ± {tol}");
}

/// [`evaluate`] with the kind's default tolerances, for measurements that read.
fn eval(kind: TestKind, measurements: &Value) -> Evaluation {
    evaluate(kind, &tol(kind), Some(measurements)).unwrap()
}

fn tol(kind: TestKind) -> Tolerances {
    kind.default_tolerances().unwrap()
}

/// Co-57 certificate of 370 MBq on 2026-01-01T00:00Z, measured one half-life later:
/// 271.74 d = 271 d + 0.74 · 24 h = 271 d 17.76 h = 271 d 17 h 45 min 36 s.
/// 2026-01-01 + 271 d: Jan 31 + Feb 28 + … + Aug 31 = 243 d → Sep 1; + 28 d → Sep 29.
/// So at 2026-09-29T17:45:36Z the expected activity is 370 / 2 = 185 MBq.
fn co57(readings: &[f64]) -> Value {
    json!({
        "unit": "MBq",
        "measuredAt": "2026-09-29T14:45:36-03:00",
        "sources": [{"nuclide": "Co-57", "certificateActivity": 370, "certificateDate": "2026-01-01T00:00:00Z",
                     "readings": readings}]
    })
}
