//! QC test records, and when each test type falls due on each equipment (computed in SQL).
//!
//! The storage interface of this resource; the queries are in `sql/qc_tests.rs`.

use chrono::NaiveDate;
use registry_core::equipment::{DueTest, QcTest};

pub use super::model::qc_tests::*;

super::model::saved_by!(QcTest, save);

backend_fns! { qc_tests;
    /// A live record on live equipment, or `None`.
    pub async fn get(id: &str) -> Result<Option<QcTest>, sqlx::Error>;

    /// The records of one test type on one equipment, newest first, optionally within
    /// `[date_gte, date_lt)`.
    pub async fn history(equipment_id: &str, test_type_id: &str, date_gte: Option<NaiveDate>, date_lt: Option<NaiveDate>, limit: i64, offset: i64) -> Result<(Vec<QcTest>, i64), sqlx::Error>;

    pub async fn save(t: &QcTest, insert: bool) -> Result<(), sqlx::Error>;

    pub async fn archive(id: &str, at: &str) -> Result<(), sqlx::Error>;

    /// Recomputes `qc_last` for the pairs matching the given equipment and/or test type (all pairs
    /// when both are `None`): the latest live test's date and the next due date.
    pub async fn refresh_last(equipment: Option<&str>, test_type: Option<&str>) -> Result<(), sqlx::Error>;

    /// After an equipment's facility, type, `active` flag or archiving changed: whether its pairs
    /// belong in the registry-wide due lists (`qc_last.listed`).
    pub async fn refresh_listed_equipment(equipment_id: &str) -> Result<(), sqlx::Error>;

    /// After a facility was archived: its equipment's pairs leave the due lists.
    pub async fn refresh_listed_facility(facility_id: &str) -> Result<(), sqlx::Error>;

    /// Fills `qc_last` once for a database whose tests predate it (or were bulk-loaded).
    pub async fn ensure_last_filled() -> Result<(), sqlx::Error>;

    /// Every test type of each selected equipment's type, with its last live record (one index
    /// lookup per pair), next due date and state, most urgent first: never done, then by due date.
    /// The pairs are MATERIALIZED so that PostgreSQL looks each last date up once, instead of
    /// inlining the lookup into the state filter, the sort key and the output.
    /// Returns the page and the total number of matching pairs.
    pub async fn due(query: &DueQuery) -> Result<(Vec<DueTest>, i64), sqlx::Error>;
}

/// Folds the kept per-day counts of the due lists where writes left several rows for a day
/// (PostgreSQL's rows of changes, migration 0010; SQLite keeps one counter a day, nothing to
/// fold); whether anything changed. What the lists show stays the same.
pub async fn compact_due_counts(conn: &mut crate::db::Conn) -> Result<bool, sqlx::Error> {
    match conn.backend().await? {
        crate::db::BackendConn::Sqlite(_) => Ok(false),
        crate::db::BackendConn::Postgres(c) => {
            super::postgres::dialect::compact_due_counts(c).await
        }
    }
}
