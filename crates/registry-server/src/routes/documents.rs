//! Documents (spec §4.5, product.md §5): upload, download, edit with file versions, the status
//! machine (sign, send back, release), soft delete, comments, lists, e-mail schedules and the
//! public signing key.

use crate::access::visible;
use crate::auth::Caller;
use crate::db::Conn;
use crate::db::{new_id, now, timestamp};
use crate::error::{ApiError, Result};
use crate::extract::JSON_BODY_LIMIT;
use crate::extract::{JsonBody, ListParams};
use crate::extract::{Path, Query};
use crate::objects::{StagedFile, sniff_document, stage};
use crate::state::AppState;
use crate::store::audit;
use crate::store::documents::{self as store, DocumentFilter, DocumentState, MetadataChanges};
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use futures::TryStreamExt;
use rand::RngCore;
use registry_core::api::ListEnvelope;
use registry_core::document::{
    self, Document, DocumentDraft, DocumentStatus, FileInfo, Move, SignedClaim, SigningKeyInfo,
};
use registry_core::{ErrorBody, FieldCode, FieldErrors, Role};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Roles that may sign, and send a document back for correction.
const SIGNERS: &[Role] = &[Role::Administrator, Role::Physicist];
/// Roles that may release a signed document.
const RELEASERS: &[Role] = &[Role::Administrator, Role::Admin, Role::Physicist];

pub fn router() -> Router<AppState> {
    // Uploads stream past the JSON limit; their own limit is checked while the file is read.
    Router::new()
        .route(
            "/document/register",
            post(register).layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/document/edit",
            post(edit).layer(DefaultBodyLimit::disable()),
        )
        .route("/document/sign", post(sign))
        .route("/document/liberate", post(liberate))
        .route("/document/exclude", post(exclude))
        .route("/document/scheduleEmail", post(schedule_email))
        .route("/document/{id}/comment", post(comment))
        .route("/document/{id}/file", get(download))
        .route("/document/{id}", get(show))
        .route("/documents", get(list))
        .route("/documents/{status}", get(list_by_status))
        .route("/signing-key", get(signing_key))
}

pub fn openapi() -> utoipa::openapi::OpenApi {
    use utoipa::OpenApi;
    #[derive(utoipa::OpenApi)]
    #[openapi(
        paths(register, edit, sign, liberate, exclude, schedule_email, comment, download, show, list, list_by_status, signing_key),
        components(schemas(Document, ListEnvelope<Document>, SigningKeyInfo, ErrorBody, IdBody, CommentBody, ScheduleBody, UploadForm))
    )]
    struct DocumentsApi;
    DocumentsApi::openapi()
}

/// `{"_id"}` of the document to act on (extra fields are ignored).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct IdBody {
    #[schema(rename = "_id")]
    id: String,
}

#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct CommentBody {
    text: String,
}

#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
struct ScheduleBody {
    #[schema(rename = "_id")]
    id: String,
    /// RFC 3339 time; default now.
    send_at: Option<String>,
    /// Addresses (array or one string); default the facility's active users.
    to: Option<Vec<String>>,
}

/// `multipart/form-data`: a `file` part (PDF, PNG, JPEG or WebP) and the fields as parts or one
/// `data` JSON part.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct UploadForm {
    #[schema(format = Binary)]
    file: String,
    name: String,
    facility: String,
    equipment: Option<String>,
    test: Option<String>,
    /// `YYYY-MM-DD`.
    date: String,
    /// `YYYY-MM-DD`, after `date`.
    validity: String,
    conclusion: Option<String>,
    /// `true` starts the document `Em andamento` instead of `Falta assinar`.
    draft: Option<bool>,
    /// JSON object with the fields above, instead of one part each.
    data: Option<String>,
}

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
            let file_name = field
                .file_name()
                .map(str::to_owned)
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| "document".into());
            let staged = stage(
                state.objects.staging_dir(),
                field.map_err(multipart_error),
                state.config.documents.upload_limit,
            )
            .await?;
            file = Some((staged, file_name));
            continue;
        }
        let text = field.text().await.map_err(multipart_error)?;
        text_bytes += text.len();
        if text_bytes > JSON_BODY_LIMIT {
            return Err(ApiError::PayloadTooLarge(
                "The form fields are larger than allowed.".into(),
            ));
        }
        if name == "data" {
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(o)) => fields.extend(o),
                _ => {
                    return Err(ApiError::BadRequest(
                        "The `data` part must be a JSON object of the document's fields.".into(),
                    ));
                }
            }
        } else {
            fields.insert(name, Value::String(text));
        }
    }
    let errors = registry_core::payload::check_object_limits(&fields);
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    Ok(Upload { fields, file })
}

