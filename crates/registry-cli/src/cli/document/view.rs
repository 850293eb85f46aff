//! How documents are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::document::Document;

const COLUMNS: &[Column<Document>] = &[
    ("_id", |d| d.id.clone()),
    ("name", |d| d.name.clone()),
    ("facility", |d| facility_name(d).to_owned()),
    ("status", |d| d.status.to_string()),
    ("date", |d| d.date.clone()),
    ("validity", |d| d.validity.clone()),
    ("code", |d| or_empty(&d.code)),
];

pub fn facility_name(d: &Document) -> &str {
    d.facility.name.as_deref().unwrap_or(&d.facility.id)
}

pub fn print_list(format: Format, list: &[Document]) -> Result<(), Fail> {
    output::print_table(format, list, COLUMNS)?;
    Ok(())
}

pub fn show(format: Format, d: &Document) -> Result<(), Fail> {
    let person_at = |p: &Option<registry_core::document::Person>, at: &Option<String>| match p {
        Some(p) => format!("{} at {}", p.name, output::brasilia_opt(at)),
        None => String::new(),
    };
    let comments = d
        .comments
        .iter()
        .map(|c| {
            format!(
                "{} ({}): {}",
                c.author.name,
                output::brasilia(&c.created_at),
                c.text
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let versions = d
        .versions
        .iter()
        .map(|v| {
            format!(
                "{}: {} ({} bytes) by {} at {}",
                v.version,
                v.file.name,
                v.file.size,
                v.uploaded_by.name,
                output::brasilia(&v.uploaded_at)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let email = match (&d.sent_email, &d.scheduled_email) {
        (Some(s), _) => format!(
            "sent {} to {}",
            output::brasilia(&s.sent_at),
            s.to.join(", ")
        ),
        (None, Some(s)) => format!(
            "{} for {} to {}",
            s.status,
            output::brasilia(&s.send_at),
            s.to.join(", ")
        ),
        (None, None) => String::new(),
    };
    output::print_record(
        format,
        d,
        vec![
            ("_id", d.id.clone()),
            ("name", d.name.clone()),
            ("facility", facility_name(d).to_owned()),
            (
                "equipment",
                d.equipment
                    .as_ref()
                    .map(|e| e.id.clone())
                    .unwrap_or_default(),
            ),
            (
                "test",
                d.test.as_ref().map(|t| t.id.clone()).unwrap_or_default(),
            ),
            ("status", d.status.to_string()),
            ("date", d.date.clone()),
            ("validity", d.validity.clone()),
            ("conclusion", or_empty(&d.conclusion)),
            (
                "file",
                format!(
                    "{} ({}, {} bytes)",
                    d.file.name, d.file.content_type, d.file.size
                ),
            ),
            ("sha256", d.file.sha256.clone()),
            (
                "uploaded",
                format!(
                    "{} at {}",
                    d.uploaded_by.name,
                    output::brasilia(&d.uploaded_at)
                ),
            ),
            ("signed", person_at(&d.signed_by, &d.signed_at)),
            ("code", or_empty(&d.code)),
            ("released", person_at(&d.liberated_by, &d.liberated_at)),
            ("email", email),
            ("comments", comments),
            ("versions", versions),
        ],
    )?;
    Ok(())
}
