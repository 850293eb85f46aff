//! `registry facility import`: the rows of the file (CSV or JSON) as facility payloads.

use crate::cli::context::Fail;
use crate::cli::output;
use registry_client::facility_csv::{self, payload_from_row, strip_cnpj_punctuation};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// One input record: where it came from, and its payload or why it cannot be sent.
pub struct Item {
    pub row: usize,
    pub name: String,
    pub cnpj: String,
    /// As written (with `cnpj`, the facility's key).
    pub department: String,
    /// The cnpj was written with punctuation or spaces around it, which were taken out (the API
    /// takes the bare form).
    pub cnpj_stripped: bool,
    pub payload: Result<Value, String>,
    /// What could not be read into the payload (a CSV cell), told with the payload's problems.
    pub unread: Vec<String>,
    /// From a CSV file (its fields are named by the columns), not JSON (by the API's paths).
    pub csv: bool,
}

/// Fields of an exported facility (`facility export --format json`) that belong to the server it
/// came from: left out when importing.
const EXPORT_ONLY: &[&str] = &[
    "_id",
    "version",
    "createdAt",
    "updatedAt",
    "logo",
    "backgroundImage",
];

pub fn read_items(path: &Path) -> Result<Vec<Item>, Fail> {
    let unreadable =
        |e: &dyn std::fmt::Display| Fail::Usage(format!("cannot read {}: {e}", path.display()));
    // `-` is stdin: JSON when its first non-blank character opens an array, else CSV.
    let from_stdin = path.as_os_str() == "-";
    let (text, converted) = facility_csv::read(path).map_err(|e| unreadable(&e))?;
    if converted {
        output::note(format!(
            "{} is not UTF-8: read as Windows-1252",
            path.display()
        ));
    }
    let source = match from_stdin {
        true => "standard input".to_owned(),
        false => path.display().to_string(),
    };
    if text.trim().is_empty() {
        return Err(Fail::Rejected(format!(
            "{source} is empty: no header row, no facilities"
        )));
    }
    let is_json = if from_stdin {
        text.trim_start().starts_with('[')
    } else {
        path.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    };
    type Read = Result<(Value, Vec<String>), String>;
    let payloads: Vec<(usize, Read)> = if is_json {
        // What the file holds is refused as any content is (exit 4), not the command line.
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| Fail::Rejected(format!("{source} is not valid JSON: {e}")))?;
        let Value::Array(items) = value else {
            return Err(Fail::Rejected(format!(
                "{source} must hold a JSON array of facility payloads"
            )));
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i + 1, Ok((v, Vec::new()))))
            .collect()
    } else {
        let mut reader = csv::ReaderBuilder::new()
            // Cells are trimmed as they are read (`payload_from_row`), except the cnpj, whose
            // spaces are taken out with its punctuation and noted.
            .trim(csv::Trim::Headers)
            .delimiter(facility_csv::delimiter(&text))
            .from_reader(text.as_bytes());
        let headers = reader.headers().map_err(|e| unreadable(&e))?.clone();
        known_columns(&source, &headers)?;
        let mut out = Vec::new();
        for (i, record) in reader.records().enumerate() {
            // Row numbers as a spreadsheet shows them: the header is row 1.
            let row = i + 2;
            let read = match record {
                // A row of empty cells (a spreadsheet writes them for rows formatted but left
                // empty) holds no facility.
                Ok(r) if r.iter().all(|cell| cell.trim().is_empty()) => continue,
                Ok(r) => {
                    let map: HashMap<String, String> = headers
                        .iter()
                        .zip(r.iter())
                        .map(|(h, v)| (h.to_owned(), v.to_owned()))
                        .collect();
                    Ok(payload_from_row(&map))
                }
                Err(e) => Err(format!("unreadable CSV row: {e}")),
            };
            out.push((row, read));
        }
        out
    };
    if payloads.is_empty() {
        return Err(Fail::Rejected(format!("{source} holds no facilities")));
    }
    Ok(payloads
        .into_iter()
        .map(|(row, read)| {
            let (payload, unread) = match read {
                Ok((payload, unread)) => (Ok(payload), unread),
                Err(e) => (Err(e), Vec::new()),
            };
            let text = |k: &str| match &payload {
                Ok(p) => p[k].as_str().unwrap_or_default().to_owned(),
                Err(_) => String::new(),
            };
            let (name, raw_cnpj, department) = (text("name"), text("cnpj"), text("department"));
            let stripped = strip_cnpj_punctuation(&raw_cnpj);
            let cnpj_stripped = stripped.is_some();
            let cnpj = stripped.unwrap_or(raw_cnpj);
            let payload = payload.map(|mut p| {
                if let Some(obj) = p.as_object_mut() {
                    if obj.contains_key("cnpj") {
                        obj.insert("cnpj".into(), json!(cnpj));
                    }
                    // What a JSON export carries that is this server's own, not a facility's data.
                    for key in EXPORT_ONLY {
                        obj.remove(*key);
                    }
                }
                p
            });
            Item {
                row,
                name,
                cnpj,
                department,
                cnpj_stripped,
                payload,
                unread,
                csv: !is_json,
            }
        })
        .collect())
}

/// A CSV header with none of the import's columns (a file of something else, or one whose
/// separator was not recognised) is refused at once (exit 4), rather than each row failing for
/// every field.
fn known_columns(source: &str, headers: &csv::StringRecord) -> Result<(), Fail> {
    if headers.iter().any(|h| facility_csv::COLUMNS.contains(&h)) {
        return Ok(());
    }
    let found: Vec<&str> = headers.iter().collect();
    Err(Fail::Rejected(format!(
        "{source}: no known column in its header row (`{}`); the columns are: {}",
        found.join("`, `"),
        facility_csv::COLUMNS.join(", ")
    )))
}

/// Says on stderr which rows had a cnpj written with punctuation or spaces around it, taken out
/// before sending (as
/// `facility create` says it).
pub fn note_stripped_cnpjs(items: &[Item]) {
    let rows: Vec<String> = items
        .iter()
        .filter(|i| i.cnpj_stripped)
        .map(|i| i.row.to_string())
        .collect();
    if !rows.is_empty() {
        output::note(format!(
            "note: {} cnpj{} read without punctuation or the spaces around it (the API accepts \
             only the bare form): {} {}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            if rows.len() == 1 { "row" } else { "rows" },
            rows.join(", ")
        ));
    }
}