/// A staged file checked by its magic bytes and put in the object store.
async fn store_file(state: &AppState, staged: &StagedFile, name: String) -> Result<FileInfo> {
    if staged.size == 0 {
        return Err(ApiError::field("file", FieldCode::Required, "is empty"));
    }
    let content_type = sniff_document(&staged.head).ok_or_else(|| {
        ApiError::field(
            "file",
            FieldCode::InvalidValue,
            "must be a PDF or an image (PNG, JPEG or WebP)",
        )
    })?;
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

fn invalid_transition(e: document::InvalidTransition) -> ApiError {
    ApiError::conflict("invalid_transition", format!("Invalid transition: {e}."))
}

async fn record(
    conn: &mut Conn,
    id: &str,
    action: &str,
    caller: &Caller,
    before: Option<&Document>,
    after: Option<&Document>,
) -> Result<()> {
    audit::record_change(
        conn,
        Some(&caller.id),
        "document",
        id,
        action,
        before,
        after,
    )
    .await?;
    Ok(())
}

/// What a caller may read: staff everything, a `Cliente` released documents of their facilities.
fn scope(caller: &Caller) -> DocumentFilter {
    DocumentFilter {
        client: (!caller.is_staff()).then(|| caller.id.clone()),
        ..Default::default()
    }
}

async fn load(conn: &mut Conn, caller: &Caller, id: &str) -> Result<Document> {
    store::view(conn, id, &scope(caller))
        .await?
        .ok_or_else(|| ApiError::not_found("document"))
}

async fn load_state(conn: &mut Conn, id: &str) -> Result<DocumentState> {
    store::state(conn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("document"))
}

#[utoipa::path(
    post, path = "/api/document/register", tag = "documents",
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "Stored; starts `Falta assinar` (or `Em andamento` with `draft`)", body = Document),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 413, description = "File over the upload limit", body = ErrorBody),
        (status = 422, body = ErrorBody)
    )
)]
async fn register(
    State(state): State<AppState>,
    caller: Caller,
    request: Request,
) -> Result<Response> {
    caller.require_staff()?;
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
    if upload.file.is_none() {
        errs.push(
            "file",
            FieldCode::Required,
            "is required: a PDF or an image",
        );
    }
    let (Some(draft), Some((staged, file_name))) = (draft, upload.file) else {
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
        return Err(ApiError::Validation(errs.into_vec()));
    };
    let equipment = draft.equipment.clone().flatten();
    let test = draft.test.clone().flatten();
    {
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
    if !errs.is_empty() {
        return Err(ApiError::Validation(errs.into_vec()));
    }
    let file = store_file(&state, &staged, file_name).await?;
    let id = new_id();
    let at = now();
    let status = if draft.draft {
        DocumentStatus::InProgress
    } else {
        DocumentStatus::AwaitingSignature
    };
    let mut tx = state.db.begin().await?;
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
    record(&mut tx, &id, "uploaded", &caller, None, Some(&doc)).await?;
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
    match body.value()? {
        Value::Object(fields) => Ok(Upload { fields, file: None }),
        _ => Err(ApiError::field(
            "",
            FieldCode::InvalidValue,
            "the body must be a JSON object",
        )),
    }
}

#[utoipa::path(
    post, path = "/api/document/edit", tag = "documents",
    description = "JSON `{_id, ...fields, status?}`, or multipart with a new `file` (kept as a new version). \
        `status` may move `Em andamento`/`Corrigir` → `Falta assinar`, and (signers) `Falta assinar` → `Corrigir`. \
        Signed and released documents cannot be edited.",
    request_body(content = Object, content_type = "application/json"),
    responses(
        (status = 200, body = Document),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "`invalid_transition`", body = ErrorBody),
        (status = 413, body = ErrorBody), (status = 422, body = ErrorBody)
    )
)]
async fn edit(State(state): State<AppState>, caller: Caller, request: Request) -> Result<Response> {
    caller.require_staff()?;
    let upload = edit_input(&state, request).await?;
    let id = JsonBody::id(&Value::Object(upload.fields.clone()))?;
    let draft = document::read_document(&upload.fields, false).map_err(ApiError::Validation)?;
    // Checked before the file goes to the store, so a refused edit leaves nothing behind.
    let current = {
        let mut conn = state.db.read().await?;
        let current = load_state(&mut conn, &id).await?;
        check_edit(&mut conn, &caller, &current, &draft).await?;
        current
    };
    let file = match &upload.file {
        Some((staged, name)) => Some(store_file(&state, staged, name.clone()).await?),
        None => None,
    };
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "documents", &id).await?;
    // Re-read inside the write transaction: another request may have moved it meanwhile.
    let fresh = load_state(&mut tx, &id).await?;
    if fresh.status != current.status || fresh.file_version != current.file_version {
        check_edit(&mut tx, &caller, &fresh, &draft).await?;
    }
    let before = load(&mut tx, &caller, &id).await?;
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
    store::update_metadata(&mut tx, &id, &changes, &at).await?;
    if let Some(file) = &file {
        store::add_file(&mut tx, &id, fresh.file_version + 1, file, &caller.id, &at).await?;
    }
    let after = load(&mut tx, &caller, &id).await?;
    let action = match (changes.status, file.is_some()) {
        (Some(s), _) => format!("status:{}", s.slug()),
        (None, true) => "file_replaced".into(),
        (None, false) => "edited".into(),
    };
    record(&mut tx, &id, &action, &caller, Some(&before), Some(&after)).await?;
    tx.commit().await?;
    Ok(Json(after).into_response())
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
            return Err(invalid_transition(document::InvalidTransition {
                from: current.status,
                to,
            }));
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

