//! Reading a request's JSON: every payload reader starts from [`parse`], so each field is then
//! refused by its own rule (with every other failing field) rather than the whole body as
//! malformed, and text reaches the rules in one Unicode form.

use serde_json::Value;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// Parses a JSON document, with two readings that let a field's own rule judge it:
/// - a number the parser cannot hold (`1e400`, four hundred digits) and the bare `NaN`,
///   `Infinity` and `-Infinity` that some encoders write for non-finite numbers (Python's
///   `json`, JavaScript's `String(NaN)`) are read as strings, so a radioisotope `quantity` given
///   so is `invalid_quantity`, not a 400 for the body;
/// - every string (and key) is put in Unicode's composed form (NFC): text typed on a system that
///   sends decomposed accents (`a` + U+0303 for `ã`) is stored, compared, searched and counted
///   (the 200-character limit) as the same text typed elsewhere.
///
/// A byte-order mark before the document is skipped. Any other syntax error is the parser's,
/// about the original text.
pub fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    // A UTF-8 byte-order mark before the document (as some Windows tools write) is not part of it.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value = serde_json::from_slice(bytes).or_else(|e| match quote_unreadable(bytes) {
        Some(quoted) => serde_json::from_slice(&quoted).map_err(|_| e),
        None => Err(e),
    })?;
    Ok(composed(value))
}

/// `text` in Unicode's composed form (NFC).
pub fn compose(text: String) -> String {
    if is_nfc_quick(text.chars()) == IsNormalized::Yes {
        text
    } else {
        text.nfc().collect()
    }
}

/// `value` with every string and key in Unicode's composed form, and `-0` as `0` (PostgreSQL's
/// `jsonb` has no negative zero: free JSON reads back the same from either database).
fn composed(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(compose(s)),
        Value::Number(n) if n.as_f64() == Some(0.0) && n.to_string().starts_with('-') => {
            Value::from(0.0)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(composed).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (compose(k), composed(v)))
                .collect(),
        ),
        other => other,
    }
}

/// `bytes` with each bare `NaN`, `Infinity` or `-Infinity`, and each number too large for a
/// double, outside strings quoted; `None` when there is none.
fn quote_unreadable(bytes: &[u8]) -> Option<Vec<u8>> {
    const TOKENS: [&[u8]; 3] = [b"-Infinity", b"Infinity", b"NaN"];
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let (mut in_string, mut escaped, mut found) = (false, false, false);
    let mut quote = |out: &mut Vec<u8>, token: &[u8]| {
        out.push(b'"');
        out.extend_from_slice(token);
        out.push(b'"');
        found = true;
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if let Some(token) = TOKENS.iter().find(|t| bytes[i..].starts_with(t)) {
            quote(&mut out, token);
            i += token.len();
            continue;
        } else if b == b'-' || b.is_ascii_digit() {
            let len = bytes[i..]
                .iter()
                .take_while(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
                .count();
            let number = &bytes[i..i + len];
            let too_large = std::str::from_utf8(number)
                .ok()
                .and_then(|n| n.parse::<f64>().ok())
                .is_some_and(f64::is_infinite);
            if too_large {
                quote(&mut out, number);
            } else {
                out.extend_from_slice(number);
            }
            i += len;
            continue;
        }
        out.push(b);
        i += 1;
    }
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bare_non_finite_numbers_are_read_as_strings() {
        let v =
            parse(br#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN \" NaN", "d": 1}"#).unwrap();
        assert_eq!(
            v,
            json!({"a": "NaN", "b": ["Infinity", "-Infinity"], "c": "NaN \" NaN", "d": 1})
        );
        // A negative zero is zero, wherever it stands.
        assert_eq!(
            parse(br#"{"a": -0.0, "b": [-0e0], "c": 0.5}"#).unwrap(),
            json!({"a": 0.0, "b": [0.0], "c": 0.5})
        );
        // Other syntax errors stay errors, with the parser's message about the original text.
        let e = parse(b"{\"a\": NaN,}").unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        assert!(parse(b"{\"a\": nan}").is_err());
        assert_eq!(parse(b"{\"a\": 1.5}").unwrap(), json!({"a": 1.5}));
    }

    #[test]
    fn numbers_too_large_for_a_double_are_read_as_strings() {
        let huge = format!("1{}", "0".repeat(400));
        let body = format!(r#"{{"q": {huge}, "e": 1e400, "n": -2E+999, "ok": [1e300, -0.5, 12]}}"#);
        assert_eq!(
            parse(body.as_bytes()).unwrap(),
            json!({"q": huge, "e": "1e400", "n": "-2E+999", "ok": [1e300, -0.5, 12]})
        );
        // Inside strings nothing is touched; a bad number stays a syntax error.
        assert_eq!(
            parse(br#"{"s": "1e400", "x": 1e400}"#).unwrap(),
            json!({"s": "1e400", "x": "1e400"})
        );
        assert!(parse(b"{\"a\": 1e400,}").is_err());
        assert!(parse(b"{\"a\": 1.2.3}").is_err());
    }

    #[test]
    fn text_is_read_in_composed_form() {
        let mut fields = serde_json::Map::new();
        fields.insert("a\u{301}".into(), json!(["e\u{302}"]));
        fields.insert("name".into(), json!("Cli\u{301}nica Ac\u{327}a\u{303}o"));
        let body = serde_json::to_vec(&fields).unwrap();
        assert_eq!(
            parse(&body).unwrap(),
            json!({"name": "Clínica Ação", "á": ["ê"]})
        );
        // JSON escapes of decomposed text are composed too.
        assert_eq!(
            parse(br#"{"c": "Goia\u0302nia"}"#).unwrap(),
            json!({"c": "Goiânia"})
        );
        assert_eq!(compose("São".into()), "São");
    }

    #[test]
    fn a_byte_order_mark_before_the_document_is_skipped() {
        assert_eq!(parse(b"\xEF\xBB\xBF{\"a\": 1}").unwrap(), json!({"a": 1}));
        // Inside a string it is text like any other.
        assert_eq!(
            parse("\"\u{feff}x\"".as_bytes()).unwrap(),
            json!("\u{feff}x")
        );
    }
}
