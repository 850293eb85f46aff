//! Editing a document: its fields, its status, or a new file version.

use super::upload::{Upload, check_references, file_type, read_upload, store_file};
use super::{SIGNERS, invalid_transition, load, load_state, record};
use crate::auth::{Caller, Staff};
use crate::db::{Conn, now};
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::routes::audited;
use crate::routes::shared::{Forbidden, InvalidTransition, NotFound};
use crate::state::AppState;
use crate::store::documents::{self as store, DocumentState, MetadataChanges};
use axum::Json;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use registry_core::audit::Action;
use registry_core::document::{self, Document, DocumentDraft, DocumentStatus, Move};
use registry_core::payload::without_failing;
use registry_core::{ErrorBody, FieldCode, FieldError, FieldErrors};
use serde_json::{Map, Value};

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
    // Read up to a JSON body's limit, though the route takes an upload's.
    let fields = JsonBody::from_request(request, state).await?.object()?;
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
        if let Err(e) = document::validity_after_date(date, validity) {
            errs.push(e.field, e.code, e.message);
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
