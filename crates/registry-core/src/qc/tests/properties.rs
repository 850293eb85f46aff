//! Property tests of the calculations.

use super::*;

fn exponential(a0: f64, half_life_h: f64, hours: &[f64]) -> Value {
    let start = read::parse_time("2026-11-20T08:00:00Z").unwrap();
    json!({
        "nuclide": "Tc-99m",
        "readings": hours.iter().map(|h| {
            // Times travel to the millisecond: the activity is computed at the rounded time.
            let ms = (h * 3_600_000.0).round();
            json!({
                "at": (start + chrono::Duration::milliseconds(ms as i64)).to_rfc3339(),
                "activity": a0 * (-(ms / 3_600_000.0) / half_life_h).exp2(),
            })
        }).collect::<Vec<_>>()
    })
}

proptest! {
    #[test]
    fn a_perfect_exponential_has_no_linearity_deviation(
        a0 in 1.0f64..1e5,
        // At most 25 half-lives: the activity stays above the smallest reading (1e-9).
        half_life in 2.0f64..100.0,
        mut hours in proptest::collection::vec(0.0f64..48.0, 3..8),
    ) {
        hours.push(hours[0] + 1.0);
        let m = exponential(a0, half_life, &hours);
        let e = eval(TestKind::Linearity, &m);
        prop_assert!(e.figures["maxDeviationPercent"].as_f64().unwrap() < 1e-6);
        let fitted = e.figures["fittedHalfLifeHours"].as_f64().unwrap();
        prop_assert!(((fitted - half_life) / half_life).abs() < 1e-9);
    }

    #[test]
    fn scaling_every_reading_changes_no_relative_deviation(
        k in 0.01f64..100.0,
        readings in proptest::collection::vec(1.0f64..1000.0, 2..6),
        reference in 1.0f64..1000.0,
    ) {
        let test = |k: f64| ReproducibilityTest {
            unit: "cps".into(),
            reference_reading: reference * k,
            readings: readings.iter().map(|r| r * k).collect(),
        };
        let limits = tol(TestKind::Reproducibility).limits();
        let (a, b) = (reproducibility(&test(1.0), limits), reproducibility(&test(k), limits));
        prop_assert!((a.deviation_percent - b.deviation_percent).abs() < 1e-9 * (1.0 + a.deviation_percent.abs()));
        prop_assert!((a.max_spread_percent - b.max_spread_percent).abs() < 1e-9 * (1.0 + a.max_spread_percent));
        let sources = |k: f64| SourceTest {
            unit: "MBq".into(),
            measured_at: None,
            sources: vec![SourceReadings { nuclide: Nuclide::Cs137, certificate: None,
                readings: readings.iter().map(|r| r * k).collect() }],
        };
        let limits = tol(TestKind::Precision).limits();
        let (p, q) = (precision(&sources(1.0), limits), precision(&sources(k), limits));
        prop_assert!((p.verdict.worst_deviation_percent - q.verdict.worst_deviation_percent).abs() < 1e-9 * (1.0 + p.verdict.worst_deviation_percent));
        prop_assert_eq!(p.verdict.conclusion, q.verdict.conclusion);
        let geometry_of = |k: f64| GeometryTest {
            unit: "MBq".into(),
            nuclide: None,
            reference: Geometry { label: "ref".into(), reading: reference * k },
            geometries: readings.iter().map(|r| Geometry { label: "g".into(), reading: r * k }).collect(),
        };
        let limits = tol(TestKind::Geometry).limits();
        let (g, h) = (geometry(&geometry_of(1.0), limits), geometry(&geometry_of(k), limits));
        for (x, y) in g.geometries.iter().zip(&h.geometries) {
            prop_assert!((x.deviation_percent - y.deviation_percent).abs() < 1e-9 * (1.0 + x.deviation_percent.abs()));
        }
    }

    #[test]
    fn accuracy_of_readings_equal_to_the_decayed_certificate_is_zero(
        activity in 1.0f64..1e4,
        days in 0u32..2000,
        i in 0usize..3,
    ) {
        let nuclide = [Nuclide::Co57, Nuclide::Ba133, Nuclide::Cs137][i];
        let start = read::parse_time("2020-01-01T12:00:00Z").unwrap();
        let at = start + chrono::Duration::days(days as i64);
        let expected = nuclide.decay(activity, days as f64 * 86_400.0);
        let test = SourceTest {
            unit: "MBq".into(),
            measured_at: Some(at),
            sources: vec![SourceReadings { nuclide, certificate: Some(Certificate { activity, date: start }),
                readings: vec![expected, expected] }],
        };
        let f = accuracy(&test, tol(TestKind::Accuracy).limits());
        prop_assert!(f.verdict.worst_deviation_percent < 1e-9);
        prop_assert_eq!(f.verdict.conclusion, Satisfactory);
    }

    #[test]
    fn a_certificate_decayed_twice_expects_what_one_decay_does(
        activity in 1.0f64..1e4,
        d1 in 0u32..1500,
        d2 in 0u32..1500,
        i in 0usize..3,
    ) {
        // Re-certifying the source at t1 with its decayed activity, then measuring at t1 + t2,
        // expects the same as measuring the original certificate at t1 + t2.
        let nuclide = [Nuclide::Co57, Nuclide::Ba133, Nuclide::Cs137][i];
        let start = read::parse_time("2020-01-01T12:00:00Z").unwrap();
        let t1 = start + chrono::Duration::days(d1 as i64);
        let t2 = t1 + chrono::Duration::days(d2 as i64);
        let expected = |activity: f64, date, at| {
            let test = SourceTest {
                unit: "MBq".into(),
                measured_at: Some(at),
                sources: vec![SourceReadings { nuclide, certificate: Some(Certificate { activity, date }),
                    readings: vec![1.0] }],
            };
            accuracy(&test, tol(TestKind::Accuracy).limits()).sources[0].expected.expected_activity
        };
        let recertified = expected(activity, start, t1);
        let two_steps = expected(recertified, t1, t2);
        let one_step = expected(activity, start, t2);
        prop_assert!(((two_steps - one_step) / one_step).abs() < 1e-12);
    }

    #[test]
    fn the_verdict_never_improves_as_the_deviation_grows(a in 0.0f64..30.0, b in 0.0f64..30.0) {
        let l = tol(TestKind::Geometry).limits();
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(judge(lo, l) <= judge(hi, l));
        prop_assert_eq!(judge(lo, l), judge(-lo, l));
    }
}
