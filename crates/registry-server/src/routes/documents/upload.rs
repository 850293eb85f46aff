//! Uploading a document: its form and file read, checked and stored (the edit that brings a new
//! file version reads it here too, `edit.rs`).

use super::{UploadForm, load, record};
use crate::access::visible;
use crate::auth::Staff;
use crate::db::{Conn, new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::JSON_BODY_LIMIT;
use crate::objects::{StagedFile, sniff_document, stage};
use crate::routes::shared::Forbidden;
use crate::state::AppState;
use crate::store::documents::{self as store};
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::response::{IntoResponse, Response};
use futures::TryStreamExt;
use registry_core::audit::Action;
use registry_core::document::{self, Document, DocumentDraft, DocumentStatus, FileInfo};
use registry_core::payload::unflagged_reference;
use registry_core::{ErrorBody, FieldCode, FieldError, FieldErrors};
use serde_json::{Map, Value};

fn multipart_error(e: axum::extract::multipart::MultipartError) -> ApiError {
    ApiError::BadRequest(format!("Malformed multipart body: {}.", e.body_text()))
}

/// An upload's text fields and its staged file (with the client's file name).
pub(super) struct Upload {
    pub(super) fields: Map<String, Value>,
    pub(super) file: Option<(StagedFile, String)>,
}

/// Reads a multipart body: the `file` part is streamed to a temporary file; other parts are
/// fields (their total bounded like a JSON body), a `data` part holding a JSON object of fields.
pub(super) async fn read_upload(state: &AppState, mut multipart: Multipart) -> Result<Upload> {
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
pub(super) fn file_type(staged: &StagedFile) -> Result<&'static str, FieldError> {
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
pub(super) async fn store_file(
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
pub(super) async fn check_references(
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
        (status = 201, headers(("Location" = String, description = "The created record's path")), description = "Stored; starts `Falta assinar` (or `Em andamento` with \
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
    let mut conn = state.db.read().await?;
    let live_facility = match &facility_id {
        Some(f) if visible(&mut conn, &caller, f).await.is_ok() => Some(f),
        Some(_) => {
            errs.push(
                "facility",
                FieldCode::InvalidValue,
                "is not a live facility",
            );
            None
        }
        None => None,
    };
    match live_facility {
        Some(facility_id) => {
            check_references(
                &mut conn,
                facility_id,
                equipment.as_deref(),
                test.as_deref(),
                equipment.as_deref(),
                &mut errs,
            )
            .await?
        }
        // Without a facility to judge them by, the equipment and the test are only looked up.
        None => {
            if let Some(eq) = &equipment
                && crate::store::equipment::get(&mut conn, eq).await?.is_none()
            {
                errs.push(
                    "equipment",
                    FieldCode::InvalidValue,
                    "is not live equipment",
                );
            }
            if let Some(test) = &test
                && crate::store::qc_tests::get(&mut conn, test)
                    .await?
                    .is_none()
            {
                errs.push("test", FieldCode::InvalidValue, "is not a live QC test");
            }
        }
    }
    drop(conn);
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
    Ok(crate::routes::audited::created_at("/api/document", &id, doc).into_response())
}
