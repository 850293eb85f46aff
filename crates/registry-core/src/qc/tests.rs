//! Worked examples (numbers computed by hand from the formulas, written in the comments) and
//! property tests of the calculations.

use super::calc::*;
use super::*;
use crate::equipment::Conclusion::{Satisfactory, SatisfactoryWithRemarks, Unsatisfactory};
use crate::nuclide::Nuclide;
use proptest::prelude::*;
use serde_json::json;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn codes(errors: &[FieldError]) -> Vec<(&str, FieldCode)> {
    errors.iter().map(|e| (e.field.as_str(), e.code)).collect()
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

#[test]
fn accuracy_worked_example() {
    // Readings 190, 192, 194: mean 576 / 3 = 192; deviation (192 − 185) / 185 = 3.7838 %.
    let e = evaluate(
        TestKind::Accuracy,
        &tol(TestKind::Accuracy),
        Some(&co57(&[190.0, 192.0, 194.0])),
    )
    .unwrap();
    let s = &e.figures["sources"][0];
    assert!(close(s["decayFactor"].as_f64().unwrap(), 0.5, 1e-9));
    assert!(close(s["expectedActivity"].as_f64().unwrap(), 185.0, 1e-6));
    assert!(close(s["elapsedDays"].as_f64().unwrap(), 271.74, 1e-9));
    assert_eq!(s["mean"], 192.0);
    assert!(close(s["deviationPercent"].as_f64().unwrap(), 3.7838, 1e-4));
    assert_eq!(e.conclusion, Satisfactory);
    // Readings 205, 206, 207: mean 206; (206 − 185) / 185 = 21 / 185 = 11.3514 % > 10 %.
    let e = evaluate(
        TestKind::Accuracy,
        &tol(TestKind::Accuracy),
        Some(&co57(&[205.0, 206.0, 207.0])),
    )
    .unwrap();
    assert!(close(
        e.figures["worstDeviationPercent"].as_f64().unwrap(),
        11.3514,
        1e-4
    ));
    assert_eq!(e.conclusion, Unsatisfactory);
}

#[test]
fn accuracy_with_two_sources_takes_the_worst() {
    // Cs-137 measured at its certificate time: expected = certificate = 100; mean 96 → −4 %.
    // Co-57 as above with reading 166.5: (166.5 − 185) / 185 = −10 % exactly → still passes.
    let mut m = co57(&[166.5]);
    m["sources"].as_array_mut().unwrap().push(json!({
        "nuclide": "Cs-137", "certificateActivity": "100", "certificateDate": "2026-09-29T14:45:36-03:00",
        "readings": [95, 97]
    }));
    let e = evaluate(TestKind::Accuracy, &tol(TestKind::Accuracy), Some(&m)).unwrap();
    assert!(close(
        e.figures["sources"][0]["deviationPercent"]
            .as_f64()
            .unwrap(),
        -10.0,
        1e-9
    ));
    assert!(close(
        e.figures["sources"][1]["deviationPercent"]
            .as_f64()
            .unwrap(),
        -4.0,
        1e-9
    ));
    assert_eq!(e.conclusion, Satisfactory);
}

#[test]
fn constancy_worked_example() {
    // Expected 185 (above). 176: (176 − 185) / 185 = −9 / 185 = −4.8649 % → within ±5 %.
    // 175: −10 / 185 = −5.4054 % → fails.
    let pass = evaluate(
        TestKind::Constancy,
        &tol(TestKind::Constancy),
        Some(&co57(&[176.0])),
    )
    .unwrap();
    assert!(close(
        pass.figures["sources"][0]["deviationPercent"]
            .as_f64()
            .unwrap(),
        -4.8649,
        1e-4
    ));
    assert_eq!(pass.conclusion, Satisfactory);
    let fail = evaluate(
        TestKind::Constancy,
        &tol(TestKind::Constancy),
        Some(&co57(&[175.0])),
    )
    .unwrap();
    assert!(close(
        fail.figures["worstDeviationPercent"].as_f64().unwrap(),
        5.4054,
        1e-4
    ));
    assert_eq!(fail.conclusion, Unsatisfactory);
}

#[test]
fn precision_worked_example() {
    // 190, 192, 194: mean 192; deviations −2/192, 0, +2/192 = ∓1.0417 % → ≤ 5 %.
    let m = json!({"sources": [{"nuclide": "Cs-137", "readings": [190, 192, 194]}]});
    let e = evaluate(TestKind::Precision, &tol(TestKind::Precision), Some(&m)).unwrap();
    let d = e.figures["sources"][0]["deviationsPercent"]
        .as_array()
        .unwrap();
    assert!(close(d[0].as_f64().unwrap(), -1.0417, 1e-4));
    assert_eq!(d[1], 0.0);
    assert!(close(d[2].as_f64().unwrap(), 1.0417, 1e-4));
    assert_eq!(e.conclusion, Satisfactory);
    // 90, 100, 110: mean 100; max deviation 10 % > 5 %.
    let m = json!({"sources": [{"nuclide": "Cs-137", "readings": [90, 100, 110]}]});
    let e = evaluate(TestKind::Precision, &tol(TestKind::Precision), Some(&m)).unwrap();
    assert!(close(
        e.figures["worstDeviationPercent"].as_f64().unwrap(),
        10.0,
        1e-9
    ));
    assert_eq!(e.conclusion, Unsatisfactory);
}

/// Tc-99m read at 0, T and 2T (T = 6.0067 h = 6 h 0.402 min = 6 h 0 min 24.12 s):
/// 1000, 500·e^δ, 250. With x in units of T, y = ln A: x̄ = 1, Sxx = 2,
/// Sxy = (−1)(y0 − ȳ) + (1)(y2 − ȳ) = y2 − y0 = −2 ln 2, so the slope is −ln 2 per T: the
/// fitted half-life is exactly T whatever δ. ȳ = ln 1000 − ln 2 + δ/3 and the intercept is
/// ȳ + ln 2 = ln 1000 + δ/3, so each reading over its fitted value is e^(−δ/3), e^(2δ/3), e^(−δ/3).
fn tc99m(delta: f64) -> Value {
    json!({
        "unit": "mCi",
        "nuclide": "Tc-99m",
        "readings": [
            {"at": "2026-11-20T08:00:00-03:00", "activity": 1000},
            {"at": "2026-11-20T14:00:24.120-03:00", "activity": 500.0 * delta.exp()},
            {"at": "2026-11-20T20:00:48.240-03:00", "activity": 250},
        ]
    })
}

#[test]
fn linearity_worked_example() {
    // δ = 0.03: e^(−0.01) − 1 = −0.9950 %, e^(0.02) − 1 = +2.0201 % → within 10 %.
    let e = evaluate(
        TestKind::Linearity,
        &tol(TestKind::Linearity),
        Some(&tc99m(0.03)),
    )
    .unwrap();
    let p = e.figures["points"].as_array().unwrap();
    assert!(close(
        p[0]["deviationPercent"].as_f64().unwrap(),
        -0.9950,
        1e-4
    ));
    assert!(close(
        p[1]["deviationPercent"].as_f64().unwrap(),
        2.0201,
        1e-4
    ));
    assert!(close(
        p[2]["deviationPercent"].as_f64().unwrap(),
        -0.9950,
        1e-4
    ));
    assert!(close(p[1]["elapsedHours"].as_f64().unwrap(), 6.0067, 1e-9));
    assert!(close(
        e.figures["fittedHalfLifeHours"].as_f64().unwrap(),
        6.0067,
        1e-9
    ));
    assert!(close(
        e.figures["halfLifeDeviationPercent"].as_f64().unwrap(),
        0.0,
        1e-6
    ));
    assert_eq!(e.conclusion, Satisfactory);
    // δ = 0.3: e^(0.2) − 1 = +22.1403 % > 10 %; ends e^(−0.1) − 1 = −9.5163 %.
    let e = evaluate(
        TestKind::Linearity,
        &tol(TestKind::Linearity),
        Some(&tc99m(0.3)),
    )
    .unwrap();
    assert!(close(
        e.figures["maxDeviationPercent"].as_f64().unwrap(),
        22.1403,
        1e-4
    ));
    assert!(close(
        e.figures["points"][0]["deviationPercent"].as_f64().unwrap(),
        -9.5163,
        1e-4
    ));
    assert_eq!(e.conclusion, Unsatisfactory);
}

#[test]
fn linearity_with_the_wrong_nuclide_passes_with_remarks() {
    // The same perfect Tc-99m curve declared as F-18 (109.77 min = 1.8295 h): the fitted 6.0067 h
    // is (6.0067 − 1.8295) / 1.8295 = +228.3 % off.
    let mut m = tc99m(0.0);
    m["nuclide"] = json!("F-18");
    let e = evaluate(TestKind::Linearity, &tol(TestKind::Linearity), Some(&m)).unwrap();
    assert!(close(
        e.figures["halfLifeDeviationPercent"].as_f64().unwrap(),
        228.33,
        0.01
    ));
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
    assert_eq!(e.figures["remarks"].as_array().unwrap().len(), 1);
}

#[test]
fn geometry_worked_example() {
    // Reference 100: 97 → −3 % (ok); 93 → −7 % (remarks, factor 100 / 93 = 1.07527);
    // 88 → −12 % (fails).
    let m = json!({
        "unit": "MBq", "nuclide": "Tc-99m",
        "reference": {"label": "frasco 10 mL", "reading": 100},
        "geometries": [{"label": "seringa 1 mL", "reading": 97}, {"label": "seringa 3 mL", "reading": 93},
                       {"label": "seringa 5 mL", "reading": 88}]
    });
    let e = evaluate(TestKind::Geometry, &tol(TestKind::Geometry), Some(&m)).unwrap();
    let g = e.figures["geometries"].as_array().unwrap();
    assert!(close(
        g[0]["deviationPercent"].as_f64().unwrap(),
        -3.0,
        1e-9
    ));
    assert_eq!(g[0]["correctionFactor"], Value::Null);
    assert_eq!(g[0]["conclusion"], "Satisfatório");
    assert!(close(
        g[1]["correctionFactor"].as_f64().unwrap(),
        1.07527,
        1e-5
    ));
    assert_eq!(g[1]["conclusion"], "Satisfatório com observações");
    assert_eq!(g[2]["correctionFactor"], Value::Null);
    assert_eq!(e.conclusion, Unsatisfactory);
    // Without the 5 mL syringe the verdict is the 3 mL one's.
    let mut m = m;
    m["geometries"].as_array_mut().unwrap().pop();
    let e = evaluate(TestKind::Geometry, &tol(TestKind::Geometry), Some(&m)).unwrap();
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
}

#[test]
fn reproducibility_worked_example() {
    // Reference 10.0 µSv/h; readings 11.2, 11.4, 11.6: mean 34.2 / 3 = 11.4 → +14 % (10–20 %:
    // remarks); spread (11.6 − 11.4) / 11.4 = 1.7544 %.
    let m = json!({"referenceReading": 10.0, "readings": [11.2, 11.4, 11.6]});
    let e = evaluate(
        TestKind::Reproducibility,
        &tol(TestKind::Reproducibility),
        Some(&m),
    )
    .unwrap();
    assert!(close(e.figures["mean"].as_f64().unwrap(), 11.4, 1e-9));
    assert!(close(
        e.figures["deviationPercent"].as_f64().unwrap(),
        14.0,
        1e-9
    ));
    assert!(close(
        e.figures["maxSpreadPercent"].as_f64().unwrap(),
        1.7544,
        1e-4
    ));
    assert_eq!(e.figures["unit"], "µSv/h");
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
}

#[test]
fn recorded_values_against_their_limits() {
    let catalogue = catalogue();
    let uniformity = catalogue
        .iter()
        .find(|e| e.name == "Uniformidade intrínseca")
        .unwrap();
    // 3.2 % ≤ 4 (ok), 3.5 % between 3 and 4 (remarks).
    let e = evaluate(
        TestKind::Recorded,
        &uniformity.tolerances,
        Some(&json!({"values": {"integralUfov": 3.2, "differentialUfov": "3,5"}})),
    )
    .unwrap();
    assert_eq!(e.figures["values"][0]["conclusion"], "Satisfatório");
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
    // A negative centre-of-rotation offset is judged by its magnitude: |−1.2| > 1 fails.
    let cor = catalogue
        .iter()
        .find(|e| e.name == "Centro de rotação")
        .unwrap();
    let e = evaluate(
        TestKind::Recorded,
        &cor.tolerances,
        Some(&json!({"values": {"offsetPixels": -1.2}})),
    )
    .unwrap();
    assert_eq!(e.conclusion, Unsatisfactory);
    let errors = evaluate(
        TestKind::Recorded,
        &uniformity.tolerances,
        Some(&json!({"values": {"integralUfov": "x", "other": 1}})),
    )
    .unwrap_err();
    assert_eq!(
        codes(&errors),
        [
            ("measurements.values.other", FieldCode::InvalidValue),
            ("measurements.values.integralUfov", FieldCode::InvalidValue),
            ("measurements.values.differentialUfov", FieldCode::Required),
        ]
    );
}

#[test]
fn figures_display_without_float_noise() {
    assert_eq!(display_value(&json!(205.0)), "205");
    assert_eq!(display_value(&json!(11.351351351)), "11.3514");
    assert_eq!(display_value(&json!(-0.5)), "-0.5");
    assert_eq!(display_value(&json!([1.0, 2.25])), "1, 2.25");
    assert_eq!(display_value(&Value::Null), "");
}

#[test]
fn judge_boundaries() {
    let l = Limits {
        warn: Some(5.0),
        limit: 10.0,
    };
    assert_eq!(judge(5.0, l), Satisfactory);
    assert_eq!(judge(-5.0001, l), SatisfactoryWithRemarks);
    assert_eq!(
        judge(deviation_percent(11.0, 10.0), l),
        SatisfactoryWithRemarks
    ); // 10 % on the limit
    assert_eq!(judge(10.001, l), Unsatisfactory);
    assert_eq!(judge(f64::NAN, l), Unsatisfactory);
    assert_eq!(worst([]), Satisfactory);
    assert_eq!(
        worst([SatisfactoryWithRemarks, Satisfactory]),
        SatisfactoryWithRemarks
    );
}

#[test]
fn measurements_are_validated_field_by_field() {
    let errors = evaluate(
        TestKind::Accuracy,
        &tol(TestKind::Accuracy),
        Some(&json!({
            "unit": "Ci", "measuredAt": "yesterday",
            "sources": [{"nuclide": "Xx-1", "certificateActivity": -1, "readings": [1, 0, "a"]}, 5]
        })),
    )
    .unwrap_err();
    assert_eq!(
        codes(&errors),
        [
            ("measurements.unit", FieldCode::InvalidValue),
            ("measurements.measuredAt", FieldCode::InvalidValue),
            ("measurements.sources[0].nuclide", FieldCode::InvalidValue),
            (
                "measurements.sources[0].certificateActivity",
                FieldCode::InvalidValue
            ),
            (
                "measurements.sources[0].certificateDate",
                FieldCode::Required
            ),
            (
                "measurements.sources[0].readings[1]",
                FieldCode::InvalidValue
            ),
            (
                "measurements.sources[0].readings[2]",
                FieldCode::InvalidValue
            ),
            ("measurements.sources[1]", FieldCode::InvalidValue),
        ]
    );
    assert_eq!(
        codes(&evaluate(TestKind::Linearity, &tol(TestKind::Linearity), None).unwrap_err()),
        [("measurements", FieldCode::Required)]
    );
    // A certificate dated after the measurement.
    let mut m = co57(&[1.0]);
    m["sources"][0]["certificateDate"] = json!("2027-01-01");
    assert_eq!(
        codes(&evaluate(TestKind::Accuracy, &tol(TestKind::Accuracy), Some(&m)).unwrap_err()),
        [(
            "measurements.sources[0].certificateDate",
            FieldCode::InvalidValue
        )]
    );
    // Linearity needs three readings at two times at least.
    let same_time = json!({"nuclide": "F-18", "readings": [
        {"at": "2026-11-20T08:00", "activity": 3}, {"at": "2026-11-20T08:00", "activity": 2},
        {"at": "2026-11-20T08:00", "activity": 1}]});
    assert_eq!(
        codes(
            &evaluate(
                TestKind::Linearity,
                &tol(TestKind::Linearity),
                Some(&same_time)
            )
            .unwrap_err()
        ),
        [("measurements.readings", FieldCode::InvalidValue)]
    );
    let two = json!({"nuclide": "F-18", "readings": [{"at": "2026-11-20T08:00", "activity": 3}]});
    assert_eq!(
        codes(&evaluate(TestKind::Linearity, &tol(TestKind::Linearity), Some(&two)).unwrap_err()),
        [("measurements.readings", FieldCode::InvalidValue)]
    );
}

#[test]
fn tolerances_are_read_per_kind() {
    assert_eq!(
        read_tolerances(TestKind::Geometry, None).unwrap(),
        tol(TestKind::Geometry)
    );
    assert_eq!(
        read_tolerances(
            TestKind::Accuracy,
            Some(&json!({"limitPercent": 8, "warnPercent": 5}))
        )
        .unwrap()
        .limits(),
        Limits {
            warn: Some(5.0),
            limit: 8.0
        }
    );
    let errors = read_tolerances(
        TestKind::Accuracy,
        Some(&json!({"limitPercent": 5, "warnPercent": 6})),
    )
    .unwrap_err();
    assert_eq!(
        codes(&errors),
        [("tolerances.warnPercent", FieldCode::InvalidValue)]
    );
    assert_eq!(
        codes(&read_tolerances(TestKind::Recorded, None).unwrap_err()),
        [("tolerances.quantities", FieldCode::Required)]
    );
    let errors = read_tolerances(
        TestKind::Recorded,
        Some(&json!({"quantities": [{"name": "a", "unit": "%", "limit": 0}, {"name": "a", "limit": 2}]})),
    )
    .unwrap_err();
    assert_eq!(
        codes(&errors),
        [
            ("tolerances.quantities[0].limit", FieldCode::InvalidValue),
            ("tolerances.quantities[1].unit", FieldCode::Required),
            ("tolerances.quantities[1].name", FieldCode::InvalidValue),
        ]
    );
}

#[test]
fn times_without_an_offset_are_brasilia() {
    let t = read::parse_time("2026-11-20T08:00").unwrap();
    assert_eq!(t.to_rfc3339(), "2026-11-20T08:00:00-03:00");
    assert_eq!(
        read::parse_time("2026-11-20").unwrap().to_rfc3339(),
        "2026-11-20T00:00:00-03:00"
    );
    assert!(read::parse_time("20/11/2026").is_none());
}

#[test]
fn the_catalogue_has_the_issue_tolerances_and_periods() {
    let c = catalogue();
    let find = |name: &str| c.iter().find(|e| e.name == name).unwrap();
    let check = |name: &str, days: i64, kind: TestKind, limit: f64, warn: Option<f64>| {
        let e = find(name);
        assert_eq!((e.expiration_in_days, e.kind), (days, kind), "{name}");
        assert_eq!(e.tolerances.limits(), Limits { warn, limit }, "{name}");
    };
    check("Constância", 1, TestKind::Constancy, 5.0, None);
    check("Exatidão", 180, TestKind::Accuracy, 10.0, None);
    check("Precisão", 180, TestKind::Precision, 5.0, None);
    check("Linearidade", 180, TestKind::Linearity, 10.0, None);
    check("Geometria", 365, TestKind::Geometry, 10.0, Some(5.0));
    check(
        "Reprodutibilidade",
        30,
        TestKind::Reproducibility,
        20.0,
        Some(10.0),
    );
    assert_eq!(find("Centro de rotação").kind, TestKind::Recorded);
    assert_eq!(find("Uniformidade intrínseca").expiration_in_days, 30);
    // Every seeded tolerance passes the reader that guards edits.
    for e in &c {
        let v = serde_json::to_value(&e.tolerances).unwrap();
        assert_eq!(read_tolerances(e.kind, Some(&v)).unwrap(), e.tolerances);
    }
}

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
        half_life in 0.5f64..100.0,
        mut hours in proptest::collection::vec(0.0f64..48.0, 3..8),
    ) {
        hours.push(hours[0] + 1.0);
        let m = exponential(a0, half_life, &hours);
        let e = evaluate(TestKind::Linearity, &tol(TestKind::Linearity), Some(&m)).unwrap();
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
        prop_assert!((p.worst_deviation_percent - q.worst_deviation_percent).abs() < 1e-9 * (1.0 + p.worst_deviation_percent));
        prop_assert_eq!(p.conclusion, q.conclusion);
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
        prop_assert!(f.worst_deviation_percent < 1e-9);
        prop_assert_eq!(f.conclusion, Satisfactory);
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
