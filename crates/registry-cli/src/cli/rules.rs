//! The checks of answers typed at a prompt, made with the same core readers the flags and the
//! server use, so that a wrong answer is asked again with the reason instead of failing the whole
//! command after the last question. Each gives `Err(reason)`.

use super::context::server_url_problem;
use registry_core::FieldError;
use registry_core::document::read_document;
use registry_core::material::read_receipt;
use registry_core::qc::Quantity;
use registry_core::qc::read::{parse_time, reading_problem, recorded_values};
use registry_core::user::read_user;
use registry_core::values::password_problem;
use serde_json::{Map, Value, json};

/// The reasons the reader gave for field `key`, if any (the other fields' are not this
/// answer's).
fn problems_of<T>(read: Result<T, Vec<FieldError>>, key: &str) -> Result<(), String> {
    let reasons: Vec<String> = read
        .err()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.field == key)
        .map(|e| e.message)
        .collect();
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(reasons.join("; "))
    }
}

/// An e-mail address, as `read_user` reads it.
pub fn email(s: &str) -> Result<(), String> {
    user_field("email")(s)
}

/// Field `key` of a user (its API name: `telephone`, `cpf`, `ANLicenseValidity`...), as
/// `read_user` reads it.
pub fn user_field(key: &'static str) -> impl Fn(&str) -> Result<(), String> {
    move |s| problems_of(read_user(&json!({ key: s }), false), key)
}

/// A password of the server's policy (at least 8 characters...).
pub fn password(s: &str) -> Result<(), String> {
    password_problem(s).map_or(Ok(()), |p| Err(p.to_owned()))
}

/// Field `key` of a document upload given as `value`, with the fields answered before it
/// (`validity` after `date`), as `read_document` reads it.
pub fn document_field(fields: &Map<String, Value>, key: &str, value: &str) -> Result<(), String> {
    let mut fields = fields.clone();
    fields.insert(key.to_owned(), json!(value));
    problems_of(read_document(&fields, true), key)
}

/// An `http(s)://host[:port]` server URL.
pub fn server_url(s: &str) -> Result<(), String> {
    server_url_problem(s).map_or(Ok(()), Err)
}

/// A number (a decimal comma accepted).
fn number(s: &str) -> Result<f64, String> {
    parse_number(s).ok_or_else(|| format!("`{s}` is not a number"))
}

/// A QC reading (a decimal comma accepted): a positive number, as the readers take it.
pub fn reading(s: &str) -> Result<(), String> {
    reading_problem(number(s)?).map_or(Ok(()), Err)
}

/// Readings separated by spaces or semicolons, at least one.
pub fn readings(s: &str) -> Result<(), String> {
    let mut parts = s.split([' ', ';']).filter(|p| !p.is_empty()).peekable();
    if parts.peek().is_none() {
        return Err("give at least one number".into());
    }
    parts.try_for_each(reading)
}

/// A received activity in mCi, as `read_receipt` reads it (a positive number with a dot).
pub fn activity(s: &str) -> Result<(), String> {
    problems_of(
        read_receipt(&json!({ "activity": s }), chrono::Utc::now()),
        "activity",
    )
}

/// A recorded value of quantity `q` (a decimal comma accepted), as `recorded_values` reads it:
/// within its range and not under its minimum.
pub fn recorded(q: &Quantity) -> impl Fn(&str) -> Result<(), String> + '_ {
    move |s| {
        let values = json!({ "values": { q.name.as_str(): number(s)? } });
        recorded_values(Some(&values), std::slice::from_ref(q))
            .map(drop)
            .map_err(|errs| {
                let reasons: Vec<String> = errs.into_iter().map(|e| e.message).collect();
                reasons.join("; ")
            })
    }
}

/// A time as QC readings take it: `YYYY-MM-DD[ HH:MM]` (Brasília) or RFC 3339.
pub fn time(s: &str) -> Result<(), String> {
    parse_time(s)
        .map(|_| ())
        .ok_or_else(|| "must be a date as YYYY-MM-DD, or YYYY-MM-DD HH:MM".into())
}

