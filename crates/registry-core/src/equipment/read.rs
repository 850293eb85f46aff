//! The payload readers of equipment, equipment types, QC test types and QC test records: each
//! reports every failing field at once, and on edit leaves out what was not sent.

use super::{Conclusion, DAY_FORMS, MAX_EXPIRATION_DAYS, parse_date};
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::payload::{ObjectReader, reference_id};
use crate::qc::read::MIN_YEAR;
use crate::qc::{TestKind, Tolerances};
use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value};

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

/// A reference to another record (`"id"` or `{"_id": "id"}`): required on create; on edit
/// optional but not clearable.
fn reference(r: &ObjectReader, key: &str, create: bool, errs: &mut FieldErrors) -> Option<String> {
    r.parsed_if(
        create,
        key,
        reference_id,
        FieldCode::InvalidValue,
        "must be an _id string or {\"_id\": \"...\"}",
        errs,
    )
}

pub fn read_equipment_type(
    body: &Value,
    create: bool,
) -> Result<EquipmentTypeChanges, Vec<FieldError>> {
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let changes = EquipmentTypeChanges {
        name: r.string_required_if(create, "name", &mut errs),
        description: r.clearable_string("description", &mut errs),
    };
    errs.finish(changes)
}

fn expiration_in_days(r: &ObjectReader, create: bool, errs: &mut FieldErrors) -> Option<i64> {
    const KEY: &str = "expirationInDays";
    let days = match r.required_if(create, KEY, "is required", errs)? {
        // A whole number written as a float (`30.0`, as some encoders write every number) is
        // that number.
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= MAX_EXPIRATION_DAYS as f64)
                .map(|f| f as i64)
        }),
        Value::String(s) if s.trim().bytes().all(|b| b.is_ascii_digit()) => s.trim().parse().ok(),
        _ => None,
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
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let changes = TestTypeChanges {
        name: r.string_required_if(create, "name", &mut errs),
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
                "are taken only by a test type with a kind",
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
    let r = ObjectReader::body(body)?;
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
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let date = r
        .string_required_if(create, "date", &mut errs)
        .and_then(|s| match parse_date(&s) {
            Some(d) if d > today => {
                errs.push(
                    "date",
                    FieldCode::InvalidValue,
                    format!("cannot be in the future (today is {today})"),
                );
                None
            }
            // As the measurement times (qc.md): a year like 0206 is a typing slip.
            Some(d) if d.year() < MIN_YEAR => {
                errs.push(
                    "date",
                    FieldCode::InvalidValue,
                    format!("must be in the year {MIN_YEAR} or later"),
                );
                None
            }
            Some(d) => Some(d),
            None => {
                errs.push("date", FieldCode::InvalidValue, DAY_FORMS);
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
        r.string_required_if(create, "conclusion", &mut errs)
    };
    let conclusion = conclusion.and_then(|s| {
        errs.check(
            Conclusion::parse(&s),
            "conclusion",
            FieldCode::InvalidValue,
            format!("must be one of: {}", Conclusion::allowed()),
        )
    });
    let document_id = match r.get("document") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => errs
            .check(
                reference_id(v),
                "document",
                FieldCode::InvalidValue,
                "must be an _id string or {\"_id\": \"...\"}",
            )
            .map(Some),
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
