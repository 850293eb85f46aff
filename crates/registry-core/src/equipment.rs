//! Equipment, equipment types, QC test types and QC test records: their API types, payload readers
//! that report every failing field at once, and the rule that says when a QC test falls due.

use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::payload::{ObjectReader, reference_id};
use crate::qc::{TestKind, Tolerances};
use crate::values::spec_enum;
use chrono::{DateTime, Days, FixedOffset, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use utoipa::ToSchema;

spec_enum!(
    /// The conclusion of a QC test, as written in reports.
    Conclusion {
        Satisfactory => "Satisfatório",
        SatisfactoryWithRemarks => "Satisfatório com observações",
        Unsatisfactory => "Insatisfatório",
    }
);

/// Where a QC test stands on a given day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DueState {
    /// Done, and not due within the next `DUE_SOON_DAYS` days.
    Ok,
    /// Falls due today or within the next `DUE_SOON_DAYS` days.
    DueSoon,
    /// Its due date has passed.
    Overdue,
    /// Never recorded on this equipment.
    NeverDone,
}

impl DueState {
    pub const ALL: &'static [DueState] = &[
        DueState::Ok,
        DueState::DueSoon,
        DueState::Overdue,
        DueState::NeverDone,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DueState::Ok => "ok",
            DueState::DueSoon => "due_soon",
            DueState::Overdue => "overdue",
            DueState::NeverDone => "never_done",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|d| d.as_str() == s)
    }
}

/// A test due within this many days is `due_soon` (product.md §4).
pub const DUE_SOON_DAYS: u64 = 14;

/// The longest period a test type may have: ten years.
pub const MAX_EXPIRATION_DAYS: i64 = 3650;

/// The day a test done on `last` falls due again.
pub fn next_due(last: NaiveDate, expiration_in_days: i64) -> NaiveDate {
    last + Days::new(expiration_in_days.clamp(0, MAX_EXPIRATION_DAYS) as u64)
}

/// The last day that still counts as `due_soon` when seen on `today`.
pub fn due_soon_limit(today: NaiveDate) -> NaiveDate {
    today + Days::new(DUE_SOON_DAYS)
}

/// The due-state rule. A test is due *on* its next due date (still `due_soon` that day) and
/// `overdue` from the day after; the database queries apply the same comparisons.
pub fn due_state(last: Option<NaiveDate>, expiration_in_days: i64, today: NaiveDate) -> DueState {
    let Some(last) = last else {
        return DueState::NeverDone;
    };
    let due = next_due(last, expiration_in_days);
    if due < today {
        DueState::Overdue
    } else if due <= due_soon_limit(today) {
        DueState::DueSoon
    } else {
        DueState::Ok
    }
}

/// The calendar day in Brasília (UTC−03:00; Brazil has kept no daylight saving time since 2019),
/// the day in which the registry's facilities record and plan their tests.
pub fn local_date(now: DateTime<Utc>) -> NaiveDate {
    let brasilia = FixedOffset::west_opt(3 * 3600).expect("valid offset");
    now.with_timezone(&brasilia).date_naive()
}

/// A calendar date (of a QC test, a document): `YYYY-MM-DD` with both padded, or an RFC 3339
/// timestamp (clients send both) taken as its day in Brasília.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .filter(|_| s.len() == 10)
        .or_else(|| {
            DateTime::parse_from_rfc3339(s)
                .ok()
                .map(|t| local_date(t.with_timezone(&Utc)))
        })
}

