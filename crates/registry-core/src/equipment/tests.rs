//! Unit tests of the due rule, the date forms and the payload readers.

use super::*;
use crate::error::{FieldCode, assert_codes, codes};
use serde_json::json;

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

#[test]
fn due_state_boundaries() {
    let today = day("2026-11-21");
    assert_eq!(due_state(None, 30, today), DueState::NeverDone);
    // Due yesterday → overdue; due today → still due_soon.
    assert_eq!(
        due_state(Some(day("2026-10-21")), 30, today),
        DueState::Overdue
    );
    assert_eq!(
        due_state(Some(day("2026-10-22")), 30, today),
        DueState::DueSoon
    );
    // Exactly 14 days ahead is due_soon; 15 is ok.
    assert_eq!(
        due_state(Some(day("2026-11-05")), 30, today),
        DueState::DueSoon
    );
    assert_eq!(due_state(Some(day("2026-11-06")), 30, today), DueState::Ok);
    assert_eq!(due_state(Some(today), 1, today), DueState::DueSoon);
    assert_eq!(due_state(Some(today), 365, today), DueState::Ok);
}

#[test]
fn next_due_crosses_months_and_leap_years() {
    assert_eq!(next_due(day("2028-02-28"), 1), day("2028-02-29"));
    assert_eq!(next_due(day("2026-12-31"), 1), day("2027-01-01"));
    assert_eq!(next_due(day("2026-01-31"), 365), day("2027-01-31"));
}

#[test]
fn state_strings_round_trip() {
    for s in DueState::ALL {
        assert_eq!(DueState::parse(s.as_str()), Some(*s));
        assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
    }
    assert_eq!(DueState::parse("late"), None);
}

#[test]
fn conclusion_has_the_report_strings() {
    assert_eq!(
        Conclusion::ALL
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>(),
        [
            "Satisfatório",
            "Satisfatório com observações",
            "Insatisfatório"
        ]
    );
    assert_eq!(
        serde_json::to_value(Conclusion::SatisfactoryWithRemarks).unwrap(),
        json!("Satisfatório com observações")
    );
}

#[test]
fn brasilia_day_and_date_forms() {
    let late_evening = DateTime::parse_from_rfc3339("2026-11-22T02:30:00Z")
        .unwrap()
        .with_timezone(&Utc);
    assert_eq!(local_date(late_evening), day("2026-11-21"));
    assert_eq!(parse_date("2026-11-21"), Some(day("2026-11-21")));
    assert_eq!(
        parse_date("2026-11-21T10:00:00-03:00"),
        Some(day("2026-11-21"))
    );
    assert_eq!(parse_date("21/11/2026"), None);
    assert_eq!(parse_date("2026-2-1"), None);
}

#[test]
fn test_type_reports_every_field() {
    let errors =
        read_test_type(&json!({"expirationInDays": 0, "typeOfEquipment": 5}), true).unwrap_err();
    assert_eq!(
        codes(&errors),
        [
            ("name", FieldCode::Required),
            ("typeOfEquipment", FieldCode::InvalidValue),
            ("expirationInDays", FieldCode::InvalidValue),
        ]
    );
    let ok = read_test_type(
        &json!({"name": "Linearidade", "typeOfEquipment": {"_id": "t1"}, "expirationInDays": "90"}),
        true,
    )
    .unwrap();
    assert_eq!(ok.expiration_in_days, Some(90));
    assert_eq!(ok.equipment_type_id.as_deref(), Some("t1"));
    assert_eq!(
        read_test_type(&json!({}), false).unwrap(),
        TestTypeChanges::default()
    );
    assert!(read_test_type(&json!({"expirationInDays": 1.5}), false).is_err());
    // A whole number written as a float is that number.
    let whole = read_test_type(&json!({"expirationInDays": 30.0}), false).unwrap();
    assert_eq!(whole.expiration_in_days, Some(30));
    assert!(read_test_type(&json!({"expirationInDays": 1e300}), false).is_err());
}

#[test]
fn equipment_requires_facility_and_type_and_an_object_of_attributes() {
    assert_codes(
        read_equipment(&json!({"attributes": [1], "active": "yes"}), true),
        &[
            ("attributes", FieldCode::InvalidValue),
            ("facility", FieldCode::Required),
            ("typeOfEquipment", FieldCode::Required),
            ("active", FieldCode::InvalidValue),
        ],
    );
    let ok = read_equipment(
        &json!({"facility": "f", "typeOfEquipment": "t", "model": " X ", "attributes": {"detectors": 2}}),
        true,
    )
    .unwrap();
    assert_eq!(ok.model, Some(Some("X".into())));
    assert_eq!(ok.attributes.unwrap()["detectors"], 2);
    let edit = read_equipment(&json!({"model": null}), false).unwrap();
    assert_eq!(edit.model, Some(None));
    assert_eq!(edit.attributes, None);
}

#[test]
fn qc_test_reports_every_field() {
    let today = day("2026-11-21");
    assert_codes(
        read_qc_test(
            &json!({"date": "2026-11-22", "conclusion": "Bom", "performedBy": 7}),
            true,
            today,
        ),
        &[
            ("date", FieldCode::InvalidValue),
            ("conclusion", FieldCode::InvalidValue),
            ("equipment", FieldCode::Required),
            ("typeOfTest", FieldCode::Required),
            ("performedBy", FieldCode::InvalidValue),
        ],
    );
    let ok = read_qc_test(
        &json!({"equipment": "e", "typeOfTest": "t", "date": "2026-11-21", "conclusion": "Insatisfatório",
                "measurements": {"Cs-137": 0.98}}),
        true,
        today,
    )
    .unwrap();
    assert_eq!(ok.date, Some(today));
    assert_eq!(ok.performed_by, None);
    assert_eq!(ok.conclusion, Some(Conclusion::Unsatisfactory));
    assert_eq!(ok.measurements, Some(Some(json!({"Cs-137": 0.98}))));
    for slip in ["0001-01-01", "1899-12-31"] {
        assert_codes(
            read_qc_test(&json!({"date": slip}), false, today),
            &[("date", FieldCode::InvalidValue)],
        );
    }
    assert!(read_qc_test(&json!({"date": "1900-01-01"}), false, today).is_ok());
    let cleared =
        read_qc_test(&json!({"notes": null, "measurements": null}), false, today).unwrap();
    assert_eq!(cleared.notes, Some(None));
    assert_eq!(cleared.measurements, Some(None));
}
