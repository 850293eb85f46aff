//! Facility logo and background image: upload (multipart `file`, PNG/JPEG/WebP by magic bytes,
//! at most 2 MiB), read, and removal by the client layer's paths or `DELETE`.

use crate::access::visible;
use crate::auth::{Caller, Staff};
use crate::db::{Conn, Tx, now};
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::JsonBody;
use crate::extract::Path;
use crate::routes::audited;
use crate::routes::describe::{Routes, route};
use crate::routes::shared::{Forbidden, IfMatch, NotFound, VersionMismatch};
use crate::state::AppState;
use crate::store::audit;
use crate::store::facilities::{self as store, ImageKind};
use crate::versions::{check_if_match, with_etag};
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use registry_core::ErrorBody;
use registry_core::FieldCode;
use registry_core::api::{Facility, IdInput};
use registry_core::audit::Action;
use serde_json::Value;

pub const MAX_IMAGE_BYTES: usize = 2 * 1024 * 1024;

/// An image's multipart body: the image and its part's headers.
const IMAGE_BODY_LIMIT: usize = MAX_IMAGE_BYTES + 64 * 1024;

pub fn routes() -> Routes {
    // The upload has a body limit of its own, over the JSON one.
    Routes::new()
        .route(route!(read))
        .route(route!(upload).layer(DefaultBodyLimit::max(IMAGE_BODY_LIMIT)))
        .route(route!(remove_by_path))
        .route(route!(remove_logo))
        .route(route!(remove_background))
}

/// The `logo` or `background` path segment.
fn kind(segment: &str) -> Result<ImageKind> {
    match segment {
        "logo" => Ok(ImageKind::Logo),
        "background" => Ok(ImageKind::Background),
        _ => Err(ApiError::NotFound("No such endpoint.".into())),
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

/// A transaction with the facility `id` locked, when the caller may see it and its `If-Match`
/// (if any) names the facility's version: an image change is a new version, refused on a stale
/// copy like an edit.
async fn locked(state: &AppState, caller: &Caller, id: &str, headers: &HeaderMap) -> Result<Tx> {
    let mut tx = audited::locked(state, "facilities", id).await?;
    visible(&mut tx, caller, id).await?;
    if headers.contains_key(header::IF_MATCH) {
        let current = store::view(&mut tx, id).await?.or_not_found("facility")?;
        check_if_match(headers, current.version)?;
    }
    Ok(tx)
}

/// Marks the facility `id` changed `at` and records the image event `action` in its audit log,
/// with its `before` or `after` detail.
async fn image_event(
    conn: &mut Conn,
    caller: &Caller,
    id: &str,
    at: &str,
    action: Action,
    before: Option<&Value>,
    after: Option<&Value>,
) -> Result<()> {
    caller.still(conn).await?;
    store::touch(conn, id, at).await?;
    let actor = Some(caller.id.as_str());
    audit::record_change(conn, actor, "facility", id, action, before, after).await?;
    Ok(())
}

/// Commits and answers the facility `id` with its ETag.
async fn answer(mut tx: Tx, id: &str) -> Result<Response> {
    let facility = store::view(&mut tx, id).await?.or_not_found("facility")?;
    tx.commit().await?;
    Ok(with_etag(StatusCode::OK, facility))
}

/// `logo` or `background`.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Segment {
    Logo,
    Background,
}

/// `multipart/form-data` with one `file` part: PNG, JPEG or WebP (read by its first bytes), at
/// most 2 MiB.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct ImageForm {
    #[schema(format = Binary)]
    file: String,
}

