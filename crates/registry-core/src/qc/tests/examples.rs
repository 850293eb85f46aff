//! Worked examples: numbers computed by hand from the formulas, written in the comments.

use super::*;

#[test]
fn accuracy_worked_example() {
    // Readings 190, 192, 194: mean 576 / 3 = 192; deviation (192 − 185) / 185 = 3.7838 %.
    let e = eval(TestKind::Accuracy, &co57(&[190.0, 192.0, 194.0]));
    let s = &e.figures["sources"][0];
    assert_close(&s["decayFactor"], 0.5, 1e-9);
    assert_close(&s["expectedActivity"], 185.0, 1e-6);
    assert_close(&s["elapsedDays"], 271.74, 1e-9);
    assert_eq!(s["mean"], 192.0);
    assert_close(&s["deviationPercent"], 3.7838, 1e-4);
    assert_eq!(e.conclusion, Satisfactory);
    // Readings 205, 206, 207: mean 206; (206 − 185) / 185 = 21 / 185 = 11.3514 % > 10 %.
    let e = eval(TestKind::Accuracy, &co57(&[205.0, 206.0, 207.0]));
    assert_close(&e.figures["worstDeviationPercent"], 11.3514, 1e-4);
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
    let e = eval(TestKind::Accuracy, &m);
    assert_close(&e.figures["sources"][0]["deviationPercent"], -10.0, 1e-9);
    assert_close(&e.figures["sources"][1]["deviationPercent"], -4.0, 1e-9);
    assert_eq!(e.conclusion, Satisfactory);
}

#[test]
fn constancy_worked_example() {
    // Expected 185 (above). 176: (176 − 185) / 185 = −9 / 185 = −4.8649 % → within ±5 %.
    // 175: −10 / 185 = −5.4054 % → fails.
    let pass = eval(TestKind::Constancy, &co57(&[176.0]));
    assert_close(
        &pass.figures["sources"][0]["deviationPercent"],
        -4.8649,
        1e-4,
    );
    assert_eq!(pass.conclusion, Satisfactory);
    let fail = eval(TestKind::Constancy, &co57(&[175.0]));
    assert_close(&fail.figures["worstDeviationPercent"], 5.4054, 1e-4);
    assert_eq!(fail.conclusion, Unsatisfactory);
}

#[test]
fn precision_worked_example() {
    // 190, 192, 194: mean 192; deviations −2/192, 0, +2/192 = ∓1.0417 % → ≤ 5 %.
    let m = json!({"sources": [{"nuclide": "Cs-137", "readings": [190, 192, 194]}]});
    let e = eval(TestKind::Precision, &m);
    let d = e.figures["sources"][0]["deviationsPercent"]
        .as_array()
        .unwrap();
    assert_close(&d[0], -1.0417, 1e-4);
    assert_eq!(d[1], 0.0);
    assert_close(&d[2], 1.0417, 1e-4);
    assert_eq!(e.conclusion, Satisfactory);
    // 90, 100, 110: mean 100; max deviation 10 % > 5 %.
    let m = json!({"sources": [{"nuclide": "Cs-137", "readings": [90, 100, 110]}]});
    let e = eval(TestKind::Precision, &m);
    assert_close(&e.figures["worstDeviationPercent"], 10.0, 1e-9);
    assert_eq!(e.conclusion, Unsatisfactory);
}

