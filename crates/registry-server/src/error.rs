//! The HTTP error type: every failure becomes the one error envelope with its status; internal
//! errors are logged and never described to the client.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use registry_core::{ErrorBody, FieldCode, FieldError, FieldErrors};

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{message}")]
    Conflict {
        code: &'static str,
        message: String,
        id: Option<String>,
    },
    #[error("the record changed since it was read")]
    VersionMismatch,
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("validation failed")]
    Validation(Vec<FieldError>),
    #[error("too many attempts")]
    RateLimited { retry_after_secs: u64 },
    /// The database cannot be reached (or has no free connection) right now.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// The object store (the S3 service, or the files folder) cannot be reached or used right
    /// now; answered like [`ApiError::Unavailable`].
    #[error("the file storage is unavailable: {0}")]
    StorageUnavailable(String),
    #[error("internal error: {0:#}")]
    Internal(#[from] anyhow::Error),
}

/// A record looked up by id: there, or 404 `{what} not found`.
pub trait OrNotFound<T> {
    fn or_not_found(self, what: &str) -> Result<T>;
}

impl<T> OrNotFound<T> for Option<T> {
    fn or_not_found(self, what: &str) -> Result<T> {
        self.ok_or_else(|| ApiError::not_found(what))
    }
}

/// The field error of a payload whose `field` names no `what` with the `_id` `id`.
pub fn no_such(field: &str, what: &str, id: &str) -> FieldError {
    FieldError::new(
        field,
        FieldCode::InvalidValue,
        format!("names no {what} with _id {id}"),
    )
}

impl ApiError {
    /// A multipart upload with a second `file` part: which one was meant is not for the server
    /// to guess.
    pub fn second_file() -> Self {
        ApiError::field(
            "file",
            FieldCode::InvalidValue,
            "is given twice: an upload carries one `file` part",
        )
    }

    pub fn not_found(what: &str) -> Self {
        ApiError::NotFound(format!("{what} not found"))
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Conflict {
            code,
            message: message.into(),
            id: None,
        }
    }

    pub fn field(field: &str, code: FieldCode, message: impl Into<String>) -> Self {
        ApiError::Validation(vec![FieldError::new(field, code, message)])
    }

    pub fn denied() -> Self {
        ApiError::PermissionDenied("permission denied: your role may not do this".into())
    }

    /// The answer to a payload whose reader found `errors`, with the field errors that looking
    /// up its references gave (`found`) on the other fields, so that one answer lists every
    /// failing field.
    pub fn with_reference_errors<T>(mut errors: FieldErrors, found: Result<T>) -> Self {
        match found {
            Err(ApiError::Validation(more)) => {
                let more: Vec<FieldError> =
                    more.into_iter().filter(|e| !errors.has(&e.field)).collect();
                errors.extend(more);
                ApiError::Validation(errors.into_vec())
            }
            Err(other) => other,
            Ok(_) => ApiError::Validation(errors.into_vec()),
        }
    }
}

/// Seconds a client is asked to wait when the database or the file storage is unavailable.
const UNAVAILABLE_RETRY_AFTER_SECS: u64 = 5;

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        if is_connection_failure(&e) {
            crate::pg_reads::connection_failed();
        }
        match &e {
            // A check-then-write that lost a race with a concurrent request: the database's
            // constraint caught what the check could not see yet.
            sqlx::Error::Database(d) if d.is_unique_violation() => ApiError::conflict(
                "conflict",
                "A record with the same unique value was just saved by another request; reload and retry.",
            ),
            // PostgreSQL gave up one of two transactions that waited for each other (40P01) or
            // could not serialise (40001): nothing of it was written, and a retry goes through.
            sqlx::Error::Database(d) if matches!(d.code().as_deref(), Some("40P01" | "40001")) => {
                // Logged: writers that lock in one order never deadlock, so one is a bug to find.
                tracing::warn!(error = %d, "a transaction was given up by the database");
                ApiError::conflict(
                    "conflict",
                    "Another request changed the same records at the same moment; nothing was saved: retry.",
                )
            }
            sqlx::Error::Database(d) if d.is_foreign_key_violation() => ApiError::conflict(
                "conflict",
                "A record this one refers to was just changed or removed by another request; reload and retry.",
            ),
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                ApiError::Unavailable(e.to_string())
            }
            // PostgreSQL going away under a pooled connection: connection exceptions (class 08)
            // and operator intervention (57P01–57P03: shutdown, crash, not accepting yet).
            sqlx::Error::Database(_) if is_connection_failure(&e) => {
                ApiError::Unavailable(e.to_string())
            }
            _ => ApiError::Internal(e.into()),
        }
    }
}

