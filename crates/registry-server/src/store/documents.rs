//! Document queries: the record with its file versions and comments, lists with filters, status
//! changes, and the durable e-mail schedules the worker claims.
//!
//! The storage interface of this resource; the queries are in `sql/documents.rs` (writes),
//! `sql/document_reads.rs` (reads) and `sql/document_emails.rs` (e-mail schedules).

use registry_core::document::{Document, FileInfo};

pub use super::model::documents::*;

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

    /// Cancels the pending e-mails of every document of the facility (when it is archived).
    pub async fn cancel_facility_emails(facility_id: &str, at: &str) -> Result<(), sqlx::Error>;
}
