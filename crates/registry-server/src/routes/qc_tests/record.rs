//! Recording QC tests: create, edit and delete, with the equipment, test type and performer checked
//! together.

use super::today;
use crate::auth::Staff;
use crate::db::Conn;
use crate::db::{new_id, now};
use crate::error::{ApiError, OrNotFound, Result, no_such};
use crate::extract::JsonBody;
use crate::extract::Path;
use crate::routes::shared::Forbidden;
use crate::routes::{archive, audited};
use crate::state::AppState;
use crate::store::qc_tests as store;
use crate::store::{documents, equipment, equipment_types, facilities, users};
use axum::Json;
use axum::extract::State;
use registry_core::api::{IdInput, Message};
use registry_core::equipment::{
    Conclusion, QcTest, QcTestChanges, Reference, TestType, parse_date, read_qc_test_of,
};
use registry_core::facility::{UserState, check_linked_user};
use registry_core::inputs::QcTestInput;
use registry_core::payload::{reference_id, unflagged_reference};
use registry_core::qc::evaluate;
use registry_core::qc::read::measured_after;
use registry_core::{ErrorBody, FieldCode, FieldError, FieldErrors};
use serde_json::Value;

/// The equipment, test type and (when the payload names them) performer and report document of a
/// record, checked together so that every failing field is reported: the equipment and test type
/// must exist, the test type must belong to the equipment's type, a named performer must be an
/// active user and a named document one of the equipment's facility.
async fn resolve(
    conn: &mut Conn,
    equipment_id: &str,
    test_type_id: &str,
    performer_id: Option<&str>,
    document_id: Option<&str>,
) -> Result<(
    registry_core::equipment::Equipment,
    TestType,
    Option<Reference>,
)> {
    let mut errors = Vec::new();
    let mut equipment = equipment::get(conn, equipment_id).await?;
    // Its facility held live until the commit (an archive waits), as the test is written under it.
    if let Some(e) = &equipment
        && facilities::hold_live(conn, &e.facility.id).await?.is_none()
    {
        equipment = None;
    }
    if equipment.is_none() {
        errors.push(no_such("equipment", "equipment", equipment_id));
    }
    let test_type = equipment_types::get_test_type(conn, test_type_id).await?;
    match (&test_type, &equipment) {
        (None, _) => errors.push(no_such("typeOfTest", "test type", test_type_id)),
        (Some(t), Some(e)) if t.type_of_equipment.id != e.type_of_equipment.id => {
            errors.push(FieldError::new(
                "typeOfTest",
                FieldCode::InvalidValue,
                format!(
                    "\"{}\" is a test of {}, not of this equipment's type ({})",
                    t.name, t.type_of_equipment.name, e.type_of_equipment.name
                ),
            ))
        }
        _ => {}
    }
    if let Some(document_id) = document_id {
        match (documents::state(conn, document_id).await?, &equipment) {
            (None, _) => errors.push(no_such("document", "document", document_id)),
            (Some(d), Some(e)) if d.facility_id != e.facility.id => errors.push(FieldError::new(
                "document",
                FieldCode::InvalidValue,
                format!(
                    "is a document of {}, not of this equipment's facility ({})",
                    d.facility_name, e.facility.name
                ),
            )),
            _ => {}
        }
    }
    let mut performer = None;
    if let Some(performer_id) = performer_id {
        let user = users::by_id(conn, performer_id).await?;
        let state = user.as_ref().map(|u| UserState::of(u.profile.active));
        match check_linked_user("performedBy", performer_id, state) {
            Some(error) => errors.push(error),
            None => {
                performer = user.map(|u| Reference {
                    id: u.profile.id,
                    name: u.profile.name,
                })
            }
        }
    }
    match (equipment, test_type) {
        (Some(e), Some(t)) if errors.is_empty() => Ok((e, t, performer)),
        _ => Err(ApiError::Validation(errors)),
    }
}

/// Locks, before anything is read, what the write of a test on these (equipment, test type)
/// pairs depends on: each equipment (`FOR UPDATE`, in `_id` order: one writer of its QC
/// summary at a time, and no change of its type meanwhile) and each test type (`FOR KEY SHARE`:
/// no change of its kind or equipment type meanwhile, while other tests of it are recorded).
/// On PostgreSQL a test recorded while its equipment's type changed could otherwise end up on
/// equipment of another type, and two tests of one pair collide on its summary row.
async fn lock_pairs(conn: &mut Conn, pairs: &[(&str, &str)]) -> Result<()> {
    let sorted = |ids: Vec<&str>| {
        let mut ids: Vec<String> = ids
            .into_iter()
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .collect();
        ids.sort();
        ids.dedup();
        ids
    };
    for id in sorted(pairs.iter().map(|p| p.0).collect()) {
        crate::store::lock_row(conn, "equipment", &id).await?;
    }
    for id in sorted(pairs.iter().map(|p| p.1).collect()) {
        crate::store::share_row(conn, "test_types", &id).await?;
    }
    Ok(())
}

