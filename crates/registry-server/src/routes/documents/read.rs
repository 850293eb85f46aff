//! Reading one document and its file.

use super::load;
use crate::auth::{MaybeCaller, Reader};
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::{Path, Query};
use crate::state::AppState;
use crate::store::documents as store;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use futures::TryStreamExt;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use registry_core::document::{Document, FileLink};
use serde::Deserialize;

#[utoipa::path(
    get, path = "/api/document/{id}", tag = "documents",
    params(("id" = String, Path, description = "Document `_id`")),
    responses((status = 200, body = Document))
)]
pub(super) async fn show(
    Reader { caller, mut conn }: Reader,
    Path(id): Path<String>,
) -> Result<Response> {
    Ok(Json(load(&mut conn, &caller, &id).await?).into_response())
}

#[derive(Deserialize)]
pub(super) struct FileQuery {
    version: Option<i64>,
    /// With `signature`, the download link of an e-mailed document (no token needed).
    expires: Option<i64>,
    signature: Option<String>,
}

#[utoipa::path(
    get, path = "/api/document/{id}/file", tag = "documents",
    params(
        ("id" = String, Path, description = "Document `_id`"),
        ("version" = Option<i64>, Query, description = "An older file version; default the current \
            one"),
        ("expires" = Option<i64>, Query, description = "With `signature` and `version`: the link \
            of an e-mailed document, which needs no token until it expires (Unix seconds; 7 days \
            after sending)"),
        ("signature" = Option<String>, Query, description = "The link's Ed25519 signature"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of a copy the client \
            holds: 304 when it is this version's")
    ),
    responses(
        (status = 200, description = "The file's bytes, with its stored content type",
            content(
                ("application/pdf"), ("image/png"), ("image/jpeg"), ("image/webp")
            )),
        (status = 304, description = "`If-None-Match` names the version's `ETag` (its SHA-256): \
            the client holds these bytes")
    )
)]
pub(super) async fn download(
    State(state): State<AppState>,
    caller: std::result::Result<MaybeCaller, ApiError>,
    Path(id): Path<String>,
    Query(query): Query<FileQuery>,
    headers: HeaderMap,
) -> Result<Response> {
    // A signed link opens its file whatever token comes with it (an HTTP client may send one
    // by default, expired or someone else's); without one that holds, the token decides.
    let by_link = query.signature.is_some() && linked(&state, &id, &query).is_ok();
    let file = {
        let mut conn = state.db.read().await?;
        match caller {
            _ if by_link => {}
            Err(refused) => return Err(refused),
            Ok(MaybeCaller(Some(caller))) => {
                // A client's view lists the current file only: an earlier version (a draft,
                // never released to them) is not theirs to download.
                let document = load(&mut conn, &caller, &id).await?;
                if let Some(v) = query.version
                    && !document.versions.iter().any(|f| f.version == v)
                {
                    return Err(ApiError::not_found("file version"));
                }
            }
            Ok(MaybeCaller(None)) => linked(&state, &id, &query)?,
        }
        store::file(&mut conn, &id, query.version)
            .await?
            .or_not_found("file version")?
    };
    let tag = format!("\"{}\"", file.sha256);
    // The bytes of a version never change: a client holding them gets 304 (RFC 9110 §13.1.2).
    let held = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == "*" || t == tag)
        });
    if held {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [
                (header::ETAG, tag),
                (header::CACHE_CONTROL, "private, no-cache".to_owned()),
            ],
        )
            .into_response());
    }
    let stream = state.objects.stream(&file.sha256).await?;
    let body = Body::from_stream(stream.map_err(std::io::Error::other));
    let disposition = format!(
        "attachment; filename=\"{}\"; filename*=UTF-8''{}",
        registry_core::document::ascii_file_name(&file.name),
        utf8_percent_encode(&file.name, NOT_ATTR_CHAR)
    );
    Ok((
        [
            (header::CONTENT_TYPE, file.content_type),
            (header::CONTENT_LENGTH, file.size.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::ETAG, tag),
            (header::CACHE_CONTROL, "private, no-cache".to_owned()),
        ],
        body,
    )
        .into_response())
}

/// What RFC 8187 `filename*` values percent-encode: everything but its `attr-char`s (a space is
/// `%20`, never `+`, which would stand for itself).
const NOT_ATTR_CHAR: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

/// A download without a token: allowed by the signed link of an e-mailed document (its version,
/// until it expires), else 401 as for any request without one.
fn linked(state: &AppState, id: &str, query: &FileQuery) -> Result<()> {
    let (Some(version), Some(expires), Some(signature)) =
        (query.version, query.expires, &query.signature)
    else {
        return Err(ApiError::Unauthorized(
            "Authentication required: send Authorization: Bearer <token>.".into(),
        ));
    };
    let link = FileLink {
        id,
        version,
        expires,
    };
    if link.holds(signature, &state.signing_key.verifying_key(), Utc::now()) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized(
            "This download link is not valid or has expired: ask for the document again, or log in."
                .into(),
        ))
    }
}
