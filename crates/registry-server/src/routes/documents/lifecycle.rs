//! The status machine's moves (sign, release), soft delete and comments.

use super::{
    CommentBody, IdBody, SIGNERS, finish_event, invalid_transition, load, load_state, record,
};
use crate::auth::{Caller, Staff};
use crate::db::Tx;
use crate::db::{new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::{JsonBody, Path};
use crate::routes::shared::{Forbidden, InvalidTransition, NotFound};
use crate::routes::{archive, audited};
use crate::state::AppState;
use crate::store::documents as store;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rand::RngCore;
use registry_core::api::Message;
use registry_core::audit::Action;
use registry_core::document::{self, Document, Move, SignedClaim};
use registry_core::{FieldCode, Role};
use serde_json::Value;

/// Roles that may release a signed document.
const RELEASERS: &[Role] = &[Role::Administrator, Role::Admin, Role::Physicist];

/// A status move under way on a locked document: its transaction, `_id`, file digest and view
/// before the move.
struct Moving {
    tx: Tx,
    id: String,
    sha256: String,
    before: Document,
}

impl Moving {
    /// Starts the move `to` on the document `{_id}` of `body`: locks it, refuses a move its
    /// status does not allow (409 `invalid_transition`), and loads it as it is.
    async fn begin(state: &AppState, caller: &Caller, body: JsonBody, to: Move) -> Result<Self> {
        let id = JsonBody::id(&body.value()?)?;
        let mut tx = audited::locked(state, "documents", &id).await?;
        let current = load_state(&mut tx, &id).await?;
        document::transition(current.status, to).map_err(invalid_transition)?;
        let before = load(&mut tx, caller, &id).await?;
        Ok(Moving {
            tx,
            id,
            sha256: current.sha256,
            before,
        })
    }

    /// Ends the move: records `action` with the document before and after, commits, and answers
    /// the document as it is now.
    async fn finish(mut self, caller: &Caller, action: Action) -> Result<Response> {
        let after = load(&mut self.tx, caller, &self.id).await?;
        record(
            &mut self.tx,
            &self.id,
            action,
            caller,
            Some(&self.before),
            Some(&after),
        )
        .await?;
        self.tx.commit().await?;
        Ok(Json(after).into_response())
    }
}

#[utoipa::path(
    post, path = "/api/document/sign", tag = "documents",
    description = "Only `Físico` and `Administrator`, only from `Falta assinar`: records signer \
        and time, an 8-character authenticity `code` and an Ed25519 `signature` (see `GET \
        /api/signing-key`).",
    request_body = IdBody,
    responses((status = 200, body = Document), Forbidden, NotFound, InvalidTransition)
)]
pub(super) async fn sign(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
    caller.require_any(SIGNERS)?;
    let mut moving = Moving::begin(&state, &caller, body, Move::Sign).await?;
    let code = loop {
        let mut random = [0u8; document::CODE_LENGTH];
        rand::rng().fill_bytes(&mut random);
        let code = document::authenticity_code(random);
        if !store::code_taken(&mut moving.tx, &code).await? {
            break code;
        }
    };
    let at = now();
    let signature = SignedClaim {
        file_sha256: &moving.sha256,
        document_id: &moving.id,
        signer: &caller.id,
        signed_at: &at,
        code: &code,
    }
    .sign(&state.signing_key);
    store::sign(
        &mut moving.tx,
        &moving.id,
        &store::Signing {
            signer: &caller.id,
            at: &at,
            code: &code,
            signature: &signature,
        },
    )
    .await?;
    moving.finish(&caller, Action::Sign).await
}

#[utoipa::path(
    post, path = "/api/document/liberate", tag = "documents",
    description = "Release: `Administrator`, `Admin`, `Físico`; only from `Assinado`. Released \
        documents become visible to the facility's `Cliente` users.",
    request_body = IdBody,
    responses((status = 200, body = Document), Forbidden, NotFound, InvalidTransition)
)]
pub(super) async fn liberate(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
    caller.require_any(RELEASERS)?;
    let mut moving = Moving::begin(&state, &caller, body, Move::Liberate).await?;
    store::liberate(&mut moving.tx, &moving.id, &caller.id, &now()).await?;
    moving.finish(&caller, Action::Liberate).await
}

#[utoipa::path(
    post, path = "/api/document/exclude", tag = "documents",
    description = "Soft delete: gone from lists and reads, kept in the database, the store and the \
        audit log; pending e-mails are cancelled.",
    request_body = IdBody,
    responses((status = 200, body = registry_core::api::Message), Forbidden, NotFound)
)]
pub(super) async fn exclude(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<Json<Message>> {
    let (mut tx, id) = archive::begin(&state, body, "documents").await?;
    let before = load(&mut tx, &caller, &id).await?;
    store::archive(&mut tx, &id, &now()).await?;
    archive::finish(tx, &caller, "document", &before, id, "Document deleted.").await
}

#[utoipa::path(
    post, path = "/api/document/{id}/comment", tag = "documents",
    params(("id" = String, Path, description = "Document `_id`")),
    request_body = CommentBody,
    responses((status = 201, headers(("Location" = String, description = "The document's path")), description = "The document with its comments", body = Document))
)]
pub(super) async fn comment(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Response> {
    let value = body.object()?;
    let text = match value.get("text") {
        Some(Value::String(s)) if !registry_core::text::trim(s).is_empty() => {
            registry_core::text::trim(s).to_owned()
        }
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
    let mut tx = audited::locked(&state, "documents", &id).await?;
    load(&mut tx, &caller, &id).await?;
    let comment_id = new_id();
    store::add_comment(&mut tx, &comment_id, &id, &caller.id, &text, &now()).await?;
    let detail = serde_json::json!({ "_id": comment_id, "text": text });
    finish_event(
        tx,
        &caller,
        &id,
        Action::Comment,
        &detail,
        StatusCode::CREATED,
    )
    .await
}