#[test]
fn readings_beyond_any_instrument_are_refused() {
    // 3 × 1e308 would overflow the sum (an infinite mean, deviations not numbers): such readings
    // are refused, so no verdict is built from arithmetic that overflowed.
    // A subnormal one would overflow a ratio to it.
    let m = json!({"sources": [{"nuclide": "Cs-137", "readings": [1e308, 1e9, "1e9", 2e9, 5e-324, 1e-9]}]});
    let errors = evaluate(TestKind::Precision, &tol(TestKind::Precision), Some(&m)).unwrap_err();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "measurements.sources[0].readings[0]",
            "measurements.sources[0].readings[3]",
            "measurements.sources[0].readings[4]"
        ]
    );
    assert_eq!(
        errors[0].message,
        "must be a positive number from 0.000000001 to 1000000000"
    );
    // Times outside 1900–2100 are refused too.
    let mut late = tc99m(0.0);
    late["readings"][2]["at"] = json!("9999-11-20T20:00:48-03:00");
    let errors = evaluate(TestKind::Linearity, &tol(TestKind::Linearity), Some(&late)).unwrap_err();
    assert_eq!(errors[0].field, "measurements.readings[2].at");
    assert_eq!(
        errors[0].message,
        "must be a time in the years 1900 to 2100"
    );
    assert!(max_abs([1.0, f64::NAN, 2.0]).is_nan());
    assert_eq!(max_abs([-3.0, 2.0]), 3.0);
    assert_eq!(max_abs([]), 0.0);
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
    let e = eval(TestKind::Linearity, &tc99m(0.03));
    let p = e.figures["points"].as_array().unwrap();
    assert_close(&p[0]["deviationPercent"], -0.9950, 1e-4);
    assert_close(&p[1]["deviationPercent"], 2.0201, 1e-4);
    assert_close(&p[2]["deviationPercent"], -0.9950, 1e-4);
    assert_close(&p[1]["elapsedHours"], 6.0067, 1e-9);
    assert_close(&e.figures["fittedHalfLifeHours"], 6.0067, 1e-9);
    assert_close(&e.figures["halfLifeDeviationPercent"], 0.0, 1e-6);
    assert_eq!(e.conclusion, Satisfactory);
    // δ = 0.3: e^(0.2) − 1 = +22.1403 % > 10 %; ends e^(−0.1) − 1 = −9.5163 %.
    let e = eval(TestKind::Linearity, &tc99m(0.3));
    assert_close(&e.figures["maxDeviationPercent"], 22.1403, 1e-4);
    assert_close(&e.figures["points"][0]["deviationPercent"], -9.5163, 1e-4);
    assert_eq!(e.conclusion, Unsatisfactory);
}

#[test]
fn linearity_with_the_wrong_nuclide_passes_with_remarks() {
    // The same perfect Tc-99m curve declared as F-18 (109.77 min = 1.8295 h): the fitted 6.0067 h
    // is (6.0067 − 1.8295) / 1.8295 = +228.3 % off.
    let mut m = tc99m(0.0);
    m["nuclide"] = json!("F-18");
    let e = eval(TestKind::Linearity, &m);
    assert_close(&e.figures["halfLifeDeviationPercent"], 228.33, 0.01);
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
    assert_eq!(e.figures["remarks"].as_array().unwrap().len(), 1);
    // In Portuguese, as the verdicts and the report they are printed in.
    let remark = e.figures["remarks"][0].as_str().unwrap();
    assert!(
        remark.starts_with("a meia-vida ajustada difere "),
        "{remark}"
    );
    // With the decimal comma of Portuguese.
    assert!(remark.contains("+228,3"), "{remark}");
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
    let e = eval(TestKind::Geometry, &m);
    let g = e.figures["geometries"].as_array().unwrap();
    assert_close(&g[0]["deviationPercent"], -3.0, 1e-9);
    assert_eq!(g[0]["correctionFactor"], Value::Null);
    assert_eq!(g[0]["conclusion"], "Satisfatório");
    assert_close(&g[1]["correctionFactor"], 1.07527, 1e-5);
    assert_eq!(g[1]["conclusion"], "Satisfatório com observações");
    assert_eq!(g[2]["correctionFactor"], Value::Null);
    assert_eq!(e.conclusion, Unsatisfactory);
    // Without the 5 mL syringe the verdict is the 3 mL one's.
    let mut m = m;
    m["geometries"].as_array_mut().unwrap().pop();
    let e = eval(TestKind::Geometry, &m);
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
}

#[test]
fn reproducibility_worked_example() {
    // Reference 10.0 µSv/h; readings 11.2, 11.4, 11.6: mean 34.2 / 3 = 11.4 → +14 % (10–20 %:
    // remarks); spread (11.6 − 11.4) / 11.4 = 1.7544 %.
    let m = json!({"referenceReading": 10.0, "readings": [11.2, 11.4, 11.6]});
    let e = eval(TestKind::Reproducibility, &m);
    assert_close(&e.figures["mean"], 11.4, 1e-9);
    assert_close(&e.figures["deviationPercent"], 14.0, 1e-9);
    assert_close(&e.figures["maxSpreadPercent"], 1.7544, 1e-4);
    assert_eq!(e.figures["unit"], "µSv/h");
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
}

