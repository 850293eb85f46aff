//! Reading measurements, tolerances and times; the seeded catalogue against its readers.

use super::*;

#[test]
fn measurements_are_validated_field_by_field() {
    assert_codes(
        evaluate(
            TestKind::Accuracy,
            &tol(TestKind::Accuracy),
            Some(&json!({
                "unit": "Ci", "measuredAt": "yesterday",
                "sources": [{"nuclide": "Xx-1", "certificateActivity": -1, "readings": [1, 0, "a"]}, 5]
            })),
        ),
        &[
            ("measurements.unit", FieldCode::InvalidValue),
            ("measurements.measuredAt", FieldCode::InvalidValue),
            ("measurements.sources[0].nuclide", FieldCode::InvalidValue),
            (
                "measurements.sources[0].certificateActivity",
                FieldCode::InvalidValue,
            ),
            (
                "measurements.sources[0].certificateDate",
                FieldCode::Required,
            ),
            (
                "measurements.sources[0].readings[1]",
                FieldCode::InvalidValue,
            ),
            (
                "measurements.sources[0].readings[2]",
                FieldCode::InvalidValue,
            ),
            ("measurements.sources[1]", FieldCode::InvalidValue),
        ],
    );
    assert_codes(
        evaluate(TestKind::Linearity, &tol(TestKind::Linearity), None),
        &[("measurements", FieldCode::Required)],
    );
    // A certificate dated after the measurement.
    let mut m = co57(&[1.0]);
    m["sources"][0]["certificateDate"] = json!("2027-01-01");
    assert_codes(
        evaluate(TestKind::Accuracy, &tol(TestKind::Accuracy), Some(&m)),
        &[(
            "measurements.sources[0].certificateDate",
            FieldCode::InvalidValue,
        )],
    );
    // A certificate more than 20 half-lives before the measurement (Co-57: 14.9 years): the
    // source has decayed away; 19 half-lives (14.1 years) are still read.
    for (date, refused) in [("2011-11-01", true), ("2012-09-01", false)] {
        let mut m = co57(&[1.0]);
        m["sources"][0]["certificateDate"] = json!(date);
        let answer = evaluate(TestKind::Accuracy, &tol(TestKind::Accuracy), Some(&m));
        if refused {
            assert_codes(
                answer,
                &[(
                    "measurements.sources[0].certificateDate",
                    FieldCode::InvalidValue,
                )],
            );
        } else {
            assert!(answer.is_ok(), "{date}");
        }
    }
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
    assert_codes(
        evaluate(TestKind::Linearity, &tol(TestKind::Linearity), Some(&two)),
        &[("measurements.readings", FieldCode::InvalidValue)],
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
    assert_codes(
        read_tolerances(
            TestKind::Accuracy,
            Some(&json!({"limitPercent": 5, "warnPercent": 6})),
        ),
        &[("tolerances.warnPercent", FieldCode::InvalidValue)],
    );
    assert_codes(
        read_tolerances(TestKind::Recorded, None),
        &[("tolerances.quantities", FieldCode::Required)],
    );
    assert_codes(
        read_tolerances(
            TestKind::Recorded,
            Some(
                &json!({"quantities": [{"name": "a", "unit": "%", "limit": 0}, {"name": "a", "limit": 2}]}),
            ),
        ),
        &[
            ("tolerances.quantities[0].limit", FieldCode::InvalidValue),
            ("tolerances.quantities[1].unit", FieldCode::Required),
            ("tolerances.quantities[1].name", FieldCode::InvalidValue),
        ],
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

#[test]
fn a_test_is_dated_by_its_last_reading() {
    use crate::qc::read::{measured_after, measured_on};
    let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    // Linearity over three days: the last reading's day (in Brasília: 01:00Z is the day before).
    let linearity = json!({"unit": "mCi", "nuclide": "Tc-99m", "readings": [
        {"at": "2026-11-18T08:00", "activity": 100}, {"at": "2026-11-21T01:00:00Z", "activity": 5},
        {"at": "2026-11-19T08:00", "activity": 10}]});
    assert_eq!(measured_on(Some(&linearity)), Some(day("2026-11-20")));
    let late = measured_after(Some(&linearity), day("2026-11-19")).unwrap();
    assert_eq!(late.field, "measurements.readings[1].at");
    assert!(measured_after(Some(&linearity), day("2026-11-20")).is_none());
    let accuracy = json!({"measuredAt": "2026-09-29T14:45:36-03:00"});
    assert_eq!(measured_on(Some(&accuracy)), Some(day("2026-09-29")));
    assert!(measured_on(Some(&json!({"readings": [1, 2]}))).is_none());
}
