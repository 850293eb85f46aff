//! Facility logo and background image: upload (multipart `file`, PNG/JPEG/WebP by magic bytes,
//! at most 2 MiB), read, and removal by the client layer's paths or `DELETE`.

use crate::app::AppState;
use crate::auth::Caller;
use crate::db::now;
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::routes::facilities::{visible, with_etag};
use crate::store::audit;
use crate::store::facilities::{self as store, ImageKind};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use registry_core::FieldCode;

pub const MAX_IMAGE_BYTES: usize = 2 * 1024 * 1024;

pub fn router() -> Router<AppState> {
    let upload_limit = DefaultBodyLimit::max(MAX_IMAGE_BYTES + 64 * 1024);
    Router::new()
        .route(
            "/facility/{id}/logo",
            get(|s, c, p| read(s, c, p, ImageKind::Logo))
                .post(|s, c, p, m| upload(s, c, p, m, ImageKind::Logo))
                .layer(upload_limit)
                .delete(|s, c, p: Path<String>| remove(s, c, p.0, ImageKind::Logo)),
        )
        .route(
            "/facility/{id}/background",
            get(|s, c, p| read(s, c, p, ImageKind::Background))
                .post(|s, c, p, m| upload(s, c, p, m, ImageKind::Background))
                .layer(upload_limit)
                .delete(|s, c, p: Path<String>| remove(s, c, p.0, ImageKind::Background)),
        )
        .route(
            "/facility/removeLogo",
            post(|s, c, b| remove_by_body(s, c, b, ImageKind::Logo)),
        )
        .route(
            "/facility/removeBackgroundImage",
            post(|s, c, b| remove_by_body(s, c, b, ImageKind::Background)),
        )
}

/// The image type from its first bytes.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn too_large() -> ApiError {
    ApiError::PayloadTooLarge(format!(
        "Images may be at most {} MiB.",
        MAX_IMAGE_BYTES / (1024 * 1024)
    ))
}

fn multipart_error(e: axum::extract::multipart::MultipartError) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large()
    } else {
        ApiError::BadRequest(format!("Malformed multipart body: {}.", e.body_text()))
    }
}

async fn upload(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
    kind: ImageKind,
) -> Result<Response> {
    caller.require_staff()?;
    let mut multipart = multipart.map_err(|_| {
        ApiError::BadRequest("Expected a multipart/form-data body with a `file` part.".into())
    })?;
    let mut data: Option<Vec<u8>> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        if field.name() != Some("file") {
            continue;
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
            if bytes.len() + chunk.len() > MAX_IMAGE_BYTES {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        data = Some(bytes);
    }
    let data = data.ok_or_else(|| {
        ApiError::field(
            "file",
            FieldCode::Required,
            "is required: a PNG, JPEG or WebP image",
        )
    })?;
    let content_type = sniff_image(&data).ok_or_else(|| {
        ApiError::field(
            "file",
            FieldCode::InvalidValue,
            "must be a PNG, JPEG or WebP image",
        )
    })?;
    let mut tx = state.db.begin().await?;
    visible(&mut tx, &caller, &id).await?;
    let at = now();
    store::set_image(&mut tx, &id, kind, content_type, &data, &at).await?;
    store::touch(&mut tx, &id, &at).await?;
    let detail = serde_json::json!({ "kind": kind.as_str(), "contentType": content_type, "size": data.len() });
    audit::record(
        &mut tx,
        audit::Change {
            entity: "facility",
            entity_id: &id,
            action: "image_set",
            actor: Some(&caller.id),
            before: None,
            after: Some(&detail),
            role_changes: &[],
        },
    )
    .await?;
    let facility = store::view(&mut tx, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    tx.commit().await?;
    Ok(with_etag(StatusCode::OK, facility))
}

async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    kind: ImageKind,
) -> Result<Response> {
    let mut conn = state.db.read().await?;
    visible(&mut conn, &caller, &id).await?;
    let (content_type, data) = store::image(&mut conn, &id, kind)
        .await?
        .ok_or_else(|| ApiError::not_found("image"))?;
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "private, no-cache".to_owned()),
        ],
        data,
    )
        .into_response())
}

async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    id: String,
    kind: ImageKind,
) -> Result<Response> {
    caller.require_staff()?;
    let mut tx = state.db.begin().await?;
    visible(&mut tx, &caller, &id).await?;
    if store::remove_image(&mut tx, &id, kind).await? {
        let at = now();
        store::touch(&mut tx, &id, &at).await?;
        let detail = serde_json::json!({ "kind": kind.as_str() });
        audit::record(
            &mut tx,
            audit::Change {
                entity: "facility",
                entity_id: &id,
                action: "image_removed",
                actor: Some(&caller.id),
                before: Some(&detail),
                after: None,
                role_changes: &[],
            },
        )
        .await?;
    }
    let facility = store::view(&mut tx, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    tx.commit().await?;
    Ok(with_etag(StatusCode::OK, facility))
}

async fn remove_by_body(
    state: State<AppState>,
    caller: Caller,
    body: JsonBody,
    kind: ImageKind,
) -> Result<Response> {
    caller.require_staff()?;
    let id = JsonBody::id(&body.value()?)?;
    remove(state, caller, id, kind).await
}
