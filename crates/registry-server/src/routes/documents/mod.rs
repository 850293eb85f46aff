//! Documents (spec §4.5, product.md §5): upload, download, edit with file versions, the status
//! machine (sign, send back, release), soft delete, comments, lists, e-mail schedules and the
//! public signing key. One file a concern; this one routes, describes, and holds what they share.

mod edit;
mod email;
mod lifecycle;
mod list;
mod read;
mod signing_key;
mod upload;

use crate::access::document_scope;
use crate::auth::Caller;
use crate::db::{Conn, Tx};
use crate::error::{ApiError, OrNotFound, Result};
use crate::routes::describe::{Routes, route, routes};
use crate::store::audit;
use crate::store::documents::{self as store, DocumentState};
use axum::Json;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use registry_core::Role;
use registry_core::audit::Action;
use registry_core::document::{self, Document};
use serde_json::Value;

/// Roles that may sign, and send a document back for correction.
const SIGNERS: &[Role] = &[Role::Administrator, Role::Physicist];

pub fn routes() -> Routes {
    // Uploads stream past the JSON limit; their own limit is checked while the file is read.
    routes![
        lifecycle::sign,
        lifecycle::liberate,
        lifecycle::exclude,
        email::schedule_email,
        lifecycle::comment,
        read::download,
        read::show,
        list::list,
        list::list_by_status,
        signing_key::signing_key
    ]
    .route(route!(upload::register).layer(DefaultBodyLimit::disable()))
    .route(route!(edit::edit).layer(DefaultBodyLimit::disable()))
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

fn invalid_transition(e: document::InvalidTransition) -> ApiError {
    ApiError::conflict("invalid_transition", format!("Invalid transition: {e}."))
}

/// Records a write of the document `id` in the audit log, last before the commit: its sender is
/// judged again first ([`Caller::still`]), so that a session ended meanwhile writes nothing.
async fn record(
    conn: &mut Conn,
    id: &str,
    action: Action,
    caller: &Caller,
    before: Option<&Document>,
    after: Option<&Document>,
) -> Result<()> {
    caller.still(conn).await?;
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

async fn load(conn: &mut Conn, caller: &Caller, id: &str) -> Result<Document> {
    store::view(conn, id, &document_scope(caller))
        .await?
        .or_not_found("document")
}

async fn load_state(conn: &mut Conn, id: &str) -> Result<DocumentState> {
    store::state(conn, id).await?.or_not_found("document")
}

/// Ends a write by which the document `id` gains something without changing itself (a comment,
/// an e-mail schedule): records the `action` with its `detail` in the audit log, commits, and
/// answers `status` with the document as it now is (a 201 — a comment — says where: the
/// document, which holds it).
async fn finish_event(
    mut tx: Tx,
    caller: &Caller,
    id: &str,
    action: Action,
    detail: &Value,
    status: StatusCode,
) -> Result<Response> {
    caller.still(&mut tx).await?;
    let after = load(&mut tx, caller, id).await?;
    let actor = Some(caller.id.as_str());
    audit::record_change(&mut tx, actor, "document", id, action, None, Some(detail)).await?;
    tx.commit().await?;
    if status == StatusCode::CREATED {
        return Ok(super::audited::created_at("/api/document", id, after).into_response());
    }
    Ok((status, Json(after)).into_response())
}
