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
/// tags (`W/"3"`, `"3"` or, leniently, a bare `3`) must name it. Anything else (`W/W/"3"`,
/// `""3""`, `"+3"`, bytes that are not text) names no version: 412, as a stale tag does.
pub fn check_if_match(headers: &HeaderMap, version: i64) -> Result<()> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(());
    };
    let matches = value.to_str().is_ok_and(|value| {
        value
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag_version(tag) == Some(version))
    });
    if matches {
        Ok(())
    } else {
        Err(ApiError::VersionMismatch)
    }
}

/// The version an entity tag names: `W/"3"`, `"3"` or `3`, digits only, as written (no `03`).
fn tag_version(tag: &str) -> Option<i64> {
    let opaque = tag.strip_prefix("W/").unwrap_or(tag);
    let digits = match opaque.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"')?,
        None if tag == opaque => opaque,
        None => return None,
    };
    // Tags compare as text (RFC 9110 §8.8.3.2): `"03"` is not the `"3"` the service sends.
    let canonical = digits == "0" || !digits.starts_with('0');
    if digits.is_empty() || !canonical || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
