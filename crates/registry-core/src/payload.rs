//! Reading loosely-typed JSON payloads field by field, so that every failing field is reported at
//! once (wrong types are validation errors, unknown fields are ignored). The limits a whole body
//! is checked against first are in `limits`.

use crate::error::{FieldCode, FieldError, FieldErrors};
use serde_json::{Map, Value};

mod limits;

pub use limits::{
    MAX_ARRAY_ITEMS, MAX_LONG_TEXT, MAX_PASSWORD, MAX_SHORT_TEXT, check_body_limits,
    check_object_limits, check_text, is_forbidden_control, text_limit,
};

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

    /// The reader of a whole request body; the body must be a JSON object.
    pub fn body(body: &'a Value) -> Result<Self, Vec<FieldError>> {
        match body.as_object() {
            Some(obj) => Ok(ObjectReader::new(obj, "")),
            None => Err(vec![FieldError::new(
                "",
                FieldCode::InvalidValue,
                "the body must be a JSON object",
            )]),
        }
    }

    /// The reader of one item of a list, at `path` (`address[0]`, its fields `address[0].street`);
    /// when the item is not an object, `message` is reported on `path` and there is none.
    pub fn item(
        item: &'a Value,
        path: String,
        message: &str,
        errs: &mut FieldErrors,
    ) -> Option<Self> {
        let Some(obj) = item.as_object() else {
            errs.push(path, FieldCode::InvalidValue, message);
            return None;
        };
        Some(ObjectReader::new(obj, path + "."))
    }

    pub fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// `None` when the key is absent; `Some(&Value::Null)` when present and null.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key)
    }

    /// A value that must be present and not null.
    pub fn required(&self, key: &str, errs: &mut FieldErrors) -> Option<&'a Value> {
        self.required_if(true, key, "is required", errs)
    }

    /// A value that must be present and not null when `required` (on create), `message` otherwise;
    /// when not required (on edit), an absent key is `None` but a null one still fails.
    pub fn required_if(
        &self,
        required: bool,
        key: &str,
        message: &str,
        errs: &mut FieldErrors,
    ) -> Option<&'a Value> {
        match self.get(key) {
            None if !required => None,
            None | Some(Value::Null) => {
                errs.push(self.path(key), FieldCode::Required, message);
                None
            }
            Some(v) => Some(v),
        }
    }

    /// A value that must be present and not null when `required` (as in
    /// [`required_if`](Self::required_if)), read by `parse`; when `parse` refuses it, `code` and
    /// `message` are reported on its path.
    pub fn parsed_if<T>(
        &self,
        required: bool,
        key: &str,
        parse: impl FnOnce(&'a Value) -> Option<T>,
        code: FieldCode,
        message: impl Into<String>,
        errs: &mut FieldErrors,
    ) -> Option<T> {
        let v = self.required_if(required, key, "is required", errs)?;
        errs.check(parse(v), self.path(key), code, message)
    }

    /// A string that must be present and not blank (trimmed).
    pub fn required_string(&self, key: &str, errs: &mut FieldErrors) -> Option<String> {
        let v = self.required(key, errs)?;
        self.non_blank(key, v, errs)
    }

    /// [`required_string`](Self::required_string) when `required` (on create); otherwise
    /// [`string_if_present`](Self::string_if_present) (on edit: optional, not clearable).
    pub fn string_required_if(
        &self,
        required: bool,
        key: &str,
        errs: &mut FieldErrors,
    ) -> Option<String> {
        if required {
            self.required_string(key, errs)
        } else {
            self.string_if_present(key, errs)
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
                let t = crate::text::trim(s);
                if t.is_empty() {
                    Some(None)
                } else {
                    self.within_limit(key, t, errs).map(Some)
                }
            }
            _ => {
                errs.push(self.path(key), FieldCode::InvalidValue, "must be a string");
                None
            }
        }
    }

    fn non_blank(&self, key: &str, v: &Value, errs: &mut FieldErrors) -> Option<String> {
        match v {
            Value::String(s) if crate::text::trim(s).is_empty() => {
                errs.push(self.path(key), FieldCode::Required, "cannot be empty");
                None
            }
            Value::String(s) => self.within_limit(key, crate::text::trim(s), errs),
            _ => {
                errs.push(self.path(key), FieldCode::InvalidValue, "must be a string");
                None
            }
        }
    }

    /// `s` within the key's length limit ([`text_limit`]), on one line if name-like; else an error.
    fn within_limit(&self, key: &str, s: &str, errs: &mut FieldErrors) -> Option<String> {
        let limit = text_limit(key);
        if limit == MAX_SHORT_TEXT && s.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
            errs.push(
                self.path(key),
                FieldCode::InvalidValue,
                "must be on one line (no line breaks)",
            );
            return None;
        }
        if s.chars().count() > limit {
            errs.push(
                self.path(key),
                FieldCode::InvalidValue,
                format!("must be at most {limit} characters"),
            );
            return None;
        }
        Some(s.to_owned())
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

