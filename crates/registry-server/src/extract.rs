//! Request extractors: the JSON body (read lazily, so permission checks come before parse
//! errors), path and query parameters with the service's error answers, and list parameters
//! (`list_params.rs`: `?filters=<json>` as the web client sends them, or plain params).

use crate::error::ApiError;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{StatusCode, header, request::Parts};
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

mod list_params;
pub use list_params::ListParams;

pub const DEFAULT_PAGE_SIZE: i64 = 20;
/// JSON bodies are small; uploads have their own limits on their routes.
pub const JSON_BODY_LIMIT: usize = 1024 * 1024;

pub const MAX_PAGE_SIZE: i64 = 200;
/// The deepest page that may be asked for: beyond it `(pageNum − 1) × pageSize` would approach
/// the range of a 64-bit offset; no list is that long.
pub const MAX_PAGE_NUM: i64 = 1_000_000_000;

/// A request body that must be JSON; parsed when the handler asks for it. A body that could not
/// be read (over the limit, cut off) is answered only then too: permission comes before body
/// (docs/decisions.md), so a caller who may not act learns nothing from the body's size.
pub struct JsonBody {
    bytes: Result<Bytes, StatusCode>,
    is_json: bool,
    /// A `Content-Encoding` other than `identity` (a compressed body), named for the answer.
    encoding: Option<String>,
}

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|m| {
                let m = m.trim().to_ascii_lowercase();
                m == "application/json" || m.ends_with("+json")
            })
            .unwrap_or(false);
        let encoding = req
            .headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
            .filter(|e| !e.eq_ignore_ascii_case("identity"));
        // A length declared over the limit is refused without reading a byte: a client that
        // waits for `100 Continue` hears at once, not after sending it all. A body read is cut at
        // the limit whatever the route's own (a multipart route's is an upload's).
        let bytes = if declared_length(req.headers()) > Some(JSON_BODY_LIMIT as u64) {
            Err(StatusCode::PAYLOAD_TOO_LARGE)
        } else {
            // Whole within the body timeout: a body that never pauses long but never ends (a
            // byte every few seconds) would hold its connection and memory for ever.
            let within = state.config.limits.body_timeout;
            tokio::time::timeout(within, read_body(req.into_body(), JSON_BODY_LIMIT))
                .await
                .unwrap_or(Err(StatusCode::REQUEST_TIMEOUT))
        };
        Ok(JsonBody {
            bytes,
            is_json,
            encoding,
        })
    }
}

/// `body` in one buffer, up to `limit` bytes (413 past it). Each piece is copied as it comes and
/// let go: kept as they came (as `Bytes::from_request` keeps them), the pieces of a body sent a
/// byte at a time would each hold on to a read buffer of the connection, some KiB a byte.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, StatusCode> {
    let mut body = http_body_util::Limited::new(body, limit);
    let mut read = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| match e.is::<http_body_util::LengthLimitError>() {
            true => StatusCode::PAYLOAD_TOO_LARGE,
            false => StatusCode::BAD_REQUEST,
        })?;
        if let Some(data) = frame.data_ref() {
            read.extend_from_slice(data);
        }
    }
    Ok(read.freeze())
}

/// The body's length as its `Content-Length` declares it.
pub fn declared_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// `bytes` read as JSON, or why they cannot be.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Value, String> {
    registry_core::json::parse(bytes).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            // Well-formed, but deeper than the parser follows (serde_json's 128 levels).
            format!("The JSON nests too deeply (at most 127 levels of arrays and objects): {e}.")
        } else {
            format!("Malformed JSON: {e}.")
        }
    })
}

impl JsonBody {
    /// The body: a JSON object, within the limits of `payload::check_body_limits`.
    pub fn value(&self) -> Result<Value, ApiError> {
        let bytes = self.bytes()?;
        if !self.is_json {
            return Err(ApiError::BadRequest(
                "Expected a JSON body with Content-Type: application/json.".into(),
            ));
        }
        // Read as sent, a compressed body would be judged as the wrong bytes.
        if let Some(encoding) = &self.encoding {
            return Err(ApiError::BadRequest(format!(
                "Content-Encoding \"{encoding}\" is not accepted: send the body uncompressed."
            )));
        }
        let value = parse_json(bytes).map_err(ApiError::BadRequest)?;
        // Every body of the API is an object: other JSON (`[]`, `"x"`) is refused as a whole, not
        // read as an object whose fields are all missing.
        if !value.is_object() {
            return Err(not_an_object());
        }
        let errors = registry_core::payload::check_body_limits(&value);
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(value)
    }

