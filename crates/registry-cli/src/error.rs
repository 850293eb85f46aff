//! Typed errors of the API client: the server's error envelope by status, and transport failures
//! that name the URL tried.

use registry_core::{ErrorBody, FieldError};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server could not be reached (refused, DNS, TLS, timeout). The message gives every
    /// cause down to the system's ("Connection refused", a DNS failure, a timeout).
    #[error("could not reach the server at {url}: {}", causes(source))]
    Connection {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    /// The server took the connection but gave no answer (or no next piece of one) within the
    /// client's timeout.
    #[error(
        "no answer from the server at {url} within {seconds} s: the request timed out \
         (REGISTRY_TIMEOUT_SECS sets how long to wait)"
    )]
    Timeout { url: String, seconds: u64 },
    /// 401: no token, a bad or expired one, or a deactivated account.
    #[error("not logged in or session expired: {}", .0.message)]
    Unauthorized(ErrorBody),
    /// 403: logged in, but the role may not do this. "permission denied: " comes first once, also
    /// when the server's message starts with it.
    #[error("permission denied: {}", strip_prefix_ci(&.0.message, "permission denied:"))]
    PermissionDenied(ErrorBody),
    /// 400 or 422: the request was refused field by field (or as a whole).
    #[error("{}", .0.message)]
    Validation(ErrorBody),
    /// 404.
    #[error("{}", .0.message)]
    NotFound(ErrorBody),
    /// 409 or 412: `duplicate_facility` (with the existing `_id`), `in_use`, `invalid_transition`,
    /// `version_mismatch`...
    #[error("{}", .0.message)]
    Conflict(ErrorBody),
    /// Any other error status (413, 429, 500...).
    #[error("the server answered {status}: {}", .body.message)]
    Server {
        status: reqwest::StatusCode,
        body: ErrorBody,
    },
    /// A local file could not be read or written (an upload's source, a download's target).
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A 2xx answer that is not the expected JSON (e.g. a server of another version).
    #[error("unexpected answer from {url}: {message}")]
    Decode { url: String, message: String },
}

/// `error` and each error under it, joined by `: `; a cause whose message its parent already
/// repeats is left out.
fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let message = cause.to_string();
        if !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        next = cause.source();
    }
    text
}

/// `text` without a leading `prefix` (ASCII case ignored) and the spaces after it.
fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> &'a str {
    match text.get(..prefix.len()) {
        Some(head) if head.eq_ignore_ascii_case(prefix) => text[prefix.len()..].trim_start(),
        _ => text,
    }
}

impl ClientError {
    /// The error envelope, for answers that carry one.
    pub fn body(&self) -> Option<&ErrorBody> {
        match self {
            ClientError::Unauthorized(b)
            | ClientError::PermissionDenied(b)
            | ClientError::Validation(b)
            | ClientError::NotFound(b)
            | ClientError::Conflict(b) => Some(b),
            ClientError::Server { body, .. } => Some(body),
            _ => None,
        }
    }

    /// The machine code of the envelope (`duplicate_facility`, `validation_failed`...).
    pub fn code(&self) -> Option<&str> {
        self.body().map(|b| b.code.as_str())
    }

    /// The failing fields of a validation error.
    pub fn field_errors(&self) -> &[FieldError] {
        self.body()
            .and_then(|b| b.errors.as_deref())
            .unwrap_or_default()
    }

    /// For `duplicate_facility`: the `_id` of the facility already registered.
    pub fn existing_id(&self) -> Option<&str> {
        match self {
            ClientError::Conflict(b) if b.code == "duplicate_facility" => b.id.as_deref(),
            _ => None,
        }
    }

    pub(crate) fn from_status(status: reqwest::StatusCode, text: &str) -> Self {
        let body = serde_json::from_str::<ErrorBody>(text).unwrap_or_else(|_| ErrorBody {
            message: if text.trim().is_empty() {
                status
                    .canonical_reason()
                    .unwrap_or("error without a message")
                    .to_owned()
            } else {
                text.trim().chars().take(300).collect()
            },
            code: "unknown".into(),
            errors: None,
            id: None,
        });
        match status.as_u16() {
            401 => ClientError::Unauthorized(body),
            403 => ClientError::PermissionDenied(body),
            400 | 422 => ClientError::Validation(body),
            404 => ClientError::NotFound(body),
            409 | 412 => ClientError::Conflict(body),
            _ => ClientError::Server { status, body },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(message: &str) -> String {
        ClientError::PermissionDenied(ErrorBody {
            message: message.into(),
            code: "permission_denied".into(),
            errors: None,
            id: None,
        })
        .to_string()
    }

    #[test]
    fn causes_are_chained_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("error sending request")]
        struct Outer(#[source] std::io::Error);
        let refused =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        assert_eq!(
            causes(&Outer(refused)),
            "error sending request: Connection refused"
        );
    }

    #[test]
    fn permission_denied_is_said_once() {
        assert_eq!(
            denied("permission denied: your role may not do this"),
            "permission denied: your role may not do this"
        );
        assert_eq!(
            denied("You may not grant or remove these roles."),
            "permission denied: You may not grant or remove these roles."
        );
    }
}