#[utoipa::path(
    post, path = "/api/document/sign", tag = "documents",
    description = "Only `Físico` and `Administrator`, only from `Falta assinar`: records signer and time, an \
        8-character authenticity `code` and an Ed25519 `signature` (see `GET /api/signing-key`).",
    request_body = IdBody,
    responses(
        (status = 200, body = Document), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "`invalid_transition`", body = ErrorBody)
    )
)]
async fn sign(State(state): State<AppState>, caller: Caller, body: JsonBody) -> Result<Response> {
    caller.require_any(SIGNERS)?;
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "documents", &id).await?;
    let current = load_state(&mut tx, &id).await?;
    document::transition(current.status, Move::Sign).map_err(invalid_transition)?;
    let before = load(&mut tx, &caller, &id).await?;
    let code = loop {
        let mut random = [0u8; document::CODE_LENGTH];
        rand::rng().fill_bytes(&mut random);
        let code = document::authenticity_code(random);
        if !store::code_taken(&mut tx, &code).await? {
            break code;
        }
    };
    let at = now();
    let signature = SignedClaim {
        file_sha256: &current.sha256,
        document_id: &id,
        signer: &caller.id,
        signed_at: &at,
        code: &code,
    }
    .sign(&state.signing_key);
    store::sign(
        &mut tx,
        &id,
        &store::Signing {
            signer: &caller.id,
            at: &at,
            code: &code,
            signature: &signature,
        },
    )
    .await?;
    let after = load(&mut tx, &caller, &id).await?;
    record(&mut tx, &id, "signed", &caller, Some(&before), Some(&after)).await?;
    tx.commit().await?;
    Ok(Json(after).into_response())
}

