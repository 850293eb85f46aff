//! Uploading a document and editing it (fields, status, a new file version).

use super::{SIGNERS, UploadForm, invalid_transition, load, load_state, record};
use crate::access::visible;
use crate::auth::{Caller, Staff};
use crate::db::{Conn, new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::JSON_BODY_LIMIT;
use crate::extract::JsonBody;
use crate::objects::{StagedFile, sniff_document, stage};
use crate::routes::audited;
use crate::routes::shared::{Forbidden, InvalidTransition, NotFound};
use crate::state::AppState;
use crate::store::documents::{self as store, DocumentState, MetadataChanges};
use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::TryStreamExt;
use registry_core::audit::Action;
use registry_core::document::{self, Document, DocumentDraft, DocumentStatus, FileInfo, Move};
use registry_core::payload::{unflagged_reference, without_failing};
use registry_core::{ErrorBody, FieldCode, FieldError, FieldErrors};
use serde_json::{Map, Value};

fn multipart_error(e: axum::extract::multipart::MultipartError) -> ApiError {
    ApiError::BadRequest(format!("Malformed multipart body: {}.", e.body_text()))
}

/// An upload's text fields and its staged file (with the client's file name).
struct Upload {
    fields: Map<String, Value>,
    file: Option<(StagedFile, String)>,
}

/// Reads a multipart body: the `file` part is streamed to a temporary file; other parts are
/// fields (their total bounded like a JSON body), a `data` part holding a JSON object of fields.
async fn read_upload(state: &AppState, mut multipart: Multipart) -> Result<Upload> {
    let mut fields = Map::new();
    let mut file = None;
    let mut text_bytes = 0usize;
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "file" {
            if file.is_some() {
                return Err(ApiError::second_file());
            }
            let file_name = document::file_name(field.file_name().unwrap_or_default())
                .map_err(|why| ApiError::field("file", FieldCode::InvalidValue, why))?;
            let staged = stage(
                state.objects.staging_dir(),
                field.map_err(multipart_error),
                state.config.documents.upload_limit,
            )
            .await?;
            file = Some((staged, file_name));
            continue;
        }
        let bytes = field.bytes().await.map_err(multipart_error)?;
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
            ApiError::field(name.as_str(), FieldCode::InvalidValue, "must be UTF-8 text")
        })?;
        text_bytes += text.len();
        if text_bytes > JSON_BODY_LIMIT {
            return Err(ApiError::PayloadTooLarge(
                "The form fields are larger than allowed.".into(),
            ));
        }
        let given: Vec<(String, Value)> = if name == "data" {
            let parsed = crate::extract::parse_json(text.as_bytes())
                .map_err(|why| ApiError::BadRequest(format!("The `data` part: {why}")))?;
            match parsed {
                Value::Object(o) => o.into_iter().collect(),
                _ => {
                    return Err(ApiError::BadRequest(
                        "The `data` part must be a JSON object of the document's fields.".into(),
                    ));
                }
            }
        } else {
            vec![(name, Value::String(registry_core::json::compose(text)))]
        };
        // A field sent twice (two parts, or a part and `data`) would leave one of them unsaid.
        for (key, value) in given {
            if fields.contains_key(&key) {
                return Err(ApiError::field(
                    &key,
                    FieldCode::InvalidValue,
                    "is given twice: send each field once (as a part or in `data`)",
                ));
            }
            fields.insert(key, value);
        }
    }
    let errors = registry_core::payload::check_object_limits(&fields);
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    Ok(Upload { fields, file })
}

/// The type of a staged file by its magic bytes, or why it is refused (field `file`). Checked
/// with the other fields, so that one answer lists every failing field (product.md §1).
fn file_type(staged: &StagedFile) -> Result<&'static str, FieldError> {
    if staged.size == 0 {
        return Err(FieldError::new("file", FieldCode::Required, "is empty"));
    }
    sniff_document(&staged.head).ok_or_else(|| {
        FieldError::new(
            "file",
            FieldCode::InvalidValue,
            "must be a PDF or an image (PNG, JPEG or WebP)",
        )
    })
}

/// A staged file of `content_type` (its [`file_type`]) put in the object store.
async fn store_file(
    state: &AppState,
    staged: &StagedFile,
    name: String,
    content_type: &str,
) -> Result<FileInfo> {
    state.objects.put_staged(staged).await?;
    Ok(FileInfo {
        name,
        content_type: content_type.to_owned(),
        size: staged.size as i64,
        sha256: staged.sha256.clone(),
    })
}

