//! The one error envelope of the API, and the field error codes of product.md §1.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every error answer: `{"message", "code", "errors"?, "_id"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    pub message: String,
    pub code: String,
    /// Every failing field, for `validation_failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldError>>,
    /// The existing record, for `duplicate_facility`.
    #[serde(rename = "_id", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FieldError {
    /// Path of the field in the request, e.g. `address[0].city`.
    pub field: String,
    pub code: FieldCode,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, code: FieldCode, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            code,
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FieldCode {
    Required,
    InvalidCnpj,
    CnpjLocked,
    InvalidTelephone,
    InvalidDepartment,
    InvalidPractice,
    InvalidRadioisotope,
    DuplicateRadioisotope,
    InvalidQuantity,
    InvalidResponsibility,
    DuplicateRole,
    UserNotFound,
    UserInactive,
    GroupNotFound,
    InvalidEmail,
    WeakPassword,
    InvalidValue,
}

/// The `(field, code)` of each error, as tests compare them.
#[cfg(test)]
pub(crate) fn codes(errors: &[FieldError]) -> Vec<(&str, FieldCode)> {
    errors.iter().map(|e| (e.field.as_str(), e.code)).collect()
}

/// Asserts that `result` failed with exactly these `(field, code)`s, in this order; its errors,
/// for further checks.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_codes<T: std::fmt::Debug>(
    result: Result<T, Vec<FieldError>>,
    expected: &[(&str, FieldCode)],
) -> Vec<FieldError> {
    let errors = result.unwrap_err();
    assert_eq!(codes(&errors), expected);
    errors
}

/// Collects field errors while a payload is read, so that all of them are reported at once.
#[derive(Debug, Default)]
pub struct FieldErrors(Vec<FieldError>);

impl FieldErrors {
    pub fn push(&mut self, field: impl Into<String>, code: FieldCode, message: impl Into<String>) {
        self.0.push(FieldError::new(field, code, message));
    }

    /// `value` as it is; when it is `None`, the error is recorded too.
    pub fn check<T>(
        &mut self,
        value: Option<T>,
        field: impl Into<String>,
        code: FieldCode,
        message: impl Into<String>,
    ) -> Option<T> {
        if value.is_none() {
            self.push(field, code, message);
        }
        value
    }

    pub fn extend(&mut self, more: impl IntoIterator<Item = FieldError>) {
        self.0.extend(more);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(value)` when nothing failed.
    pub fn finish<T>(self, value: T) -> Result<T, Vec<FieldError>> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(self.0)
        }
    }

    pub fn into_vec(self) -> Vec<FieldError> {
        self.0
    }

    /// Whether an error names `field`.
    pub fn has(&self, field: &str) -> bool {
        self.0.iter().any(|e| e.field == field)
    }
}

impl From<Vec<FieldError>> for FieldErrors {
    fn from(errors: Vec<FieldError>) -> Self {
        Self(errors)
    }
}