#[test]
fn recorded_values_against_their_limits() {
    let catalogue = catalogue();
    // The recorded `values` judged against the limits of the catalogue's test type `name`.
    let recorded = |name: &str, values: Value| {
        let entry = catalogue.iter().find(|e| e.name == name).unwrap();
        evaluate(
            TestKind::Recorded,
            &entry.tolerances,
            Some(&json!({ "values": values })),
        )
    };
    const UNIFORMITY: &str = "Uniformidade intrínseca";
    // 3.2 % ≤ 4 (ok), 3.5 % between 3 and 4 (remarks).
    let e = recorded(
        UNIFORMITY,
        json!({"integralUfov": 3.2, "differentialUfov": "3,5"}),
    )
    .unwrap();
    assert_eq!(e.figures["values"][0]["conclusion"], "Satisfatório");
    assert_eq!(e.conclusion, SatisfactoryWithRemarks);
    // A negative centre-of-rotation offset is judged by its magnitude: |−1.2| > 1 fails.
    let e = recorded("Centro de rotação", json!({"offsetPixels": -1.2})).unwrap();
    assert_eq!(e.conclusion, Unsatisfactory);
    assert_codes(
        recorded(UNIFORMITY, json!({"integralUfov": "x", "other": 1})),
        &[
            ("measurements.values.other", FieldCode::InvalidValue),
            ("measurements.values.integralUfov", FieldCode::InvalidValue),
            ("measurements.values.differentialUfov", FieldCode::Required),
        ],
    );
    // A uniformity is a percentage from 0: a negative one is refused (0 is a perfect reading),
    // where the signed offset above was judged.
    assert_codes(
        recorded(
            UNIFORMITY,
            json!({"integralUfov": -0.5, "differentialUfov": 0}),
        ),
        &[("measurements.values.integralUfov", FieldCode::InvalidValue)],
    );
}

/// A test type's quantity may set its `minimum`: a number below its limit.
#[test]
fn a_quantitys_minimum_is_a_number_below_its_limit() {
    let read = |minimum: Value| {
        read_tolerances(
            TestKind::Recorded,
            Some(
                &json!({"quantities": [{"name": "snr", "unit": "dB", "limit": 10, "minimum": minimum}]}),
            ),
        )
    };
    assert_eq!(read(json!(-3)).unwrap().quantities[0].minimum, Some(-3.0));
    assert_eq!(read(Value::Null).unwrap().quantities[0].minimum, None);
    for bad in [json!("0"), json!(10), json!(12.5)] {
        let errs = read(bad.clone()).unwrap_err();
        assert_eq!(errs[0].field, "tolerances.quantities[0].minimum", "{bad}");
    }
}

#[test]
fn figures_display_without_float_noise() {
    assert_eq!(display_value(&json!(205.0)), "205");
    assert_eq!(display_value(&json!(11.351351351)), "11.3514");
    assert_eq!(display_value(&json!(-0.5)), "-0.5");
    assert_eq!(display_value(&json!([1.0, 2.25])), "1, 2.25");
    assert_eq!(display_value(&Value::Null), "");
    // Float noise within a verdict's margin stays hidden…
    assert_eq!(display_value(&json!(0.30000000000000004)), "0.3");
    assert_eq!(display_value(&json!(10.000000000000009)), "10");
    assert_eq!(display_value(&json!(-1e-12)), "0");
    // …but a figure is never shown as a rounder number than it is (beside a limit of 10 %).
    assert_eq!(display_value(&json!(10.000010000000003)), "10.00001");
    assert_eq!(display_value(&json!(9.99999)), "9.99999");
    assert_eq!(display_value(&json!(10.0000001)), "10.0000001");
    assert_eq!(display_value(&json!(2.50003)), "2.50003");
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
