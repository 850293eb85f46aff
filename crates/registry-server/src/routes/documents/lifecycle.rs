//! The status machine's moves (sign, release), soft delete and comments.

use super::{
    CommentBody, IdBody, SIGNERS, invalid_transition, load, load_state, record, record_event,
};
use crate::auth::Caller;
use crate::db::{new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::{JsonBody, Path};
use crate::state::AppState;
use crate::store::documents as store;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rand::RngCore;
use registry_core::document::{self, Document, Move, SignedClaim};
use registry_core::{ErrorBody, FieldCode, Role};
use serde_json::Value;

/// Roles that may release a signed document.
const RELEASERS: &[Role] = &[Role::Administrator, Role::Admin, Role::Physicist];

#[utoipa::path(
    post, path = "/api/document/sign", tag = "documents",
    description = "Only `Físico` and `Administrator`, only from `Falta assinar`: records signer \
        and time, an 8-character authenticity `code` and an Ed25519 `signature` (see `GET \
        /api/signing-key`).",
    request_body = IdBody,
    responses(
        (status = 200, body = Document),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "`invalid_transition`", body = ErrorBody)
    )
)]
pub(super) async fn sign(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
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
    description = "Release: `Administrator`, `Admin`, `Físico`; only from `Assinado`. Released \
        documents become visible to the facility's `Cliente` users.",
    request_body = IdBody,
    responses(
        (status = 200, body = Document),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "`invalid_transition`", body = ErrorBody)
    )
)]
pub(super) async fn liberate(
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
    description = "Soft delete: gone from lists and reads, kept in the database, the store and the \
        audit log; pending e-mails are cancelled.",
    request_body = IdBody,
    responses(
        (status = 200, body = registry_core::api::Message),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
pub(super) async fn exclude(
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
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody)
    )
)]
pub(super) async fn comment(
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
    record_event(&mut tx, &id, "commented", &caller, &detail).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(after)).into_response())
}