/// A reference to another record, with its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Reference {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipmentType {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A kind of QC test on one equipment type, and how often it falls due.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestType {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub type_of_equipment: Reference,
    /// Days after a test until the next one is due.
    pub expiration_in_days: i64,
    pub description: Option<String>,
    /// How the registry computes its records (docs/qc.md); absent: free `measurements` and a
    /// conclusion chosen by whoever records the test.
    #[serde(default)]
    pub kind: Option<TestKind>,
    /// The limits the computed verdict is judged by; present exactly when `kind` is.
    #[serde(default)]
    pub tolerances: Option<Tolerances>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Equipment {
    #[serde(rename = "_id")]
    pub id: String,
    pub facility: Reference,
    pub type_of_equipment: Reference,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub patrimonial_number: Option<String>,
    pub localization: Option<String>,
    /// Type-specific data (number of detectors, collimators, probe kind…), a free JSON object.
    pub attributes: Value,
    /// False while the equipment is out of service; it then leaves the due lists.
    pub active: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// One QC test done on one equipment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QcTest {
    #[serde(rename = "_id")]
    pub id: String,
    /// The equipment's `_id`.
    pub equipment: String,
    pub facility: Reference,
    pub type_of_test: Reference,
    /// The day the test was done (`YYYY-MM-DD`).
    pub date: String,
    pub performed_by: Reference,
    pub conclusion: Conclusion,
    pub measurements: Option<Value>,
    /// What the registry computed from `measurements` for a test type with a `kind`: every
    /// intermediate figure and the verdict (docs/qc.md); `null` for other test types.
    #[serde(default)]
    pub figures: Option<Value>,
    pub notes: Option<String>,
    /// The `_id` of the report document, when there is one.
    pub document: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// The equipment a due entry is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipmentSummary {
    #[serde(rename = "_id")]
    pub id: String,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub localization: Option<String>,
}

/// One test type on one equipment: when it was last done, when it falls due, and its state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DueTest {
    pub equipment: EquipmentSummary,
    pub facility: Reference,
    pub type_of_equipment: Reference,
    pub type_of_test: Reference,
    pub expiration_in_days: i64,
    pub last_date: Option<String>,
    pub next_due: Option<String>,
    pub state: DueState,
    /// The conclusion of the latest test; `null` when never done.
    #[serde(default)]
    pub last_conclusion: Option<Conclusion>,
}

/// `{name, description}` of an equipment type; on edit both are optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EquipmentTypeChanges {
    pub name: Option<String>,
    pub description: Option<Option<String>>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestTypeChanges {
    pub name: Option<String>,
    pub equipment_type_id: Option<String>,
    pub expiration_in_days: Option<i64>,
    pub description: Option<Option<String>>,
    /// `Some(None)` makes the test type a free one again.
    pub kind: Option<Option<TestKind>>,
    /// Raw: read against the kind the test type ends up with (`settle_tolerances`).
    pub tolerances: Option<Value>,
}

/// Equipment fields; `None` leaves a field unchanged, `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EquipmentChanges {
    pub facility_id: Option<String>,
    pub equipment_type_id: Option<String>,
    pub manufacturer: Option<Option<String>>,
    pub model: Option<Option<String>>,
    pub serial_number: Option<Option<String>>,
    pub patrimonial_number: Option<Option<String>>,
    pub localization: Option<Option<String>>,
    pub attributes: Option<Map<String, Value>>,
    pub active: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct QcTestChanges {
    pub equipment_id: Option<String>,
    pub test_type_id: Option<String>,
    pub date: Option<NaiveDate>,
    pub performed_by: Option<String>,
    pub conclusion: Option<Conclusion>,
    pub measurements: Option<Option<Value>>,
    pub notes: Option<Option<String>>,
    pub document_id: Option<Option<String>>,
}

fn object(body: &Value) -> Result<&Map<String, Value>, Vec<FieldError>> {
    body.as_object().ok_or_else(|| {
        vec![FieldError::new(
            "",
            FieldCode::InvalidValue,
            "the body must be a JSON object",
        )]
    })
}

/// A required string on create; on edit optional but not clearable.
fn name_field(r: &ObjectReader, key: &str, create: bool, errs: &mut FieldErrors) -> Option<String> {
    if create {
        r.required_string(key, errs)
    } else {
        r.string_if_present(key, errs)
    }
}

/// A reference to another record (`"id"` or `{"_id": "id"}`): required on create; on edit
/// optional but not clearable.
fn reference(r: &ObjectReader, key: &str, create: bool, errs: &mut FieldErrors) -> Option<String> {
    match r.get(key) {
        None if !create => None,
        None | Some(Value::Null) => {
            errs.push(r.path(key), FieldCode::Required, "is required");
            None
        }
        Some(v) => reference_id(v).or_else(|| {
            errs.push(
                r.path(key),
                FieldCode::InvalidValue,
                "must be an _id string or {\"_id\": \"...\"}",
            );
            None
        }),
    }
}

