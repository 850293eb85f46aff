//! The last word on error shapes: whatever produced an error response (an extractor's rejection,
//! a middleware, a fallback), the client gets the one error envelope with the same status.
//! Also refuses over-long URIs here, in the envelope, well before hyper's own limit (64 KiB).
//!
//! Requests hyper cannot parse at all (a URI over 64 KiB, a malformed or oversized header) never
//! reach the router: hyper answers them itself with an empty body and closes the connection.
//! [`EnvelopeIo`] sits between hyper and the socket and gives those answers the envelope too.

use axum::body::to_bytes;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use registry_core::ErrorBody;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

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

/// A connection that rewrites hyper's automatic answer to an unparseable request (a bare
/// `400`/`414`/`431` head with `content-length: 0`, written before any response of that request)
/// into the same status with the error envelope as its body. Every other byte passes unchanged:
/// the service's own error answers always carry a body, so they never match.
pub struct EnvelopeIo<T> {
    inner: T,
    /// A rewritten answer still to be written, and how much of it already was.
    pending: Vec<u8>,
    written: usize,
}

impl<T> EnvelopeIo<T> {
    pub fn new(inner: T) -> Self {
        EnvelopeIo {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<T: AsyncWrite + Unpin> EnvelopeIo<T> {
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for EnvelopeIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for EnvelopeIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        if let Some(answer) = rewrite_parse_error(buf) {
            this.pending = answer;
            // Hyper flushes right after its error head; the rewritten answer goes out then.
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The envelope answer for hyper's bare parse-error head, or `None` for anything else. Writes are
/// not vectored (the default `is_write_vectored` is false), so hyper writes such a head whole, in
/// one call.
fn rewrite_parse_error(buf: &[u8]) -> Option<Vec<u8>> {
    let head = std::str::from_utf8(buf).ok()?;
    let rest = head.strip_prefix("HTTP/1.1 ")?;
    let status = match rest.get(..3)? {
        "400" => StatusCode::BAD_REQUEST,
        "414" => StatusCode::URI_TOO_LONG,
        "431" => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let lines: Vec<&str> = head
        .strip_suffix("\r\n\r\n")?
        .split("\r\n")
        .skip(1)
        .collect();
    if !lines
        .iter()
        .any(|l| l.eq_ignore_ascii_case("content-length: 0"))
    {
        return None;
    }
    let message = match status {
        StatusCode::URI_TOO_LONG => format!("The URI is longer than {MAX_URI_BYTES} bytes."),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "The request headers are too large.".into(),
        _ => "The request could not be parsed: malformed request line or header.".into(),
    };
    let body = serde_json::to_vec(&ErrorBody {
        message,
        code: code_for(status),
        errors: None,
        id: None,
    })
    .ok()?;
    // With the headers `app::router`'s layers give every other answer.
    let mut answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         x-content-type-options: nosniff\r\ncache-control: no-store\r\nx-frame-options: DENY\r\n",
        body.len()
    );
    for line in lines {
        if !line.to_ascii_lowercase().starts_with("content-length:") {
            answer.push_str(line);
            answer.push_str("\r\n");
        }
    }
    answer.push_str("\r\n");
    let mut answer = answer.into_bytes();
    answer.extend_from_slice(&body);
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_only_bare_parse_error_heads() {
        let hyper_head = b"HTTP/1.1 414 URI Too Long\r\nconnection: close\r\ncontent-length: 0\r\ndate: Mon, 23 Nov 2026 03:28:37 GMT\r\n\r\n";
        let answer = String::from_utf8(rewrite_parse_error(hyper_head).unwrap()).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"));
        assert!(head.contains("connection: close"));
        assert!(head.contains("date: Mon"));
        for header in [
            "x-content-type-options: nosniff",
            "cache-control: no-store",
            "x-frame-options: DENY",
        ] {
            assert!(head.contains(header), "{header}");
        }
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["code"], "uri_too_long");
        // The service's own answers carry a body, or are not parse-error statuses.
        assert!(rewrite_parse_error(b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 52\r\n\r\n").is_none());
        assert!(
            rewrite_parse_error(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n").is_none()
        );
        assert!(
            rewrite_parse_error(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}")
                .is_none()
        );
    }

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