/// One JSON object, e.g. `{"detectors": 2}` (equipment attributes).
pub fn json_object(s: &str) -> Result<(), String> {
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(_)) => Ok(()),
        _ => Err(r#"must be one JSON object, e.g. {"detectors": 2}"#.into()),
    }
}

/// A non-blank answer.
pub fn not_empty(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        Err(super::line::REQUIRED.into())
    } else {
        Ok(())
    }
}

/// A number flag (`--activity 1.5`), as clap's value parser: a decimal comma is refused with
/// how to write it (`use a dot as the decimal separator: 1.5`), as the API refuses it.
pub fn dot_decimal(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ if parse_number(s).is_some() => Err(format!(
            "use a dot as the decimal separator: {}",
            s.trim().replace(',', ".")
        )),
        _ => Err("not a number".into()),
    }
}

/// `s` as a finite number, a decimal comma accepted.
pub fn parse_number(s: &str) -> Option<f64> {
    s.trim()
        .replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_checked_with_the_core_readers() {
        assert!(email("not-an-email").is_err());
        assert!(email("ana@example.com").is_ok());
        assert!(user_field("telephone")("123").is_err());
        assert!(user_field("telephone")("(81) 3333-4444").is_ok());
        assert!(user_field("cpf")("111.111.111-11").is_err());
        assert!(user_field("ANLicenseValidity")("2026-13-01").is_err());
        assert!(user_field("ANLicenseValidity")("2027-01-31").is_ok());
        assert_eq!(
            password("short").unwrap_err(),
            "must have at least 8 characters"
        );
        assert!(server_url("localhost:18095").is_err());
        assert!(server_url("http://localhost:18095").is_ok());
        assert!(json_object(r#"{"detectors": 2}"#).is_ok());
        assert!(json_object("[1]").is_err() && json_object("{detectors: 2}").is_err());
        assert!(number("abc").is_err());
        assert!(number("1,5").is_ok());
        assert_eq!(dot_decimal("1.5"), Ok(1.5));
        assert_eq!(
            dot_decimal("1,5").unwrap_err(),
            "use a dot as the decimal separator: 1.5"
        );
        assert!(dot_decimal("x").is_err());
        assert!(readings("1.2 3;4").is_ok());
        assert!(readings("1.2 x").is_err());
        assert!(readings(" ").is_err());
        // A reading the server would refuse is asked again, not sent (audit of the wizards).
        assert!(reading("1,5").is_ok());
        for refused in ["-3", "0", "1e10"] {
            assert!(
                reading(refused).unwrap_err().contains("positive"),
                "{refused}"
            );
        }
        assert!(readings("7.3 -1").is_err());
        let uniformity = Quantity {
            name: "integralUfov".into(),
            label: "Uniformidade integral".into(),
            unit: "%".into(),
            warn: None,
            limit: 5.0,
            minimum: Some(0.0),
        };
        assert!(recorded(&uniformity)("3,2").is_ok());
        assert!(
            recorded(&uniformity)("-1")
                .unwrap_err()
                .contains("at least 0")
        );
        let offset = Quantity {
            minimum: None,
            ..uniformity
        };
        assert!(recorded(&offset)("-1").is_ok());
        assert!(recorded(&offset)("x").is_err());
        assert!(activity("1.5").is_ok());
        for refused in ["abc", "-1", "0", "1,5"] {
            assert!(activity(refused).is_err(), "{refused}");
        }
        assert!(time("2026-11-20 08:00").is_ok());
        assert!(time("amanhã").is_err());
        let mut fields = Map::new();
        fields.insert("date".into(), json!("2026-11-20"));
        assert!(document_field(&fields, "validity", "2026-02-30").is_err());
        assert!(document_field(&fields, "validity", "2026-11-01").is_err());
        assert!(document_field(&fields, "validity", "2027-11-01").is_ok());
    }
}
