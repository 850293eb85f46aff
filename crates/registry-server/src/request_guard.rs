//! Checks made on every request before routing: no control characters in the path. A NUL byte
//! cannot even be stored in PostgreSQL text, so such a path is answered here, the same way on both
//! databases: 404 (no record id holds one). Query values are checked where they are read
//! (`extract::ListParams`: 422, after the caller's token and permission).
//! And an answer given before the request's body was read to its end says `Connection: close`;
//! a client's `X-Request-Id` is kept only when it is fit to stand in the log; a body declared
//! larger than any endpoint takes is refused before it is read.

use crate::error::ApiError;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

/// A request refused before its body was read (a JSON body sent to the upload, a file over its
/// limit, a token missing) leaves the rest of the body on the connection, so hyper closes it
/// after the answer; without a `Connection: close` the client would send its next request on a
/// connection that is going away. The header makes the close announced, and the client opens a
/// new connection instead of failing.
pub async fn close_after_unread_body(req: Request, next: Next) -> Response {
    let has_body = req.headers().contains_key(header::TRANSFER_ENCODING)
        || req
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    if !has_body {
        return next.run(req).await;
    }
    let read = Arc::new(AtomicBool::new(false));
    let (parts, body) = req.into_parts();
    let body = Body::new(Watched {
        inner: body,
        read: read.clone(),
    });
    let mut response = next.run(Request::from_parts(parts, body)).await;
    if !read.load(Ordering::Relaxed) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A request body that notes when it was read to its end.
struct Watched {
    inner: Body,
    read: Arc<AtomicBool>,
}

impl http_body::Body for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.read.store(true, Ordering::Relaxed);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A body whose declared length is more than any endpoint takes (the largest upload with its
/// fields) is refused with 413 before it is read: a client waiting for `100 Continue` hears at
/// once, and nothing is streamed to disk.
pub async fn refuse_declared_oversize(
    axum::extract::State(state): axum::extract::State<crate::state::AppState>,
    req: Request,
    next: Next,
) -> Response {
    let most = state.config.documents.upload_limit + 2 * crate::extract::JSON_BODY_LIMIT as u64;
    if crate::extract::declared_length(req.headers()).is_some_and(|n| n > most) {
        return ApiError::PayloadTooLarge(format!(
            "The request body is larger than any this service takes ({} MiB).",
            most / (1024 * 1024)
        ))
        .into_response();
    }
    next.run(req).await
}

/// A client's `X-Request-Id` names the request in the log and in the answer: kept when it is 1
/// to 64 letters, digits, `-`, `_` or `.` (a UUID, a proxy's id), else dropped so that one is
/// made for the request (markup, kilobytes or control bytes in the log would be the caller's).
pub async fn drop_unfit_request_id(mut req: Request, next: Next) -> Response {
    let fit = |v: &HeaderValue| {
        let id = v.as_bytes();
        (1..=64).contains(&id.len())
            && id
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let ids = req.headers().get_all(REQUEST_ID);
    if ids.iter().count() > 1 || ids.iter().any(|v| !fit(v)) {
        req.headers_mut().remove(REQUEST_ID);
    }
    next.run(req).await
}

/// The request id's header.
pub const REQUEST_ID: &str = "x-request-id";

pub async fn refuse_control_characters(req: Request, next: Next) -> Response {
    if has_encoded_control(req.uri().path()) {
        return ApiError::NotFound("No such record.".into()).into_response();
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