#[utoipa::path(
    post, path = "/api/facility/{id}/{kind}", tag = "facilities",
    summary = "Upload the logo or background image",
    params(
        ("id" = String, Path), ("kind" = inline(Segment), Path), IfMatch
    ),
    request_body(content = ImageForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "The facility", body = Facility), Forbidden, VersionMismatch,
        (status = 413, description = "Over 2 MiB", body = ErrorBody),
        (status = 422, description = "Not an image", body = ErrorBody)
    )
)]
async fn upload(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, segment)): Path<(String, String)>,
    headers: HeaderMap,
    multipart: std::result::Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Response> {
    let kind = kind(&segment)?;
    caller.require_staff()?;
    // Declared larger than it may be: refused before it is read (no `100 Continue`).
    if crate::extract::declared_length(&headers) > Some(IMAGE_BODY_LIMIT as u64) {
        return Err(too_large());
    }
    let mut multipart = multipart.map_err(|_| {
        ApiError::BadRequest("Expected a multipart/form-data body with a `file` part.".into())
    })?;
    let mut data: Option<Vec<u8>> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        if field.name() != Some("file") {
            continue;
        }
        if data.is_some() {
            return Err(ApiError::second_file());
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
    let content_type = crate::objects::sniff_image(&data).ok_or_else(|| {
        ApiError::field(
            "file",
            FieldCode::InvalidValue,
            "must be a PNG, JPEG or WebP image",
        )
    })?;
    if let Some(refusal) = oversized(&data) {
        return Err(ApiError::field("file", FieldCode::InvalidValue, refusal));
    }
    let mut tx = locked(&state, &caller, &id, &headers).await?;
    let at = now();
    let detail = |content_type: &str, size: i64| serde_json::json!({ "kind": kind.as_str(), "contentType": content_type, "size": size });
    // The image replaced, if any, is the event's `before`.
    let before = store::image_info(&mut tx, &id, kind)
        .await?
        .map(|(content_type, size)| detail(&content_type, size));
    store::set_image(&mut tx, &id, kind, content_type, &data, &at).await?;
    let after = detail(content_type, data.len() as i64);
    let (before, after) = (before.as_ref(), Some(&after));
    image_event(&mut tx, &caller, &id, &at, Action::SetImage, before, after).await?;
    answer(tx, &id).await
}

/// The most pixels an image may declare, and the most on either side: a few bytes may declare
/// 100,000 × 100,000 pixels, which every browser showing the facility would try to decode
/// (tens of GB). 40 megapixels is more than a camera's photo.
const MAX_IMAGE_PIXELS: usize = 40_000_000;
const MAX_IMAGE_SIDE: usize = 16_384;

/// Why an image's declared size is refused, read from its header (nothing is decoded); `None`
/// when it is within the limits or its header does not say.
fn oversized(data: &[u8]) -> Option<String> {
    let size = imagesize::blob_size(data).ok()?;
    let (w, h) = (size.width, size.height);
    (w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE || w.saturating_mul(h) > MAX_IMAGE_PIXELS).then(
        || {
            format!(
                "declares {w} × {h} pixels: an image may have at most {MAX_IMAGE_SIDE} pixels on a \
             side and 40 megapixels in all"
            )
        },
    )
}

#[utoipa::path(
    get, path = "/api/facility/{id}/{kind}", tag = "facilities",
    summary = "Read the logo or background image",
    params(("id" = String, Path), ("kind" = inline(Segment), Path)),
    responses((status = 200, description = "The image bytes", content_type = "image/*"))
)]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, segment)): Path<(String, String)>,
) -> Result<Response> {
    let kind = kind(&segment)?;
    let mut conn = state.db.read().await?;
    visible(&mut conn, &caller, &id).await?;
    let (content_type, data) = store::image(&mut conn, &id, kind)
        .await?
        .or_not_found("image")?;
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
    headers: &HeaderMap,
) -> Result<Response> {
    let mut tx = locked(&state, &caller, &id, headers).await?;
    if store::remove_image(&mut tx, &id, kind).await? {
        let detail = serde_json::json!({ "kind": kind.as_str() });
        image_event(
            &mut tx,
            &caller,
            &id,
            &now(),
            Action::RemoveImage,
            Some(&detail),
            None,
        )
        .await?;
    }
    answer(tx, &id).await
}

#[utoipa::path(
    delete, path = "/api/facility/{id}/{kind}", tag = "facilities",
    summary = "Remove the logo or background image",
    params(
        ("id" = String, Path), ("kind" = inline(Segment), Path), IfMatch
    ),
    responses(
        (status = 200, description = "The facility", body = Facility), Forbidden, VersionMismatch
    )
)]
async fn remove_by_path(
    state: State<AppState>,
    Staff(caller): Staff,
    Path((id, segment)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response> {
    let kind = kind(&segment)?;
    remove(state, caller, id, kind, &headers).await
}

#[utoipa::path(
    post, path = "/api/facility/removeLogo", tag = "facilities", summary = "Remove the logo",
    params(IfMatch),
    request_body = IdInput,
    responses(
        (status = 200, description = "The facility", body = Facility), Forbidden, NotFound,
        VersionMismatch
    )
)]
async fn remove_logo(
    state: State<AppState>,
    Staff(caller): Staff,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    remove_by_body(state, caller, body, ImageKind::Logo, &headers).await
}

#[utoipa::path(
    post, path = "/api/facility/removeBackgroundImage", tag = "facilities",
    summary = "Remove the background image",
    params(IfMatch),
    request_body = IdInput,
    responses(
        (status = 200, description = "The facility", body = Facility), Forbidden, NotFound,
        VersionMismatch
    )
)]
async fn remove_background(
    state: State<AppState>,
    Staff(caller): Staff,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    remove_by_body(state, caller, body, ImageKind::Background, &headers).await
}

async fn remove_by_body(
    state: State<AppState>,
    caller: Caller,
    body: JsonBody,
    kind: ImageKind,
    headers: &HeaderMap,
) -> Result<Response> {
    let id = JsonBody::id(&body.value()?)?;
    remove(state, caller, id, kind, headers).await
}
