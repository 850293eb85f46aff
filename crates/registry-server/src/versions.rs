//! Optimistic concurrency for facilities: the ETag `W/"version"` on every answer that carries a
//! facility, and the `If-Match` precondition on edits.

use crate::error::{ApiError, Result};
use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use registry_core::api::Facility;

pub fn etag(version: i64) -> HeaderValue {
    HeaderValue::from_str(&format!("W/\"{version}\"")).expect("ascii")
}

/// The facility with its ETag.
pub fn with_etag(status: StatusCode, facility: Facility) -> Response {
    let tag = etag(facility.version);
    let mut response = (status, Json(facility)).into_response();
    response.headers_mut().insert(header::ETAG, tag);
    response
}

/// `If-Match` against the current version: absent passes; `*` passes; otherwise one of the listed
/// tags (`W/"3"`, `"3"` or `3`) must name it.
pub fn check_if_match(headers: &HeaderMap, version: i64) -> Result<()> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(());
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::BadRequest("If-Match must be text.".into()))?;
    let matches = value.split(',').map(str::trim).any(|tag| {
        tag == "*"
            || tag
                .trim_start_matches("W/")
                .trim_matches('"')
                .parse::<i64>()
                .ok()
                == Some(version)
    });
    if matches {
        Ok(())
    } else {
        Err(ApiError::VersionMismatch)
    }
}