pub fn read_equipment_type(
    body: &Value,
    create: bool,
) -> Result<EquipmentTypeChanges, Vec<FieldError>> {
    let r = ObjectReader::new(object(body)?, "");
    let mut errs = FieldErrors::default();
    let changes = EquipmentTypeChanges {
        name: name_field(&r, "name", create, &mut errs),
        description: r.clearable_string("description", &mut errs),
    };
    errs.finish(changes)
}

fn expiration_in_days(r: &ObjectReader, create: bool, errs: &mut FieldErrors) -> Option<i64> {
    const KEY: &str = "expirationInDays";
    let days = match r.get(KEY) {
        None if !create => return None,
        None | Some(Value::Null) => {
            errs.push(r.path(KEY), FieldCode::Required, "is required");
            return None;
        }
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) if s.trim().bytes().all(|b| b.is_ascii_digit()) => {
            s.trim().parse().ok()
        }
        Some(_) => None,
    };
    let valid = days.filter(|d| (1..=MAX_EXPIRATION_DAYS).contains(d));
    if valid.is_none() {
        errs.push(
            r.path(KEY),
            FieldCode::InvalidValue,
            format!("must be a whole number of days from 1 to {MAX_EXPIRATION_DAYS}"),
        );
    }
    valid
}

pub fn read_test_type(body: &Value, create: bool) -> Result<TestTypeChanges, Vec<FieldError>> {
    let r = ObjectReader::new(object(body)?, "");
    let mut errs = FieldErrors::default();
    let changes = TestTypeChanges {
        name: name_field(&r, "name", create, &mut errs),
        equipment_type_id: reference(&r, "typeOfEquipment", create, &mut errs),
        expiration_in_days: expiration_in_days(&r, create, &mut errs),
        description: r.clearable_string("description", &mut errs),
        kind: match r.get("kind") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(s)) if TestKind::parse(s.trim()).is_some() => {
                Some(TestKind::parse(s.trim()))
            }
            Some(_) => {
                errs.push(
                    "kind",
                    FieldCode::InvalidValue,
                    format!("must be null or one of: {}", TestKind::allowed()),
                );
                None
            }
        },
        tolerances: r.get("tolerances").cloned(),
    };
    errs.finish(changes)
}

/// The tolerances a test type ends up with: none without a kind; the ones sent, read against the
/// kind; when none were sent, the stored ones if the kind did not change, else the kind's defaults.
pub fn settle_tolerances(
    kind: Option<TestKind>,
    previous_kind: Option<TestKind>,
    previous: Option<&Tolerances>,
    sent: Option<&Value>,
) -> Result<Option<Tolerances>, Vec<FieldError>> {
    let Some(kind) = kind else {
        return match sent {
            Some(v) if !v.is_null() => Err(vec![FieldError::new(
                "tolerances",
                FieldCode::InvalidValue,
                "only a test type with a kind has tolerances",
            )]),
            _ => Ok(None),
        };
    };
    match (sent, previous) {
        (None, Some(p)) if previous_kind == Some(kind) => Ok(Some(p.clone())),
        _ => crate::qc::read_tolerances(kind, sent).map(Some),
    }
}

pub fn read_equipment(body: &Value, create: bool) -> Result<EquipmentChanges, Vec<FieldError>> {
    let r = ObjectReader::new(object(body)?, "");
    let mut errs = FieldErrors::default();
    let attributes = match r.get("attributes") {
        None => create.then(Map::new),
        Some(Value::Null) => Some(Map::new()),
        Some(Value::Object(o)) => Some(o.clone()),
        Some(_) => {
            errs.push(
                "attributes",
                FieldCode::InvalidValue,
                "must be a JSON object of type-specific data",
            );
            None
        }
    };
    let changes = EquipmentChanges {
        facility_id: reference(&r, "facility", create, &mut errs),
        equipment_type_id: reference(&r, "typeOfEquipment", create, &mut errs),
        manufacturer: r.clearable_string("manufacturer", &mut errs),
        model: r.clearable_string("model", &mut errs),
        serial_number: r.clearable_string("serialNumber", &mut errs),
        patrimonial_number: r.clearable_string("patrimonialNumber", &mut errs),
        localization: r.clearable_string("localization", &mut errs),
        attributes,
        active: r.bool_if_present("active", &mut errs),
    };
    errs.finish(changes)
}