/// `fields` without the top-level fields that `errors` name: what is left of a payload whose
/// fields failed, to read again for the checks that need the record as stored (a field that may
/// not change, a reference to look up), so that one answer lists every failing field
/// (product.md §1).
pub fn without_failing(fields: &Map<String, Value>, errors: &[FieldError]) -> Map<String, Value> {
    let mut rest = fields.clone();
    for e in errors {
        let root = e.field.split(['.', '[']).next().unwrap_or(&e.field);
        rest.remove(root);
    }
    rest
}

/// Applies one field of an edit: `Some` replaces the stored value, `None` leaves it unchanged.
pub fn update<T>(stored: &mut T, change: Option<T>) {
    if let Some(v) = change {
        *stored = v;
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

/// The reference that a payload's `field` (its `value`) names, unless `errors` (its reader's)
/// already name that field: what is left to look up when a payload failed, so that one answer
/// reports every failing field, the references that name no record among them.
pub fn unflagged_reference(
    errors: &FieldErrors,
    field: &str,
    value: Option<&Value>,
) -> Option<String> {
    if errors.has(field) {
        return None;
    }
    value.and_then(reference_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unflagged_reference_skips_fields_that_already_failed() {
        let payload = json!({"facility": {"_id": " f1 "}, "equipment": "e1", "test": 5});
        let mut errors = FieldErrors::default();
        errors.push("equipment", FieldCode::InvalidValue, "bad");
        let named = |field| unflagged_reference(&errors, field, payload.get(field));
        assert_eq!(named("facility").as_deref(), Some("f1"));
        assert_eq!(named("equipment"), None);
        assert_eq!(named("test"), None);
        assert_eq!(named("missing"), None);
    }

    fn fields(errors: &[FieldError]) -> Vec<&str> {
        let mut f: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        f.sort();
        f
    }

    #[test]
    fn name_like_fields_have_the_short_limit() {
        let obj = json!({"name": "n".repeat(MAX_SHORT_TEXT + 1), "description": "d".repeat(MAX_SHORT_TEXT + 1), "model": "m".repeat(MAX_SHORT_TEXT)});
        let obj = obj.as_object().unwrap();
        let r = ObjectReader::new(obj, "");
        let mut errs = FieldErrors::default();
        assert_eq!(r.required_string("name", &mut errs), None);
        assert!(r.clearable_string("description", &mut errs).is_some());
        assert!(r.clearable_string("model", &mut errs).is_some());
        let errs = errs.into_vec();
        assert_eq!(fields(&errs), ["name"]);
        assert_eq!(errs[0].message, "must be at most 200 characters");
    }

    #[test]
    fn name_like_fields_are_one_line_and_prose_may_break() {
        let obj = json!({"name": "Clínica\nBoa Vista", "city": "Re\rcife", "state": "P\u{2028}E", "notes": "one\ntwo", "model": "\n X \n"});
        let obj = obj.as_object().unwrap();
        let r = ObjectReader::new(obj, "");
        let mut errs = FieldErrors::default();
        assert_eq!(r.required_string("name", &mut errs), None);
        assert_eq!(r.clearable_string("city", &mut errs), None);
        assert_eq!(r.clearable_string("state", &mut errs), None);
        assert_eq!(
            r.clearable_string("notes", &mut errs),
            Some(Some("one\ntwo".into()))
        );
        // Line breaks around the text are trimmed like any blank.
        assert_eq!(
            r.clearable_string("model", &mut errs),
            Some(Some("X".into()))
        );
        let errs = errs.into_vec();
        assert_eq!(fields(&errs), ["city", "name", "state"]);
        assert!(
            errs.iter()
                .all(|e| e.message == "must be on one line (no line breaks)")
        );
    }
}
