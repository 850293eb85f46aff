//! How documents are printed.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::document::{Document, SentEmail};

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
    let email = email(d);
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

/// The `email` row, from the latest schedule (`scheduledEmail`) and the latest delivery
/// (`sentEmail`, of that schedule or of an earlier one: it carries its schedule's `_id`). When the
/// latest schedule is the one delivered: `sent AT to …`. Otherwise the latest schedule's state,
/// `pending, scheduled for AT to …`, with its attempts, the next one and the last error once it
/// has been tried, then the last delivery, `last sent AT to …`: a newer schedule that has not
/// gone out is never hidden behind an older one that did.
fn email(d: &Document) -> String {
    let sent = |s: &SentEmail| format!("{} {}", output::brasilia(&s.sent_at), recipients(&s.to));
    let latest = match (&d.scheduled_email, &d.sent_email) {
        (Some(latest), Some(s)) if s.id != latest.id => latest,
        (Some(latest), None) => latest,
        (_, Some(s)) => return format!("sent {}", sent(s)),
        (None, None) => return String::new(),
    };
    let mut lines = vec![format!(
        "{}, scheduled for {} {}",
        latest.status,
        output::brasilia(&latest.send_at),
        recipients(&latest.to)
    )];
    if latest.attempts > 0 {
        let plural = if latest.attempts == 1 { "" } else { "s" };
        let mut attempts = format!("{} attempt{plural}", latest.attempts);
        if let Some(next) = &latest.next_attempt_at {
            attempts.push_str(&format!(", the next at {}", output::brasilia(next)));
        }
        lines.push(attempts);
    }
    if let Some(error) = &latest.last_error {
        lines.push(format!("last error: {error}"));
    }
    if let Some(s) = &d.sent_email {
        lines.push(format!("last sent {}", sent(s)));
    }
    lines.join("\n")
}

/// `to a, b`; `(no recipients)` for a schedule to the facility's users that found none when
/// it was last tried (its `lastError` says so).
fn recipients(to: &[String]) -> String {
    if to.is_empty() {
        "(no recipients)".to_owned()
    } else {
        format!("to {}", to.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::email;
    use registry_core::document::Document;
    use serde_json::json;

    /// A released document with `scheduled` and `sent` as the server gives them.
    fn document(scheduled: serde_json::Value, sent: serde_json::Value) -> Document {
        let person = json!({"_id": "u1", "name": "Ana Souza"});
        serde_json::from_value(json!({
            "_id": "d1", "name": "Laudo", "facility": {"_id": "f1", "name": "Clínica"},
            "date": "2026-11-01", "validity": "2027-11-01", "status": "Liberado",
            "file": {"name": "laudo.pdf", "contentType": "application/pdf", "size": 9,
                     "sha256": "00"},
            "uploadedBy": person, "uploadedAt": "2026-11-01T12:00:00Z",
            "comments": [], "versions": [],
            "createdAt": "2026-11-01T12:00:00Z", "updatedAt": "2026-11-01T12:00:00Z",
            "scheduledEmail": scheduled, "sentEmail": sent,
        }))
        .expect("a document")
    }

    fn schedule(id: &str, status: &str, attempts: i64, error: Option<&str>) -> serde_json::Value {
        json!({
            "_id": id, "sendAt": "2026-12-01T12:00:00Z", "to": ["fisica@example.com"],
            "status": status, "attempts": attempts,
            "nextAttemptAt": (status == "pending" && attempts > 0).then_some("2026-12-01T12:01:00Z"),
            "lastError": error, "sentAt": (status == "sent").then_some("2026-11-20T13:00:00Z"),
        })
    }

    fn delivery(id: &str) -> serde_json::Value {
        json!({"_id": id, "sentAt": "2026-11-20T13:00:00Z", "to": ["ana@example.com"]})
    }

    #[test]
    fn the_latest_schedule_is_shown_when_it_is_not_the_one_delivered() {
        let delivered = document(schedule("s1", "sent", 1, None), delivery("s1"));
        assert_eq!(
            email(&delivered),
            "sent 2026-11-20 10:00:00 -03:00 to ana@example.com"
        );
        let failing = document(
            schedule("s2", "pending", 2, Some("connection refused")),
            delivery("s1"),
        );
        assert_eq!(
            email(&failing),
            "pending, scheduled for 2026-12-01 09:00:00 -03:00 to fisica@example.com\n\
             2 attempts, the next at 2026-12-01 09:01:00 -03:00\n\
             last error: connection refused\n\
             last sent 2026-11-20 10:00:00 -03:00 to ana@example.com"
        );
        let failed = document(schedule("s1", "failed", 8, Some("refused")), json!(null));
        assert_eq!(
            email(&failed),
            "failed, scheduled for 2026-12-01 09:00:00 -03:00 to fisica@example.com\n\
             8 attempts\nlast error: refused"
        );
        let mut nobody = schedule("s2", "pending", 1, Some("no active users"));
        nobody["to"] = json!([]);
        assert!(
            email(&document(nobody, delivery("s1")))
                .starts_with("pending, scheduled for 2026-12-01 09:00:00 -03:00 (no recipients)\n")
        );
        let waiting = document(schedule("s1", "pending", 0, None), json!(null));
        assert_eq!(
            email(&waiting),
            "pending, scheduled for 2026-12-01 09:00:00 -03:00 to fisica@example.com"
        );
        assert_eq!(email(&document(json!(null), json!(null))), "");
    }
}