/// Reads a QC test record. `performedBy` may be left out (the server fills in the caller);
/// a test cannot be dated after `today`.
pub fn read_qc_test(
    body: &Value,
    create: bool,
    today: NaiveDate,
) -> Result<QcTestChanges, Vec<FieldError>> {
    read_qc_test_of(body, create, today, false)
}

/// Reads a QC test record of a test type that is `computed` (has a kind) or not. The conclusion
/// of a computed test is the registry's: sending one is refused, naming the field.
pub fn read_qc_test_of(
    body: &Value,
    create: bool,
    today: NaiveDate,
    computed: bool,
) -> Result<QcTestChanges, Vec<FieldError>> {
    let r = ObjectReader::new(object(body)?, "");
    let mut errs = FieldErrors::default();
    let date = name_field(&r, "date", create, &mut errs).and_then(|s| match parse_date(&s) {
        Some(d) if d > today => {
            errs.push(
                "date",
                FieldCode::InvalidValue,
                format!("cannot be in the future (today is {today})"),
            );
            None
        }
        Some(d) => Some(d),
        None => {
            errs.push(
                "date",
                FieldCode::InvalidValue,
                "must be a date in the form YYYY-MM-DD",
            );
            None
        }
    });
    let conclusion = if computed {
        if r.get("conclusion").is_some_and(|v| !v.is_null()) {
            errs.push(
                "conclusion",
                FieldCode::InvalidValue,
                "is computed from the measurements for this test type: leave it out",
            );
        }
        None
    } else {
        name_field(&r, "conclusion", create, &mut errs)
    };
    let conclusion = conclusion.and_then(|s| match Conclusion::parse(&s) {
        Some(c) => Some(c),
        None => {
            errs.push(
                "conclusion",
                FieldCode::InvalidValue,
                format!("must be one of: {}", Conclusion::allowed()),
            );
            None
        }
    });
    let document_id = match r.get("document") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => match reference_id(v) {
            Some(id) => Some(Some(id)),
            None => {
                errs.push(
                    "document",
                    FieldCode::InvalidValue,
                    "must be an _id string or {\"_id\": \"...\"}",
                );
                None
            }
        },
    };
    let changes = QcTestChanges {
        equipment_id: reference(&r, "equipment", create, &mut errs),
        test_type_id: reference(&r, "typeOfTest", create, &mut errs),
        date,
        performed_by: reference(&r, "performedBy", false, &mut errs),
        conclusion,
        measurements: r
            .get("measurements")
            .map(|v| (!v.is_null()).then(|| v.clone())),
        notes: r.clearable_string("notes", &mut errs),
        document_id,
    };
    errs.finish(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn codes(errors: &[FieldError]) -> Vec<(&str, FieldCode)> {
        errors.iter().map(|e| (e.field.as_str(), e.code)).collect()
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
        let errors = read_test_type(&json!({"expirationInDays": 0, "typeOfEquipment": 5}), true)
            .unwrap_err();
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
    }

    #[test]
    fn equipment_requires_facility_and_type_and_an_object_of_attributes() {
        let errors =
            read_equipment(&json!({"attributes": [1], "active": "yes"}), true).unwrap_err();
        assert_eq!(
            codes(&errors),
            [
                ("attributes", FieldCode::InvalidValue),
                ("facility", FieldCode::Required),
                ("typeOfEquipment", FieldCode::Required),
                ("active", FieldCode::InvalidValue),
            ]
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
        let errors = read_qc_test(
            &json!({"date": "2026-11-22", "conclusion": "Bom", "performedBy": 7}),
            true,
            today,
        )
        .unwrap_err();
        assert_eq!(
            codes(&errors),
            [
                ("date", FieldCode::InvalidValue),
                ("conclusion", FieldCode::InvalidValue),
                ("equipment", FieldCode::Required),
                ("typeOfTest", FieldCode::Required),
                ("performedBy", FieldCode::InvalidValue),
            ]
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
        let cleared =
            read_qc_test(&json!({"notes": null, "measurements": null}), false, today).unwrap();
        assert_eq!(cleared.notes, Some(None));
        assert_eq!(cleared.measurements, Some(None));
    }
}
