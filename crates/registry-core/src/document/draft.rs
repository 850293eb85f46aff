//! Reading an upload's or an edit's fields (from JSON, or multipart text parts where everything
//! arrives as a string), reporting every failing field at once.

use super::DocumentStatus;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::payload::{ObjectReader, reference_id};
use crate::qc::read::MIN_YEAR;
use chrono::Datelike;
use serde_json::{Map, Value};

/// The fields of an upload (`create`) or an edit. On create, `name`, `facility`, `date` and
/// `validity` are `Some`. `Some(None)` clears an optional field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentDraft {
    pub name: Option<String>,
    pub facility: Option<String>,
    pub equipment: Option<Option<String>>,
    pub test: Option<Option<String>>,
    pub date: Option<String>,
    pub validity: Option<String>,
    pub conclusion: Option<Option<String>>,
    pub draft: bool,
    pub status: Option<DocumentStatus>,
}

/// A document's date as `YYYY-MM-DD` text, read as every date of the registry is read
/// ([`crate::equipment::parse_date`]).
pub fn parse_date(s: &str) -> Option<String> {
    crate::equipment::parse_date(s).map(|d| d.to_string())
}

/// The name an uploaded file is kept under, from the name its upload gave: the last part of a
/// path (`C:\laudos\x.pdf` → `x.pdf`, as a browser on Windows may send it), in composed form,
/// without the blanks and invisible characters around it; `document` when nothing is left. A
/// name longer than a name-like field (200 characters) is refused: it would be a response header
/// no ordinary client reads, and no file system takes it.
pub fn file_name(given: &str) -> Result<String, String> {
    let last = given.rsplit(['/', '\\']).next().unwrap_or(given);
    let name = crate::text::trim(&crate::json::compose(last.to_owned())).to_owned();
    // On one line and without control characters, as every name-like text; no direction
    // override that would show it in another order than it is.
    let unreadable = |c: char| {
        crate::payload::is_forbidden_control(c)
            || matches!(c, '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if name.contains(unreadable) {
        return Err("its name must be one line of visible text".to_owned());
    }
    // `.` and `..` name no file.
    let name = if name.chars().all(|c| c == '.') {
        String::new()
    } else {
        name
    };
    let length = name.chars().count();
    if length > crate::payload::MAX_SHORT_TEXT {
        return Err(format!(
            "its name must be at most {} characters (got {length})",
            crate::payload::MAX_SHORT_TEXT
        ));
    }
    Ok(if name.is_empty() {
        "document".to_owned()
    } else {
        name
    })
}

/// A file name in ASCII for the `filename` of a download (its `filename*` carries the name as
/// it is), as near the name as ASCII comes (RFC 6266, appendix D): `Relatório de proteção.pdf`
/// is `Relatorio de protecao.pdf`; what has no ASCII form is `_`, and a name left without a
/// letter or digit before its extension is `document` (`日本語.pdf` → `document.pdf`).
pub fn ascii_file_name(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let ascii: String = name
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .map(|c| match c {
            '"' | '\\' => '_',
            c if c.is_ascii() && !c.is_ascii_control() => c,
            _ => '_',
        })
        .collect();
    let (stem, extension) = match ascii.rfind('.') {
        Some(dot) if dot > 0 => ascii.split_at(dot),
        _ => (ascii.as_str(), ""),
    };
    if stem.chars().any(|c| c.is_ascii_alphanumeric()) {
        ascii
    } else {
        format!("document{extension}")
    }
}

/// `validity` must fall after `date` (both `YYYY-MM-DD`, so text order is date order): the
/// refusal of `validity`, naming the `date` it was held against.
pub fn validity_after_date(date: &str, validity: &str) -> Result<(), FieldError> {
    if validity > date {
        return Ok(());
    }
    Err(FieldError::new(
        "validity",
        FieldCode::InvalidValue,
        format!("must be after `date` ({date})"),
    ))
}

pub fn read_document(
    obj: &Map<String, Value>,
    create: bool,
) -> Result<DocumentDraft, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let r = ObjectReader::new(obj, "");
    let mut out = DocumentDraft {
        name: r.string_required_if(create, "name", &mut errs),
        ..Default::default()
    };
    match r.get("facility").or_else(|| r.get("facilityId")) {
        None | Some(Value::Null) if create => errs.push(
            "facility",
            FieldCode::Required,
            "is required: the facility's _id",
        ),
        None | Some(Value::Null) => {}
        Some(v) => match reference_id(v) {
            Some(id) => out.facility = Some(id),
            None => errs.push(
                "facility",
                FieldCode::InvalidValue,
                "must be a facility _id",
            ),
        },
    }
    for (key, slot) in [("equipment", &mut out.equipment), ("test", &mut out.test)] {
        match r.get(key) {
            None => {}
            Some(Value::Null) => *slot = Some(None),
            Some(Value::String(s)) if s.trim().is_empty() => *slot = Some(None),
            Some(v) => match reference_id(v) {
                Some(id) => *slot = Some(Some(id)),
                None => errs.push(key, FieldCode::InvalidValue, "must be an _id"),
            },
        }
    }
    for (key, slot) in [("date", &mut out.date), ("validity", &mut out.validity)] {
        if let Some(raw) = r.string_required_if(create, key, &mut errs) {
            match crate::equipment::parse_date(&raw) {
                // As every other day of the registry: a year like 0206 is a typing slip.
                Some(d) if d.year() < MIN_YEAR => errs.push(
                    key,
                    FieldCode::InvalidValue,
                    format!("must be in the year {MIN_YEAR} or later"),
                ),
                Some(d) => *slot = Some(d.to_string()),
                None => errs.push(key, FieldCode::InvalidValue, crate::equipment::DAY_FORMS),
            }
        }
    }
    if let (Some(date), Some(validity)) = (&out.date, &out.validity)
        && let Err(e) = validity_after_date(date, validity)
    {
        errs.push(e.field, e.code, e.message);
    }
    out.conclusion = r.clearable_string("conclusion", &mut errs);
    out.draft = flag(r.get("draft"), "draft", &mut errs);
    if !create {
        match r.get("status") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => match DocumentStatus::parse_value_or_slug(s) {
                Some(st) => out.status = Some(st),
                None => errs.push(
                    "status",
                    FieldCode::InvalidValue,
                    format!("must be one of {}", DocumentStatus::allowed()),
                ),
            },
            Some(_) => errs.push("status", FieldCode::InvalidValue, "must be a string"),
        }
    }
    errs.finish(out)
}

/// A boolean, also as the text a multipart part carries.
fn flag(v: Option<&Value>, key: &str, errs: &mut FieldErrors) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "on" | "yes" => true,
            "false" | "0" | "off" | "no" | "" => false,
            _ => {
                errs.push(key, FieldCode::InvalidValue, "must be true or false");
                false
            }
        },
        Some(_) => {
            errs.push(key, FieldCode::InvalidValue, "must be true or false");
            false
        }
    }
}