/// Applies the payload's changes to `record` (a blank record on create), checking references.
async fn apply(conn: &mut Conn, record: &mut QcTest, mut changes: QcTestChanges) -> Result<()> {
    let equipment_id = changes
        .equipment_id
        .take()
        .unwrap_or_else(|| record.equipment.clone());
    let test_type_id = changes
        .test_type_id
        .take()
        .unwrap_or_else(|| record.type_of_test.id.clone());
    lock_pairs(
        conn,
        &[
            (&record.equipment, &record.type_of_test.id),
            (&equipment_id, &test_type_id),
        ],
    )
    .await?;
    // The performer and the document are checked only when the payload names new ones: on
    // create the performer defaults to the (active) caller, and a record sent back as it was
    // read is not refused for a performer deactivated or a document deleted since.
    let performer = changes
        .performed_by
        .as_deref()
        .filter(|p| *p != record.performed_by.id);
    let document = changes
        .document_id
        .clone()
        .flatten()
        .filter(|d| record.document.as_ref() != Some(d));
    let resolved = resolve(
        conn,
        &equipment_id,
        &test_type_id,
        performer,
        document.as_deref(),
    )
    .await;
    let (equipment, test_type, performed_by) = match resolved {
        Ok(resolved) => resolved,
        // Every failing field at once: readings dated after the test's day too.
        Err(ApiError::Validation(mut errors)) => {
            errors.extend(late_readings(conn, &test_type_id, record, &changes).await?);
            return Err(ApiError::Validation(errors));
        }
        Err(e) => return Err(e),
    };
    changes
        .apply_to(record, equipment, test_type, performed_by)
        .map_err(ApiError::Validation)
}

/// The error of readings dated after the test's day (the changes' readings and day, else the
/// record's) when the test type `test_type_id` computes: for an answer that lists other failing
/// fields, which end the request before the readings are judged.
async fn late_readings(
    conn: &mut Conn,
    test_type_id: &str,
    record: &QcTest,
    changes: &QcTestChanges,
) -> Result<Option<FieldError>> {
    let test_type = equipment_types::get_test_type(conn, test_type_id).await?;
    if test_type.is_none_or(|t| t.kind.is_none()) {
        return Ok(None);
    }
    let day = changes.date.or_else(|| parse_date(&record.date));
    let readings = match &changes.measurements {
        Some(given) => given.as_ref(),
        None => record.measurements.as_ref(),
    };
    Ok(day.and_then(|day| measured_after(readings, day)))
}

/// The answer to a payload its reader refused (`errors`): with the errors of the references it
/// names, or on an edit keeps from `record`, so that one answer lists every failing field.
/// The readings of a computed test type (`computed`) are checked too, when the payload brings
/// them or creates the test.
async fn refused(
    conn: &mut Conn,
    value: &Value,
    record: Option<&QcTest>,
    computed: Option<&TestType>,
    mut errors: Vec<FieldError>,
) -> ApiError {
    let given = value.get("measurements");
    let readings_read = !errors.iter().any(|e| e.field.starts_with("measurements"));
    if let Some(TestType {
        kind: Some(kind),
        tolerances: Some(tolerances),
        ..
    }) = computed
        && readings_read
    {
        // Readings dated after the test's day (the payload's date when it reads, else the
        // record's; the payload's readings, else the record's).
        let day = match value.get("date").and_then(Value::as_str) {
            Some(date) if !errors.iter().any(|e| e.field == "date") => parse_date(date),
            _ => record.and_then(|r| parse_date(&r.date)),
        };
        let readings = given.or_else(|| record.and_then(|r| r.measurements.as_ref()));
        errors.extend(day.and_then(|day| measured_after(readings, day)));
        if (record.is_none() || given.is_some())
            && let Err(more) = evaluate(*kind, tolerances, given)
        {
            errors.extend(more);
        }
    }
    let errors = FieldErrors::from(errors);
    let named = |field| unflagged_reference(&errors, field, value.get(field));
    let equipment = named("equipment").or_else(|| record.map(|r| r.equipment.clone()));
    let test_type = named("typeOfTest").or_else(|| record.map(|r| r.type_of_test.id.clone()));
    // As `apply` does: references the record already holds are not checked again.
    let performer = named("performedBy").filter(|p| record.is_none_or(|r| *p != r.performed_by.id));
    let document =
        named("document").filter(|d| record.is_none_or(|r| r.document.as_ref() != Some(d)));
    // An id the payload lacks was reported by the reader; "" names no record and its error is
    // dropped as a repeat.
    let found = resolve(
        conn,
        equipment.as_deref().unwrap_or_default(),
        test_type.as_deref().unwrap_or_default(),
        performer.as_deref(),
        document.as_deref(),
    )
    .await;
    ApiError::with_reference_errors(errors, found)
}