#[utoipa::path(
    post, path = "/api/document/liberate", tag = "documents",
    description = "Release: `Administrator`, `Admin`, `Físico`; only from `Assinado`. Released documents become visible to the facility's `Cliente` users.",
    request_body = IdBody,
    responses(
        (status = 200, body = Document), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "`invalid_transition`", body = ErrorBody)
    )
)]
async fn liberate(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
    caller.require_any(RELEASERS)?;
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "documents", &id).await?;
    let current = load_state(&mut tx, &id).await?;
    document::transition(current.status, Move::Liberate).map_err(invalid_transition)?;
    let before = load(&mut tx, &caller, &id).await?;
    store::liberate(&mut tx, &id, &caller.id, &now()).await?;
    let after = load(&mut tx, &caller, &id).await?;
    record(
        &mut tx,
        &id,
        "liberated",
        &caller,
        Some(&before),
        Some(&after),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(after).into_response())
}

#[utoipa::path(
    post, path = "/api/document/exclude", tag = "documents",
    description = "Soft delete: gone from lists and reads, kept in the database, the store and the audit log; pending e-mails are cancelled.",
    request_body = IdBody,
    responses(
        (status = 200, body = registry_core::api::Message), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn exclude(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
    caller.require_staff()?;
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "documents", &id).await?;
    let before = load(&mut tx, &caller, &id).await?;
    store::archive(&mut tx, &id, &now()).await?;
    record(&mut tx, &id, "deleted", &caller, Some(&before), None).await?;
    tx.commit().await?;
    Ok(Json(registry_core::api::Message {
        message: "Document deleted.".into(),
        id: Some(id),
        token: None,
    })
    .into_response())
}

#[utoipa::path(
    post, path = "/api/document/{id}/comment", tag = "documents",
    params(("id" = String, Path, description = "Document `_id`")),
    request_body = CommentBody,
    responses(
        (status = 201, description = "The document with its comments", body = Document),
        (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)
    )
)]
async fn comment(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Response> {
    let value = body.value()?;
    let text = match value.get("text") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::String(_)) | Some(Value::Null) | None => {
            return Err(ApiError::field("text", FieldCode::Required, "is required"));
        }
        Some(_) => {
            return Err(ApiError::field(
                "text",
                FieldCode::InvalidValue,
                "must be a string",
            ));
        }
    };
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "documents", &id).await?;
    load(&mut tx, &caller, &id).await?;
    let comment_id = new_id();
    store::add_comment(&mut tx, &comment_id, &id, &caller.id, &text, &now()).await?;
    let after = load(&mut tx, &caller, &id).await?;
    let detail = serde_json::json!({ "_id": comment_id, "text": text });
    audit::record(
        &mut tx,
        audit::Change {
            entity: "document",
            entity_id: &id,
            action: "commented",
            actor: Some(&caller.id),
            before: None,
            after: Some(&detail),
            role_changes: &[],
        },
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(after)).into_response())
}

