//! The limits every JSON body is checked against before any field is read: control characters,
//! text lengths (by field) and array sizes, each offending place reported with its path.

use crate::error::{FieldCode, FieldError};
use serde_json::{Map, Value};

/// The longest a name-like text field may be (names, company names, addresses, models, numbers).
pub const MAX_SHORT_TEXT: usize = 200;
/// The longest any text in a JSON body may be (descriptions, notes, comments, free JSON).
pub const MAX_LONG_TEXT: usize = 10_000;
/// The most items any JSON array in a body may hold.
pub const MAX_ARRAY_ITEMS: usize = 1_000;

/// The longest password (the policy of `values::password_problem`).
pub const MAX_PASSWORD: usize = 256;

/// Keys whose text is prose rather than a name: they get [`MAX_LONG_TEXT`].
const LONG_TEXT_KEYS: &[&str] = &["description", "notes", "conclusion", "text", "observations"];
/// Keys that hold a password, read as sent (not trimmed) by the password policy.
const PASSWORD_KEYS: &[&str] = &["password", "currentPassword", "newPassword"];

/// The length limit of the text field `key` (in characters).
pub fn text_limit(key: &str) -> usize {
    if LONG_TEXT_KEYS.contains(&key) {
        MAX_LONG_TEXT
    } else if PASSWORD_KEYS.contains(&key) {
        MAX_PASSWORD
    } else {
        MAX_SHORT_TEXT
    }
}

/// A control character that text fields refuse: everything `char::is_control` says except tab,
/// line feed and carriage return (which prose may hold). NUL in particular cannot be stored in
/// PostgreSQL text at all.
pub fn is_forbidden_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Checks a whole JSON body before any field is read: no text (value or key) holds a control
/// character, no text is longer than [`MAX_LONG_TEXT`] and no array holds more than
/// [`MAX_ARRAY_ITEMS`]. Each offending place is reported with its path (`address[2].city`).
pub fn check_body_limits(body: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    walk(body, &mut String::new(), &mut errors);
    errors
}

fn walk(v: &Value, path: &mut String, errors: &mut Vec<FieldError>) {
    const MAX_REPORTED: usize = 50;
    if errors.len() >= MAX_REPORTED {
        return;
    }
    match v {
        Value::String(s) => {
            if let Some(e) = text_error(s, path) {
                errors.push(e);
            }
        }
        Value::Array(items) => {
            if items.len() > MAX_ARRAY_ITEMS {
                errors.push(FieldError::new(
                    path.as_str(),
                    FieldCode::InvalidValue,
                    format!("must hold at most {MAX_ARRAY_ITEMS} items"),
                ));
                return;
            }
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(item, path, errors);
                path.truncate(len);
            }
        }
        Value::Object(map) => walk_object(map, path, errors),
        _ => {}
    }
}

fn walk_object(map: &Map<String, Value>, path: &mut String, errors: &mut Vec<FieldError>) {
    for (key, item) in map {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        if key.chars().count() > MAX_LONG_TEXT {
            // Named by the object that holds it: the key itself is too long to repeat.
            errors.push(FieldError::new(
                &path[..len],
                FieldCode::InvalidValue,
                format!("must not have a key of over {MAX_LONG_TEXT} characters"),
            ));
        } else if key.chars().any(is_forbidden_control) {
            // Named with its control characters escaped: an answer (or a terminal showing it)
            // never carries them raw.
            for c in key.chars() {
                if is_forbidden_control(c) {
                    path.extend(c.escape_unicode());
                } else {
                    path.push(c);
                }
            }
            errors.push(FieldError::new(
                path.as_str(),
                FieldCode::InvalidValue,
                "must not hold control characters in its key",
            ));
        } else {
            path.push_str(key);
            walk(item, path, errors);
        }
        path.truncate(len);
    }
}

fn text_error(s: &str, path: &str) -> Option<FieldError> {
    if s.chars().any(is_forbidden_control) {
        return Some(FieldError::new(
            path,
            FieldCode::InvalidValue,
            "must not contain control characters",
        ));
    }
    // Past the bound of any text, the message gives the field's own limit (a name's 200); text
    // inside free JSON has no other limit than this one.
    (s.chars().count() > MAX_LONG_TEXT).then(|| {
        let root = path.split(['.', '[']).next().unwrap_or(path);
        let last = path.rsplit('.').next().unwrap_or(path);
        let key = last.split('[').next().unwrap_or(last);
        let limit = if FREE_JSON_KEYS.contains(&root) && root != path {
            MAX_LONG_TEXT
        } else {
            text_limit(key)
        };
        FieldError::new(
            path,
            FieldCode::InvalidValue,
            format!("must be at most {limit} characters"),
        )
    })
}

/// Fields that hold free JSON (equipment `attributes`, QC `measurements`): their texts may be
/// as long as any text.
const FREE_JSON_KEYS: &[&str] = &["attributes", "measurements"];

/// [`check_body_limits`] for an object's fields (query filters, multipart fields), without
/// building a JSON value around them.
pub fn check_object_limits(fields: &Map<String, Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    walk_object(fields, &mut String::new(), &mut errors);
    errors
}

/// Checks one query-string or multipart text value the same way as [`check_body_limits`].
pub fn check_text(field: &str, s: &str) -> Option<FieldError> {
    text_error(s, field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(errors: &[FieldError]) -> Vec<&str> {
        let mut f: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        f.sort();
        f
    }

    #[test]
    fn control_characters_are_refused_with_their_path() {
        let body = json!({
            "name": "ok\u{0}",
            "address": [{"city": "São Paulo"}, {"city": "Rio\u{1b}"}],
            "notes": "line one\nline two\ttabbed\r",
            "attributes": {"a\u{7}": 1},
        });
        let errors = check_body_limits(&body);
        assert_eq!(
            fields(&errors),
            ["address[1].city", "attributes.a\\u{7}", "name"],
            "a key is named with its control characters escaped, never raw"
        );
        assert!(errors.iter().all(|e| e.code == FieldCode::InvalidValue));
        assert!(check_text("q", "\u{0}").is_some());
        assert!(check_text("q", "são paulo").is_none());
    }

    #[test]
    fn sizes_are_bounded() {
        let long = "x".repeat(MAX_LONG_TEXT + 1);
        let errors =
            check_body_limits(&json!({"notes": long, "list": vec![0; MAX_ARRAY_ITEMS + 1]}));
        assert_eq!(fields(&errors), ["list", "notes"]);
        assert_eq!(errors[1].message, "must be at most 10000 characters");
        let errors = check_body_limits(
            &json!({"name": long, "password": long, "address": [{"city": long}]}),
        );
        let messages: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (e.field.as_str(), e.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                ("address[0].city", "must be at most 200 characters"),
                ("name", "must be at most 200 characters"),
                ("password", "must be at most 256 characters")
            ]
        );
        let fine = check_body_limits(
            &json!({"notes": "x".repeat(MAX_LONG_TEXT), "list": vec![0; MAX_ARRAY_ITEMS]}),
        );
        assert!(fine.is_empty());
        assert!(check_body_limits(&json!([["\u{0}"]]))[0].field == "[0][0]");
        // A key is bounded like any text, named by the object that holds it.
        let errors = check_body_limits(&json!({"attributes": {long.clone(): 1}}));
        assert_eq!(fields(&errors), ["attributes"]);
        // Inside free JSON a text's only limit is the bound of any text, whatever its key.
        let errors = check_body_limits(&json!({"attributes": {"name": long, "a": [long]}}));
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["must be at most 10000 characters"; 2]);
    }
}