/// The test type a payload names (or, when it names none, `default`) when it is computed: its
/// records then carry readings and no conclusion.
async fn computed_type(
    conn: &mut Conn,
    body: &Value,
    default: Option<&str>,
) -> Result<Option<TestType>> {
    let id = body
        .get("typeOfTest")
        .and_then(reference_id)
        .or_else(|| default.map(str::to_owned));
    let Some(id) = id else {
        return Ok(None);
    };
    // Held before it is read (as `lock_pairs` holds it later): its kind cannot change before the
    // test is written the way it decides.
    crate::store::share_row(conn, "test_types", &id).await?;
    Ok(equipment_types::get_test_type(conn, &id)
        .await?
        .filter(|t| t.kind.is_some()))
}

#[utoipa::path(
    post, path = "/api/test", tag = "QC tests",
    request_body(content = QcTestInput, description = "For a \
        test type with a `kind`, `measurements` holds the readings (shape per kind: docs/qc.md), \
        the registry stores the computed `figures` and sets `conclusion` itself: a `conclusion` \
        sent is refused (422 `conclusion` `invalid_value`)."),
    responses(
        (status = 201, headers(("Location" = String, description = "The created record's path")), body = QcTest), Forbidden,
        (status = 422, description = "Field errors, e.g. a test type of another equipment type",
            body = ErrorBody)
    )
)]
pub(super) async fn create(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<audited::Created<QcTest>> {
    let value = body.value()?;
    let mut tx = state.db.begin().await?;
    let computed = computed_type(&mut tx, &value, None).await?;
    let changes = match read_qc_test_of(&value, true, today(), computed.is_some()) {
        Ok(changes) => changes,
        Err(errors) => return Err(refused(&mut tx, &value, None, computed.as_ref(), errors).await),
    };
    let at = now();
    let blank = Reference {
        id: String::new(),
        name: String::new(),
    };
    let mut record = QcTest {
        id: new_id(),
        equipment: String::new(),
        facility: blank.clone(),
        type_of_test: blank,
        date: String::new(),
        performed_by: caller.reference(),
        conclusion: Conclusion::Satisfactory,
        measurements: None,
        figures: None,
        notes: None,
        document: None,
        created_at: at.clone(),
        updated_at: at,
    };
    apply(&mut tx, &mut record, changes).await?;
    store::save(&mut tx, &record, true).await?;
    let id = record.id.clone();
    audited::created(tx, &caller, ("qc_test", "/api/test"), &id, record).await
}

#[utoipa::path(
    put, path = "/api/test/{id}", tag = "QC tests",
    params(("id" = String, Path)),
    request_body(content = QcTestInput, description = "Fields present replace the stored ones (same \
        rules as create)"),
    responses((status = 200, body = QcTest), Forbidden)
)]
pub(super) async fn edit(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<QcTest>> {
    let value = body.value_for(&id, |v| {
        read_qc_test_of(v, false, today(), false)
            .err()
            .unwrap_or_default()
    })?;
    let mut tx = audited::locked(&state, "qc_tests", &id).await?;
    let before = store::get(&mut tx, &id).await?.or_not_found("test")?;
    let computed = computed_type(&mut tx, &value, Some(&before.type_of_test.id)).await?;
    let changes = match read_qc_test_of(&value, false, today(), computed.is_some()) {
        Ok(changes) => changes,
        Err(errors) => {
            return Err(refused(&mut tx, &value, Some(&before), computed.as_ref(), errors).await);
        }
    };
    let mut record = before.clone();
    apply(&mut tx, &mut record, changes).await?;
    audited::edited(tx, &caller, "qc_test", &id, &before, record).await
}

#[utoipa::path(
    post, path = "/api/test/{id}", tag = "QC tests",
    params(("id" = String, Path)),
    request_body(content = Option<IdInput>, description = "Optional: no body, or `{_id}` repeating \
        the path's (another `_id` → 422; malformed → 400)"),
    responses(
        (status = 200, description = "Deleted (kept in the database and the audit log)",
            body = Message),
        Forbidden
    )
)]
pub(super) async fn delete(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<Message>> {
    body.nothing_or_for(&id)?;
    let mut tx = audited::locked(&state, "qc_tests", &id).await?;
    let before = store::get(&mut tx, &id).await?.or_not_found("test")?;
    lock_pairs(&mut tx, &[(&before.equipment, &before.type_of_test.id)]).await?;
    store::archive(&mut tx, &id, &now()).await?;
    archive::finish(tx, &caller, "qc_test", &before, id, "Test deleted.").await
}