    /// The bytes as sent, or why they could not be read.
    fn bytes(&self) -> Result<&Bytes, ApiError> {
        self.bytes.as_ref().map_err(|status| {
            if *status == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge("The request body is larger than allowed.".into())
            } else if *status == StatusCode::REQUEST_TIMEOUT {
                ApiError::BadRequest(
                    "The request body did not arrive whole within the time allowed.".into(),
                )
            } else {
                ApiError::BadRequest("The request body could not be read.".into())
            }
        })
    }

    /// The body as a JSON object; other JSON is a validation error of the whole body (field `""`),
    /// as a field of the wrong type is.
    pub fn object(&self) -> Result<Map<String, Value>, ApiError> {
        match self.value()? {
            Value::Object(fields) => Ok(fields),
            _ => Err(not_an_object()),
        }
    }

    /// The body of a request whose path names the record (`PUT /facility/{id}/edit`): an `_id`
    /// in the body may repeat the path's, never name another record (422 `_id`, with the
    /// payload's own field errors, `others`, so that one 422 names every failing field).
    pub fn value_for(
        &self,
        path_id: &str,
        others: impl FnOnce(&Value) -> Vec<registry_core::FieldError>,
    ) -> Result<Value, ApiError> {
        let value = self.value()?;
        let refused = match value.get("_id") {
            None | Some(Value::Null) => None,
            Some(Value::String(body_id)) if body_id.trim() == path_id => None,
            Some(Value::String(_)) => {
                Some(format!("does not match the record in the path ({path_id})"))
            }
            Some(_) => Some("must be a string".to_owned()),
        };
        match refused {
            Some(message) => {
                let id = registry_core::FieldError::new(
                    "_id",
                    registry_core::FieldCode::InvalidValue,
                    message,
                );
                let others = others(&value).into_iter().filter(|e| e.field != "_id");
                Err(ApiError::Validation(
                    std::iter::once(id).chain(others).collect(),
                ))
            }
            None => Ok(value),
        }
    }

    /// For a request whose path names the record and that needs no body (`POST /test/{id}`):
    /// no body at all, or one that [`JsonBody::value_for`] takes. A malformed body is refused
    /// rather than ignored: the request may not be what its sender meant.
    pub fn nothing_or_for(&self, path_id: &str) -> Result<(), ApiError> {
        if self.bytes()?.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        self.value_for(path_id, |_| Vec::new()).map(drop)
    }

    /// The body's `_id`, as [`JsonBody::id`]; when it is refused, the answer also lists the
    /// payload's own field errors (`others`), so that one 422 names every failing field
    /// (product.md §1). With an `_id` the handler reads the payload itself.
    pub fn id_along(
        value: &Value,
        others: impl FnOnce() -> Vec<registry_core::FieldError>,
    ) -> Result<String, ApiError> {
        Self::id(value).map_err(|e| match e {
            ApiError::Validation(mut errors) => {
                errors.extend(others());
                ApiError::Validation(errors)
            }
            other => other,
        })
    }

    /// The body's `_id` (a required string), for the POST forms that carry the id in the body.
    pub fn id(value: &Value) -> Result<String, ApiError> {
        match value.get("_id") {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
            Some(Value::String(_) | Value::Null) | None => Err(ApiError::field(
                "_id",
                registry_core::FieldCode::Required,
                "is required",
            )),
            Some(_) => Err(ApiError::field(
                "_id",
                registry_core::FieldCode::InvalidValue,
                "must be a string",
            )),
        }
    }
}

/// A body that is JSON but not an object (`[]`, `"x"`): a validation error of the whole body
/// (field `""`), as a field of the wrong type is.
fn not_an_object() -> ApiError {
    ApiError::field(
        "",
        registry_core::FieldCode::InvalidValue,
        "the body must be a JSON object",
    )
}

/// Path parameters, refused in the envelope: a segment that cannot be decoded (`%ff` is not
/// UTF-8) names no record, so the answer is 404 like any other unknown id.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| Path(value))
            .map_err(|_| ApiError::NotFound("No such record: the path is not valid.".into()))
    }
}

/// Query parameters, refused in the envelope with 400.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| Query(value))
            .map_err(|e| {
                // axum's text names the failing parameter after a prefix of its own.
                let text = e.body_text();
                let detail = text
                    .strip_prefix("Failed to deserialize query string: ")
                    .unwrap_or(&text);
                ApiError::BadRequest(format!("The query string could not be read: {detail}."))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use http_body_util::StreamBody;
    use hyper::body::Frame;
    use std::sync::Arc;

    /// A body sent a byte at a time holds no piece once it is read. Each piece here is a slice
    /// of a 4 KiB buffer of its own, as a connection's reads are: when the next piece is asked
    /// for, the buffer of the one before must be free again.
    #[tokio::test]
    async fn a_body_read_a_byte_at_a_time_holds_no_piece() {
        let text = r#"{"name": "Clínica"}"#.as_bytes();
        let buffers: Arc<Vec<Bytes>> =
            Arc::new(text.iter().map(|&b| Bytes::from(vec![b; 4096])).collect());
        let pieces = futures::stream::iter(0..text.len()).map({
            let buffers = Arc::clone(&buffers);
            move |i| {
                if i > 0 {
                    assert!(buffers[i - 1].is_unique(), "piece {} is still held", i - 1);
                }
                Ok::<_, std::convert::Infallible>(Frame::data(buffers[i].slice(0..1)))
            }
        });
        let read = read_body(Body::new(StreamBody::new(pieces)), JSON_BODY_LIMIT)
            .await
            .unwrap();
        assert_eq!(&read[..], text);
        let over = read_body(Body::from(vec![b' '; 11]), 10).await;
        assert_eq!(over, Err(StatusCode::PAYLOAD_TOO_LARGE));
    }
}
