//! Document queries: the record with its file versions and comments, lists with filters, status
//! changes, and the durable e-mail schedules the worker claims.
//!
//! The storage interface of this resource; the queries are in `sql/documents.rs` (writes),
//! `sql/document_reads.rs` (reads) and `sql/document_emails.rs` (e-mail schedules).

use crate::db::contains_pattern;
use crate::store::types::Param;
use registry_core::document::{Document, DocumentStatus, FileInfo};

/// What the handlers need to decide on a change.
#[derive(Debug, Clone)]
pub struct DocumentState {
    pub facility_id: String,
    pub equipment_id: Option<String>,
    pub status: DocumentStatus,
    pub file_version: i64,
    pub sha256: String,
    pub size: i64,
    pub name: String,
    pub facility_name: String,
    pub date: String,
    pub validity: String,
}

pub struct NewDocument<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub facility_id: &'a str,
    pub equipment_id: Option<&'a str>,
    pub test_id: Option<&'a str>,
    pub date: &'a str,
    pub validity: &'a str,
    pub conclusion: Option<&'a str>,
    pub status: DocumentStatus,
    pub by: &'a str,
    pub at: &'a str,
}

/// The metadata an edit may change; `None` leaves a field as it is.
#[derive(Debug, Default)]
pub struct MetadataChanges {
    pub name: Option<String>,
    pub equipment_id: Option<Option<String>>,
    pub test_id: Option<Option<String>>,
    pub date: Option<String>,
    pub validity: Option<String>,
    pub conclusion: Option<Option<String>>,
    pub status: Option<DocumentStatus>,
}

pub struct Signing<'a> {
    pub signer: &'a str,
    pub at: &'a str,
    pub code: &'a str,
    pub signature: &'a str,
}

/// Who may see what: staff see every live document; a `Cliente` only released ones of the
/// facilities they are linked to.
#[derive(Debug, Clone, Default)]
pub struct DocumentFilter {
    pub client: Option<String>,
    pub status: Option<DocumentStatus>,
    pub facility_id: Option<String>,
    pub equipment_id: Option<String>,
    pub test_id: Option<String>,
    pub date_gte: Option<String>,
    pub date_lt: Option<String>,
    pub q: Option<String>,
}

impl DocumentFilter {
    /// The WHERE clause (after `LIVE`) and its text parameters, numbered from `$first`.
    pub(crate) fn clause(&self, first: usize) -> (String, Vec<Param>) {
        let mut sql = String::new();
        let mut binds = Vec::new();
        let mut add = |cond: &str, value: Param, binds: &mut Vec<Param>| {
            binds.push(value);
            sql.push_str(&format!(
                " AND {}",
                cond.replace('?', &format!("${}", first + binds.len() - 1))
            ));
        };
        if let Some(client) = &self.client {
            add(
                "d.facility_id IN (SELECT facility_id FROM facility_users WHERE user_id = ?)",
                Param::text(client),
                &mut binds,
            );
            add(
                "d.status = ?",
                Param::text(DocumentStatus::Released.as_str()),
                &mut binds,
            );
        }
        if let Some(s) = self.status {
            add("d.status = ?", Param::text(s.as_str()), &mut binds);
        }
        if let Some(v) = &self.facility_id {
            add("d.facility_id = ?", Param::text(v), &mut binds);
        }
        if let Some(v) = &self.equipment_id {
            add("d.equipment_id = ?", Param::text(v), &mut binds);
        }
        if let Some(v) = &self.test_id {
            add("d.test_id = ?", Param::text(v), &mut binds);
        }
        if let Some(v) = &self.date_gte {
            add("d.date >= ?", Param::Day(v.clone()), &mut binds);
        }
        if let Some(v) = &self.date_lt {
            add("d.date < ?", Param::Day(v.clone()), &mut binds);
        }
        if let Some(q) = &self.q {
            add(
                "d.search_text LIKE ? ESCAPE '\\'",
                Param::Text(Some(contains_pattern(q))),
                &mut binds,
            );
        }
        (sql, binds)
    }
}

pub struct NewSchedule<'a> {
    pub id: &'a str,
    pub document_id: &'a str,
    pub recipients: &'a [String],
    pub send_at: &'a str,
    pub by: &'a str,
    pub at: &'a str,
}

/// A schedule claimed by this instance for sending.
#[derive(Debug, Clone)]
pub struct ClaimedEmail {
    pub id: String,
    pub document_id: String,
    pub recipients: Vec<String>,
    pub attempts: i64,
}

backend_fns! { documents;
    pub async fn state(id: &str) -> Result<Option<DocumentState>, sqlx::Error>;

    /// Equipment that exists, is not archived and belongs to the facility.
    pub async fn equipment_in_facility(equipment_id: &str, facility_id: &str) -> Result<bool, sqlx::Error>;

    /// The equipment of a live QC test of the facility, `None` when there is no such test.
    pub async fn test_equipment(test_id: &str, facility_id: &str) -> Result<Option<String>, sqlx::Error>;

    pub async fn insert(d: &NewDocument<'_>) -> Result<(), sqlx::Error>;

    pub async fn add_file(document_id: &str, version: i64, file: &FileInfo, by: &str, at: &str) -> Result<(), sqlx::Error>;

    pub async fn update_metadata(id: &str, c: &MetadataChanges, at: &str) -> Result<(), sqlx::Error>;

    pub async fn code_taken(code: &str) -> Result<bool, sqlx::Error>;

    pub async fn sign(id: &str, s: &Signing<'_>) -> Result<(), sqlx::Error>;

    pub async fn liberate(id: &str, by: &str, at: &str) -> Result<(), sqlx::Error>;

    /// Soft delete; its pending e-mails are cancelled with it.
    pub async fn archive(id: &str, at: &str) -> Result<(), sqlx::Error>;

    pub async fn add_comment(id: &str, document_id: &str, author: &str, text: &str, at: &str) -> Result<(), sqlx::Error>;
}

backend_fns! { document_reads;
    /// One stored file of a live document: the current one, or `version`.
    pub async fn file(id: &str, version: Option<i64>) -> Result<Option<FileInfo>, sqlx::Error>;

    pub async fn view(id: &str, filter: &DocumentFilter) -> Result<Option<Document>, sqlx::Error>;

    pub async fn list(filter: &DocumentFilter, limit: i64, offset: i64) -> Result<(Vec<Document>, i64), sqlx::Error>;
}

backend_fns! { document_emails;
    /// The e-mail addresses of the facility's active users.
    pub async fn facility_recipients(facility_id: &str) -> Result<Vec<String>, sqlx::Error>;

    pub async fn schedule_email(s: &NewSchedule<'_>) -> Result<(), sqlx::Error>;

    /// Claims up to `limit` due schedules for `instance` until `until` (see [`claims::claim`]).
    pub async fn claim_due(instance: &str, now: &str, until: &str, limit: i64) -> Result<Vec<ClaimedEmail>, sqlx::Error>;
}
