//! Reading loosely-typed JSON payloads field by field, so that every failing field is reported at
//! once (wrong types are validation errors, unknown fields are ignored).

use crate::error::{FieldCode, FieldErrors};
use serde_json::{Map, Value};

/// A JSON object being read, with the path prefix used in field errors (`address[0].`).
pub struct ObjectReader<'a> {
    obj: &'a Map<String, Value>,
    prefix: String,
}

impl<'a> ObjectReader<'a> {
    pub fn new(obj: &'a Map<String, Value>, prefix: impl Into<String>) -> Self {
        ObjectReader {
            obj,
            prefix: prefix.into(),
        }
    }

    pub fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// `None` when the key is absent; `Some(&Value::Null)` when present and null.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key)
    }

    /// A string that must be present and not blank (trimmed).
    pub fn required_string(&self, key: &str, errs: &mut FieldErrors) -> Option<String> {
        match self.get(key) {
            None | Some(Value::Null) => {
                errs.push(self.path(key), FieldCode::Required, "is required");
                None
            }
            Some(v) => self.non_blank(key, v, errs),
        }
    }

    /// Absent → `None`; present → must be a non-blank string (it cannot be cleared).
    pub fn string_if_present(&self, key: &str, errs: &mut FieldErrors) -> Option<String> {
        match self.get(key) {
            None => None,
            Some(Value::Null) => {
                errs.push(self.path(key), FieldCode::Required, "cannot be empty");
                None
            }
            Some(v) => self.non_blank(key, v, errs),
        }
    }

    /// Absent → `None` (unchanged); null or blank → `Some(None)` (cleared); else `Some(Some(s))`.
    pub fn clearable_string(&self, key: &str, errs: &mut FieldErrors) -> Option<Option<String>> {
        match self.get(key)? {
            Value::Null => Some(None),
            Value::String(s) => {
                let t = s.trim();
                Some((!t.is_empty()).then(|| t.to_owned()))
            }
            _ => {
                errs.push(self.path(key), FieldCode::InvalidValue, "must be a string");
                None
            }
        }
    }

    fn non_blank(&self, key: &str, v: &Value, errs: &mut FieldErrors) -> Option<String> {
        match v {
            Value::String(s) if s.trim().is_empty() => {
                errs.push(self.path(key), FieldCode::Required, "cannot be empty");
                None
            }
            Value::String(s) => Some(s.trim().to_owned()),
            _ => {
                errs.push(self.path(key), FieldCode::InvalidValue, "must be a string");
                None
            }
        }
    }

    /// Absent or null → `None`; present → must be a boolean.
    pub fn bool_if_present(&self, key: &str, errs: &mut FieldErrors) -> Option<bool> {
        match self.get(key)? {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            _ => {
                errs.push(
                    self.path(key),
                    FieldCode::InvalidValue,
                    "must be true or false",
                );
                None
            }
        }
    }

    /// Absent → `None`; present → must be an array (null counts as an empty array).
    pub fn array_if_present(&self, key: &str, errs: &mut FieldErrors) -> Option<&'a [Value]> {
        match self.get(key)? {
            Value::Null => Some(&[]),
            Value::Array(items) => Some(items),
            _ => {
                errs.push(self.path(key), FieldCode::InvalidValue, "must be an array");
                None
            }
        }
    }
}

/// A record reference given as `"id"` or `{"_id": "id"}`.
pub fn reference_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Object(o) => match o.get("_id") {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            _ => None,
        },
        _ => None,
    }
}