#[utoipa::path(
    post, path = "/api/document/scheduleEmail", tag = "documents",
    description = "Only `Liberado` documents. Stores the schedule; the server's worker sends it at `sendAt` \
        (default now) to `to` or the facility's active users, exactly once, retrying with backoff.",
    request_body = ScheduleBody,
    responses(
        (status = 202, description = "Scheduled; see `scheduledEmail`", body = Document),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "The document is not released", body = ErrorBody),
        (status = 422, body = ErrorBody)
    )
)]
async fn schedule_email(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
    caller.require_staff()?;
    let value = body.value()?;
    let id = JsonBody::id(&value)?;
    let mut errs = FieldErrors::default();
    let send_at = match value.get("sendAt") {
        None | Some(Value::Null) => chrono::Utc::now(),
        Some(Value::String(s)) if s.trim().is_empty() => chrono::Utc::now(),
        Some(Value::String(s)) => match chrono::DateTime::parse_from_rfc3339(s.trim()) {
            Ok(t) => t.with_timezone(&chrono::Utc),
            Err(_) => {
                errs.push(
                    "sendAt",
                    FieldCode::InvalidValue,
                    "must be an RFC 3339 time, e.g. 2026-11-21T09:00:00Z",
                );
                chrono::Utc::now()
            }
        },
        Some(_) => {
            errs.push(
                "sendAt",
                FieldCode::InvalidValue,
                "must be an RFC 3339 time string",
            );
            chrono::Utc::now()
        }
    };
    let given: Option<Vec<String>> = match value.get("to") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(
            s.split([',', ';'])
                .map(|a| a.trim().to_owned())
                .filter(|a| !a.is_empty())
                .collect(),
        ),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| match v.as_str() {
                    Some(s) => Some(s.trim().to_owned()),
                    None => {
                        errs.push(
                            format!("to[{i}]"),
                            FieldCode::InvalidEmail,
                            "must be an e-mail address",
                        );
                        None
                    }
                })
                .collect(),
        ),
        Some(_) => {
            errs.push(
                "to",
                FieldCode::InvalidValue,
                "must be an array of e-mail addresses",
            );
            None
        }
    };
    let mut recipients = Vec::new();
    for (i, raw) in given.iter().flatten().enumerate() {
        match registry_core::values::Email::parse(raw) {
            Some(e) => recipients.push(e.as_str().to_owned()),
            None => errs.push(
                format!("to[{i}]"),
                FieldCode::InvalidEmail,
                "is not a valid e-mail address",
            ),
        }
    }
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "documents", &id).await?;
    let current = load_state(&mut tx, &id).await?;
    if current.status != DocumentStatus::Released {
        return Err(ApiError::conflict(
            "conflict",
            format!(
                "Only released (Liberado) documents can be e-mailed; this one is \"{}\".",
                current.status
            ),
        ));
    }
    if given.is_none() {
        recipients = store::facility_recipients(&mut tx, &current.facility_id).await?;
        if recipients.is_empty() {
            errs.push(
                "to",
                FieldCode::Required,
                "is required: the facility has no active users to send to",
            );
        }
    } else if recipients.is_empty() && errs.is_empty() {
        errs.push("to", FieldCode::Required, "needs at least one address");
    }
    if !errs.is_empty() {
        return Err(ApiError::Validation(errs.into_vec()));
    }
    recipients.dedup();
    let schedule_id = new_id();
    let at = now();
    store::schedule_email(
        &mut tx,
        &store::NewSchedule {
            id: &schedule_id,
            document_id: &id,
            recipients: &recipients,
            send_at: &timestamp(send_at),
            by: &caller.id,
            at: &at,
        },
    )
    .await?;
    let after = load(&mut tx, &caller, &id).await?;
    let detail =
        serde_json::json!({ "_id": schedule_id, "sendAt": timestamp(send_at), "to": recipients });
    audit::record(
        &mut tx,
        audit::Change {
            entity: "document",
            entity_id: &id,
            action: "email_scheduled",
            actor: Some(&caller.id),
            before: None,
            after: Some(&detail),
            role_changes: &[],
        },
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::ACCEPTED, Json(after)).into_response())
}

#[utoipa::path(
    get, path = "/api/document/{id}", tag = "documents",
    params(("id" = String, Path, description = "Document `_id`")),
    responses((status = 200, body = Document), (status = 404, body = ErrorBody))
)]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response> {
    let mut conn = state.db.read().await?;
    Ok(Json(load(&mut conn, &caller, &id).await?).into_response())
}

#[derive(Deserialize)]
struct FileQuery {
    version: Option<i64>,
}

#[utoipa::path(
    get, path = "/api/document/{id}/file", tag = "documents",
    params(
        ("id" = String, Path, description = "Document `_id`"),
        ("version" = Option<i64>, Query, description = "An older file version; default the current one")
    ),
    responses(
        (status = 200, description = "The file's bytes, with its content type", content_type = "application/octet-stream"),
        (status = 404, body = ErrorBody)
    )
)]
async fn download(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(query): Query<FileQuery>,
) -> Result<Response> {
    let file = {
        let mut conn = state.db.read().await?;
        load(&mut conn, &caller, &id).await?;
        store::file(&mut conn, &id, query.version)
            .await?
            .ok_or_else(|| ApiError::not_found("file version"))?
    };
    let stream = state.objects.stream(&file.sha256).await?;
    let body = Body::from_stream(stream.map_err(std::io::Error::other));
    let disposition = format!(
        "attachment; filename=\"{}\"; filename*=UTF-8''{}",
        file.name
            .replace(['"', '\\', '\r', '\n'], "_")
            .chars()
            .filter(char::is_ascii)
            .collect::<String>(),
        url::form_urlencoded::byte_serialize(file.name.as_bytes()).collect::<String>()
    );
    Ok((
        [
            (header::CONTENT_TYPE, file.content_type),
            (header::CONTENT_LENGTH, file.size.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::ETAG, format!("\"{}\"", file.sha256)),
            (header::CACHE_CONTROL, "private, no-cache".to_owned()),
        ],
        body,
    )
        .into_response())
}

