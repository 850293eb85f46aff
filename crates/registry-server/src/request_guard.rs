//! Checks made on every request before routing: no control characters in the path or the query
//! string. A NUL byte cannot even be stored in PostgreSQL text, so such requests are answered here,
//! the same way on both databases: 404 for a path (no record id holds one), 422 for a query value.

use crate::error::ApiError;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use registry_core::FieldError;

pub async fn refuse_control_characters(req: Request, next: Next) -> Response {
    if has_encoded_control(req.uri().path()) {
        return ApiError::NotFound("No such record.".into()).into_response();
    }
    if let Some(query) = req.uri().query() {
        let errors: Vec<FieldError> = url::form_urlencoded::parse(query.as_bytes())
            .filter_map(|(key, value)| registry_core::payload::check_text(&key, &value))
            .collect();
        if !errors.is_empty() {
            return ApiError::Validation(errors).into_response();
        }
    }
    next.run(req).await
}

/// Whether a percent-encoded path holds `%00`–`%1F` or `%7F` (raw ones cannot reach us: the URI
/// parser refuses them).
fn has_encoded_control(path: &str) -> bool {
    path.as_bytes().windows(3).any(|w| {
        w[0] == b'%'
            && std::str::from_utf8(&w[1..])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .is_some_and(|b| b < 0x20 || b == 0x7f)
    })
}

#[cfg(test)]
mod tests {
    use super::has_encoded_control;

    #[test]
    fn finds_encoded_control_bytes() {
        assert!(has_encoded_control("/api/facility/%00"));
        assert!(has_encoded_control("/api/facility/ab%1Fcd"));
        assert!(has_encoded_control("/api/facility/%7f"));
        assert!(!has_encoded_control("/api/facility/0190a1b2-%20"));
        assert!(!has_encoded_control("/api/facility/%ff"));
        assert!(!has_encoded_control("/api/facility/%"));
    }
}
