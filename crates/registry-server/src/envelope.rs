//! The last word on error shapes: whatever produced an error response (an extractor's rejection,
//! a middleware, a fallback), the client gets the one error envelope with the same status.
//! Also refuses over-long URIs here, in the envelope, well before hyper's own limit (64 KiB) at
//! which it would answer 414 with an empty body.

use axum::body::to_bytes;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use registry_core::ErrorBody;

/// Longest path and query the service reads; the web client's `?filters=` stay far below it.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// How much of a non-JSON error body is kept as the envelope's message.
const MAX_DETAIL_BYTES: usize = 512;

pub async fn every_error_in_the_envelope(req: Request, next: Next) -> Response {
    let uri_len = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_len > MAX_URI_BYTES {
        return envelope(
            StatusCode::URI_TOO_LONG,
            format!("The URI is longer than {MAX_URI_BYTES} bytes."),
        );
    }
    let response = next.run(req).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&response) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let detail = if status.is_client_error() && is_text(&parts.headers) {
        to_bytes(body, MAX_DETAIL_BYTES)
            .await
            .ok()
            .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
            .filter(|s| !s.is_empty())
    } else {
        None
    };
    let message = detail.unwrap_or_else(|| default_message(status));
    let rebuilt = envelope(status, message);
    // Keep what the producer said besides the body (Retry-After, Allow, WWW-Authenticate, ...).
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let (_, body) = rebuilt.into_parts();
    Response::from_parts(parts, body)
}

fn envelope(status: StatusCode, message: String) -> Response {
    let body = ErrorBody {
        message,
        code: code_for(status),
        errors: None,
        id: None,
    };
    (status, axum::Json(body)).into_response()
}

fn content_type(headers: &axum::http::HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn is_json(response: &Response) -> bool {
    let ct = content_type(response.headers());
    ct == "application/json" || ct.ends_with("+json")
}

fn is_text(headers: &axum::http::HeaderMap) -> bool {
    content_type(headers).starts_with("text/plain")
}

/// The envelope codes of product.md for the statuses the service's own code uses, and the
/// status's reason in snake case for the ones only a framework layer produces.
fn code_for(status: StatusCode) -> String {
    match status.as_u16() {
        400 => "bad_request".into(),
        401 => "unauthorized".into(),
        403 => "permission_denied".into(),
        404 => "not_found".into(),
        413 => "payload_too_large".into(),
        429 => "rate_limited".into(),
        500 => "internal".into(),
        _ => status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
            .replace(['-', ' '], "_"),
    }
}

fn default_message(status: StatusCode) -> String {
    if status.is_server_error() {
        // Never describe internals; a 5xx from a layer carries no detail worth leaking.
        return "The server could not answer this request; it has been logged.".into();
    }
    format!(
        "The request was refused: {}.",
        status.canonical_reason().unwrap_or("client error")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_envelope_table_and_reasons_otherwise() {
        assert_eq!(code_for(StatusCode::NOT_FOUND), "not_found");
        assert_eq!(code_for(StatusCode::URI_TOO_LONG), "uri_too_long");
        assert_eq!(code_for(StatusCode::REQUEST_TIMEOUT), "request_timeout");
        assert_eq!(
            code_for(StatusCode::UNSUPPORTED_MEDIA_TYPE),
            "unsupported_media_type"
        );
    }
}