/// Checks that new equipment and test references belong to the facility, and the test to the
/// document's (possibly unchanged) equipment.
async fn check_references(
    conn: &mut Conn,
    facility_id: &str,
    equipment: Option<&str>,
    test: Option<&str>,
    effective_equipment: Option<&str>,
    errs: &mut FieldErrors,
) -> Result<()> {
    if let Some(eq) = equipment
        && !store::equipment_in_facility(conn, eq, facility_id).await?
    {
        errs.push(
            "equipment",
            FieldCode::InvalidValue,
            "is not live equipment of the document's facility",
        );
    }
    if let Some(test) = test {
        match store::test_equipment(conn, test, facility_id).await? {
            None => errs.push(
                "test",
                FieldCode::InvalidValue,
                "is not a live QC test of the document's facility",
            ),
            Some(of) if effective_equipment.is_some_and(|eq| eq != of) => errs.push(
                "test",
                FieldCode::InvalidValue,
                "is a QC test of other equipment",
            ),
            Some(_) => {}
        }
    }
    Ok(())
}

#[utoipa::path(
    post, path = "/api/document/register", tag = "documents",
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "Stored; starts `Falta assinar` (or `Em andamento` with \
            `draft`)", body = Document),
        Forbidden, (status = 413, description = "File over the upload limit", body = ErrorBody)
    )
)]
pub(super) async fn register(
    State(state): State<AppState>,
    Staff(caller): Staff,
    request: Request,
) -> Result<Response> {
    let multipart = Multipart::from_request(request, &state)
        .await
        .map_err(|_| {
            ApiError::BadRequest(
                "Expected a multipart/form-data body with a `file` part and the document's fields."
                    .into(),
            )
        })?;
    let upload = read_upload(&state, multipart).await?;
    let mut errs = FieldErrors::default();
    let draft = match document::read_document(&upload.fields, true) {
        Ok(d) => Some(d),
        Err(e) => {
            errs.extend(e);
            None
        }
    };
    let content_type = match &upload.file {
        Some((staged, _)) => file_type(staged).map_err(|e| errs.extend([e])).ok(),
        None => {
            errs.push(
                "file",
                FieldCode::Required,
                "is required: a PDF or an image",
            );
            None
        }
    };
    // The references are checked even when other fields failed, so that one answer lists every
    // failing field.
    let (facility_id, equipment, test) = match &draft {
        Some(d) => (
            d.facility.clone(),
            d.equipment.clone().flatten(),
            d.test.clone().flatten(),
        ),
        None => {
            let named = |field| unflagged_reference(&errs, field, upload.fields.get(field));
            (named("facility"), named("equipment"), named("test"))
        }
    };
    if let Some(facility_id) = &facility_id {
        let mut conn = state.db.read().await?;
        if visible(&mut conn, &caller, facility_id).await.is_err() {
            errs.push(
                "facility",
                FieldCode::InvalidValue,
                "is not a live facility",
            );
        } else {
            check_references(
                &mut conn,
                facility_id,
                equipment.as_deref(),
                test.as_deref(),
                equipment.as_deref(),
                &mut errs,
            )
            .await?;
        }
    }
    let (Some(draft), Some((staged, file_name)), Some(content_type), true) =
        (draft, upload.file, content_type, errs.is_empty())
    else {
        return Err(ApiError::Validation(errs.into_vec()));
    };
    let DocumentDraft {
        name: Some(name),
        facility: Some(facility_id),
        date: Some(date),
        validity: Some(validity),
        ..
    } = &draft
    else {
        return Err(anyhow::anyhow!("a create draft lacks a required field").into());
    };
    let file = store_file(&state, &staged, file_name, content_type).await?;
    let id = new_id();
    let at = now();
    let status = if draft.draft {
        DocumentStatus::InProgress
    } else {
        DocumentStatus::AwaitingSignature
    };
    let mut tx = state.db.begin().await?;
    // Checked above on another connection; held now, so an archive that committed meanwhile
    // is seen and a later one waits for this upload.
    if crate::store::facilities::hold_live(&mut tx, facility_id)
        .await?
        .is_none()
    {
        return Err(ApiError::field(
            "facility",
            FieldCode::InvalidValue,
            "is not a live facility",
        ));
    }
    store::insert(
        &mut tx,
        &store::NewDocument {
            id: &id,
            name,
            facility_id,
            equipment_id: equipment.as_deref(),
            test_id: test.as_deref(),
            date,
            validity,
            conclusion: draft.conclusion.clone().flatten().as_deref(),
            status,
            by: &caller.id,
            at: &at,
        },
    )
    .await?;
    store::add_file(&mut tx, &id, 1, &file, &caller.id, &at).await?;
    let doc = load(&mut tx, &caller, &id).await?;
    record(&mut tx, &id, Action::Create, &caller, None, Some(&doc)).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(doc)).into_response())
}