fn filter_from(params: &ListParams, caller: &Caller) -> Result<DocumentFilter> {
    let mut filter = scope(caller);
    if let Some(s) = params.text("status") {
        filter.status = Some(DocumentStatus::parse_value_or_slug(&s).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "status must be one of {}.",
                DocumentStatus::allowed()
            ))
        })?);
    }
    filter.facility_id = params
        .text("facilityId")
        .or_else(|| params.text("facility"));
    filter.equipment_id = params
        .text("equipmentId")
        .or_else(|| params.text("equipment"));
    filter.test_id = params.text("testId").or_else(|| params.text("test"));
    for (key, slot) in [
        ("dateGte", &mut filter.date_gte),
        ("dateLt", &mut filter.date_lt),
    ] {
        if let Some(raw) = params.text(key) {
            *slot = Some(document::parse_date(&raw).ok_or_else(|| {
                ApiError::BadRequest(format!("{key} must be a date as YYYY-MM-DD."))
            })?);
        }
    }
    filter.q = params.text("q");
    Ok(filter)
}

async fn list_with(
    state: &AppState,
    filter: DocumentFilter,
    params: &ListParams,
) -> Result<Response> {
    let mut conn = state.db.read().await?;
    let (list, total) = store::list(&mut conn, &filter, params.page_size, params.offset()).await?;
    Ok(Json(ListEnvelope {
        list,
        paging: params.paging(total),
    })
    .into_response())
}

#[utoipa::path(
    get, path = "/api/documents", tag = "documents",
    description = "Newest first. Filters (`?filters=<json>` or plain params): `status` (value or slug), \
        `facilityId`, `equipmentId`, `testId`, `dateGte`, `dateLt`, `q`; paging `pageNum`, `pageSize`. \
        A `Cliente` sees only released documents of their facilities.",
    responses((status = 200, body = ListEnvelope<Document>), (status = 400, body = ErrorBody))
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response> {
    let filter = filter_from(&params, &caller)?;
    list_with(&state, filter, &params).await
}

#[utoipa::path(
    get, path = "/api/documents/{status}", tag = "documents",
    params(("status" = String, Path, description = "A status value (`Falta assinar`) or its slug (`falta-assinar`)")),
    responses((status = 200, body = ListEnvelope<Document>), (status = 404, body = ErrorBody))
)]
async fn list_by_status(
    State(state): State<AppState>,
    caller: Caller,
    Path(status): Path<String>,
    params: ListParams,
) -> Result<Response> {
    let status = DocumentStatus::parse_value_or_slug(&status).ok_or_else(|| {
        ApiError::NotFound(format!(
            "No such document status; use one of {}.",
            DocumentStatus::allowed()
        ))
    })?;
    let mut filter = filter_from(&params, &caller)?;
    filter.status = Some(status);
    list_with(&state, filter, &params).await
}

#[utoipa::path(
    get, path = "/api/signing-key", tag = "documents",
    description = "The server's Ed25519 public key, to verify document signatures offline.",
    responses((status = 200, body = SigningKeyInfo))
)]
async fn signing_key(State(state): State<AppState>, _caller: Caller) -> Json<SigningKeyInfo> {
    Json(SigningKeyInfo {
        algorithm: "Ed25519".into(),
        public_key: base64::engine::general_purpose::STANDARD
            .encode(state.signing_key.verifying_key().to_bytes()),
        payload: "facility-registry-document-signature:v1\\nsha256=<file.sha256>\\ndocument=<_id>\\nsigner=<signedBy._id>\\nsignedAt=<signedAt>\\ncode=<code>\\n".into(),
    })
}