/// A connection that broke or could not be made (not a full pool, not a refused statement).
fn is_connection_failure(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::Protocol(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(d) => d
            .code()
            .is_some_and(|c| c.starts_with("08") || c.starts_with("57P0")),
        _ => false,
    }
}

fn validation_message(errors: &[FieldError]) -> String {
    let parts: Vec<String> = errors
        .iter()
        .take(5)
        .map(|e| {
            if e.field.is_empty() {
                e.message.clone()
            } else {
                format!("{} {}", e.field, e.message)
            }
        })
        .collect();
    let more = errors.len().saturating_sub(5);
    let tail = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    format!("Invalid input: {}{tail}.", parts.join("; "))
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, message) = match &self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, "bad_request", m.clone()),
            ApiError::Unauthorized(m) => (StatusCode::UNAUTHORIZED, "unauthorized", m.clone()),
            ApiError::PermissionDenied(m) => (StatusCode::FORBIDDEN, "permission_denied", m.clone()),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, "not_found", m.clone()),
            ApiError::Conflict { code, message, .. } => (StatusCode::CONFLICT, *code, message.clone()),
            ApiError::VersionMismatch => (
                StatusCode::PRECONDITION_FAILED,
                "version_mismatch",
                "The record was changed by someone else since you read it (If-Match does not match); reload and retry.".into(),
            ),
            ApiError::PayloadTooLarge(m) => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", m.clone()),
            ApiError::Validation(errors) => (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed", validation_message(errors)),
            ApiError::RateLimited { retry_after_secs } => (
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!(
                    "Too many attempts; try again in {}.",
                    registry_core::text::count(*retry_after_secs, "second", "seconds")
                ),
            ),
            ApiError::Unavailable(cause) => {
                tracing::warn!(error = %cause, "database unavailable");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    format!("The service cannot reach its database right now; retry in {UNAVAILABLE_RETRY_AFTER_SECS} seconds."),
                )
            }
            ApiError::StorageUnavailable(cause) => {
                tracing::warn!(error = %cause, "file storage unavailable");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    format!("The service cannot reach its file storage right now; retry in {UNAVAILABLE_RETRY_AFTER_SECS} seconds."),
                )
            }
            ApiError::Internal(e) => {
                tracing::error!(error = format!("{e:#}"), "internal error");
                (StatusCode::INTERNAL_SERVER_ERROR, "internal", "Internal server error; it has been logged.".into())
            }
        };
        let body = ErrorBody {
            message,
            code: code.to_owned(),
            errors: match &self {
                ApiError::Validation(e) => Some(e.clone()),
                _ => None,
            },
            id: match &self {
                ApiError::Conflict { id, .. } => id.clone(),
                _ => None,
            },
        };
        let mut response = (status, axum::Json(body)).into_response();
        match self {
            ApiError::Unauthorized(_) => {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            ApiError::RateLimited { retry_after_secs } => {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            }
            ApiError::Unavailable(_) | ApiError::StorageUnavailable(_) => {
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(UNAVAILABLE_RETRY_AFTER_SECS),
                );
            }
            _ => {}
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::ApiError;
    use sqlx::error::{DatabaseError, ErrorKind};

    /// A database error with only a SQLSTATE, as a driver reports one.
    #[derive(Debug)]
    struct Coded(&'static str);

    impl std::fmt::Display for Coded {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "SQLSTATE {}", self.0)
        }
    }

    impl std::error::Error for Coded {}

    impl DatabaseError for Coded {
        fn message(&self) -> &str {
            "coded"
        }
        fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
            Some(self.0.into())
        }
        fn kind(&self) -> ErrorKind {
            ErrorKind::Other
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
    }

    fn from_code(code: &'static str) -> ApiError {
        sqlx::Error::Database(Box::new(Coded(code))).into()
    }

    #[test]
    fn a_database_going_away_is_unavailable_not_internal() {
        // 57P01 admin shutdown (a restart under a pooled connection), 57P03 not accepting
        // connections yet, 08006 connection failure.
        for code in ["57P01", "57P02", "57P03", "08006", "08003"] {
            assert!(
                matches!(from_code(code), ApiError::Unavailable(_)),
                "{code}"
            );
        }
        // A query's own failure stays an internal error.
        for code in ["42P01", "22P02", "57014"] {
            assert!(matches!(from_code(code), ApiError::Internal(_)), "{code}");
        }
    }
}