/// An edit's body: JSON, or multipart when it brings a new file.
async fn edit_input(state: &AppState, request: Request) -> Result<Upload> {
    let is_multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"));
    if is_multipart {
        let multipart = Multipart::from_request(request, state)
            .await
            .map_err(|_| ApiError::BadRequest("Malformed multipart body.".into()))?;
        return read_upload(state, multipart).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, JSON_BODY_LIMIT)
        .await
        .map_err(|_| {
            ApiError::PayloadTooLarge("The request body is larger than allowed.".into())
        })?;
    let body = JsonBody::from_request(Request::from_parts(parts, Body::from(bytes)), state).await?;
    let fields = body.object()?;
    Ok(Upload { fields, file: None })
}

#[utoipa::path(
    post, path = "/api/document/edit", tag = "documents",
    description = "JSON `{_id, ...fields, status?}`, or multipart with a new `file` (kept as a new \
        version). `status` may move `Em andamento`/`Corrigir` → `Falta assinar`, and (signers) \
        `Falta assinar` → `Corrigir`. Signed and released documents cannot be edited.",
    request_body(content(
        (Object = "application/json"),
        (Object = "multipart/form-data")
    )),
    responses(
        (status = 200, body = Document), Forbidden, NotFound, InvalidTransition,
        (status = 413, body = ErrorBody)
    )
)]
pub(super) async fn edit(
    State(state): State<AppState>,
    Staff(caller): Staff,
    request: Request,
) -> Result<Response> {
    let upload = edit_input(&state, request).await?;
    // Roles before existence and fields (docs/documents.md, decisions.md's check order): only
    // signers send a document back, whichever document the id names, or none.
    let status = upload.fields.get("status").and_then(Value::as_str);
    if status.and_then(DocumentStatus::parse_value_or_slug) == Some(DocumentStatus::ToCorrect) {
        caller.require_any(SIGNERS)?;
    }
    let file_check = upload.file.as_ref().map(|(staged, _)| file_type(staged));
    let read = match (
        document::read_document(&upload.fields, false),
        file_check.as_ref().and_then(|c| c.as_ref().err()),
    ) {
        (Ok(draft), None) => Ok(draft),
        (Ok(_), Some(refused)) => Err(vec![refused.clone()]),
        (Err(mut errors), refused) => {
            errors.extend(refused.cloned());
            Err(errors)
        }
    };
    let id = JsonBody::id_along(&Value::Object(upload.fields.clone()), || {
        read.as_ref().err().cloned().unwrap_or_default()
    })?;
    let draft = match read {
        Ok(draft) => draft,
        Err(errors) => {
            return Err(with_edit_errors(&state, &caller, &id, &upload.fields, errors).await);
        }
    };
    // Checked before the file goes to the store, so a refused edit leaves nothing behind.
    {
        let mut conn = state.db.read().await?;
        let current = load_state(&mut conn, &id).await?;
        check_edit(&mut conn, &caller, &current, &draft).await?;
    }
    let file = match (&upload.file, file_check) {
        (Some((staged, name)), Some(Ok(content_type))) => {
            Some(store_file(&state, staged, name.clone(), content_type).await?)
        }
        _ => None,
    };
    let mut tx = audited::locked(&state, "documents", &id).await?;
    // Checked again on the locked record: another edit may have changed its status, dates or
    // equipment meanwhile (a date and a validity each fine alone, say, but not together).
    let fresh = load_state(&mut tx, &id).await?;
    check_edit(&mut tx, &caller, &fresh, &draft).await?;
    let before = load(&mut tx, &caller, &id).await?;
    // The current file sent again (the same bytes under the same name) is no new version.
    let file = file.filter(|f| f.sha256 != before.file.sha256 || f.name != before.file.name);
    let at = now();
    let changes = MetadataChanges {
        name: draft.name.clone(),
        equipment_id: draft.equipment.clone(),
        test_id: draft.test.clone(),
        date: draft.date.clone(),
        validity: draft.validity.clone(),
        conclusion: draft.conclusion.clone(),
        status: draft.status.filter(|s| *s != fresh.status),
    };
    if file.is_none() && changes.leave(&before) {
        // Nothing to change: nothing written, as for every other resource.
        return Ok(Json(before).into_response());
    }
    store::update_metadata(&mut tx, &id, &changes, &at).await?;
    if let Some(file) = &file {
        store::add_file(&mut tx, &id, fresh.file_version + 1, file, &caller.id, &at).await?;
    }
    let after = load(&mut tx, &caller, &id).await?;
    let action = match (changes.status, file.is_some()) {
        (Some(s), _) => Action::Status(s),
        (None, true) => Action::ReplaceFile,
        (None, false) => Action::Edit,
    };
    record(&mut tx, &id, action, &caller, Some(&before), Some(&after)).await?;
    tx.commit().await?;
    Ok(Json(after).into_response())
}

/// The 422 of an edit whose fields failed (`errors`), with the errors the fields that did read
/// give against the stored document (a facility that may not change, equipment or a test that
/// is not the facility's, a validity before the date): every failing field at once.
async fn with_edit_errors(
    state: &AppState,
    caller: &Caller,
    id: &str,
    fields: &Map<String, Value>,
    errors: Vec<FieldError>,
) -> ApiError {
    let rest = without_failing(fields, &errors);
    let Ok(partial) = document::read_document(&rest, false) else {
        return ApiError::Validation(errors);
    };
    let found = async {
        let mut conn = state.db.read().await?;
        match store::state(&mut conn, id).await? {
            Some(current) => check_edit(&mut conn, caller, &current, &partial).await,
            None => Ok(()),
        }
    }
    .await;
    match found {
        // The document's own state (frozen, a status this caller may not set) answers once the
        // fields are right; an outage answers at once.
        Err(e @ (ApiError::Validation(_) | ApiError::Internal(_) | ApiError::Unavailable(_))) => {
            ApiError::with_reference_errors(errors.into(), Err::<(), _>(e))
        }
        _ => ApiError::Validation(errors),
    }
}

/// Whether this edit may apply to the document as it is now.
async fn check_edit(
    conn: &mut Conn,
    caller: &Caller,
    current: &DocumentState,
    draft: &DocumentDraft,
) -> Result<()> {
    if current.status.is_frozen() {
        return Err(ApiError::conflict(
            "invalid_transition",
            format!(
                "Invalid transition: a document in \"{}\" can no longer be edited or given a new file.",
                current.status
            ),
        ));
    }
    if let Some(to) = draft.status.filter(|s| *s != current.status) {
        let m = Move::towards(to).filter(|m| matches!(m, Move::Submit | Move::SendBack));
        let Some(m) = m else {
            let how = match to {
                DocumentStatus::Signed => "a document is signed with POST /document/sign",
                DocumentStatus::Released => "a document is released with POST /document/liberate",
                _ => "no document goes back to it",
            };
            return Err(ApiError::conflict(
                "invalid_transition",
                format!("Invalid transition: an edit cannot set the status \"{to}\": {how}."),
            ));
        };
        if m == Move::SendBack {
            caller.require_any(SIGNERS)?;
        }
        document::transition(current.status, m).map_err(invalid_transition)?;
    }
    let mut errs = FieldErrors::default();
    if draft
        .facility
        .as_ref()
        .is_some_and(|f| *f != current.facility_id)
    {
        errs.push(
            "facility",
            FieldCode::InvalidValue,
            "cannot change: upload the document to the other facility instead",
        );
    }
    if draft.date.is_some() || draft.validity.is_some() {
        let date = draft.date.as_deref().unwrap_or(&current.date);
        let validity = draft.validity.as_deref().unwrap_or(&current.validity);
        if !document::validity_after_date(date, validity) {
            errs.push("validity", FieldCode::InvalidValue, "must be after date");
        }
    }
    let effective = match &draft.equipment {
        Some(e) => e.clone(),
        None => current.equipment_id.clone(),
    };
    // New equipment with the stored QC test kept: the test must be of that equipment too.
    if let (Some(Some(eq)), None, Some(test)) = (&draft.equipment, &draft.test, &current.test_id)
        && store::test_equipment(conn, test, &current.facility_id)
            .await?
            .is_some_and(|of| of != *eq)
    {
        errs.push(
            "equipment",
            FieldCode::InvalidValue,
            "is not the equipment of the document's QC test: send `test` too (or `test: null`)",
        );
    }
    check_references(
        conn,
        &current.facility_id,
        draft.equipment.clone().flatten().as_deref(),
        draft.test.clone().flatten().as_deref(),
        effective.as_deref(),
        &mut errs,
    )
    .await?;
    errs.finish(()).map_err(ApiError::Validation)
}
