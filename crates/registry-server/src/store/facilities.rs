//! Facility records: the facility row and its children (addresses, user links, radioisotopes,
//! practices, images), loaded for a page in a fixed number of queries.
//!
//! The storage interface of this resource; the queries are in `sql/facilities.rs` (writes) and
//! `sql/facility_reads.rs` (views and lists), which a SQLite read runs on the reader threads
//! (`sqlite_reads.rs`).

use super::model::users::UserAuth;
use crate::db::{BackendConn, Conn};
use registry_core::Department;
use registry_core::api::Facility;
use registry_core::equipment::Reference;

pub use super::model::facilities::*;

/// Live facilities with these ids, enriched, in the order of `ids` (missing ones are skipped).
pub async fn views(conn: &mut Conn, ids: &[String]) -> Result<Vec<Facility>, sqlx::Error> {
    if let Some(threads) = conn.sqlite_readers() {
        return super::sqlite_reads::views(threads, ids).await;
    }
    match conn.backend().await? {
        BackendConn::Sqlite(c) => super::sqlite::facility_reads::views(c, ids).await,
        BackendConn::Postgres(c) => super::postgres::facility_reads::views(c, ids).await,
    }
}

pub async fn view(conn: &mut Conn, id: &str) -> Result<Option<Facility>, sqlx::Error> {
    Ok(views(conn, &[id.to_owned()]).await?.pop())
}

/// With `view`, the live facility `id`; and where that saves a round trip, the account of
/// `user_id` read by the same statement with whether it is linked to the facility: on
/// PostgreSQL, where a round trip costs about what the reading does (docs/benchmarks.md,
/// nineteenth round), one statement answers `Some((account, linked))`; on SQLite, whose reads
/// stay in the process and whose token accounts are cached, the account part is `None`, for the
/// caller to read as any request does.
pub async fn view_with_account(
    conn: &mut Conn,
    id: &str,
    user_id: &str,
    view: bool,
) -> Result<(Option<Facility>, Option<(Option<UserAuth>, bool)>), sqlx::Error> {
    if conn.sqlite_readers().is_none()
        && let BackendConn::Postgres(c) = conn.backend().await?
    {
        let (facility, account, linked) =
            super::postgres::combined::facility_with_account(c, id, user_id, view).await?;
        return Ok((facility, Some((account, linked))));
    }
    match view {
        true => Ok((self::view(conn, id).await?, None)),
        false => Ok((None, None)),
    }
}

/// The live facility `id` as a record names it, or `None`, held until the transaction ends: the
/// row is kept (`FOR KEY SHARE`, which an archive's row lock waits for) before it is read, so a
/// record written under it in this transaction never belongs to a facility archived meanwhile.
pub async fn hold_live(conn: &mut Conn, id: &str) -> Result<Option<Reference>, sqlx::Error> {
    crate::store::share_row(conn, "facilities", id).await?;
    reference(conn, id).await
}

/// The live facility `id` as a record names it, or `None`.
pub async fn reference(conn: &mut Conn, id: &str) -> Result<Option<Reference>, sqlx::Error> {
    Ok(view(conn, id).await?.map(|f| Reference {
        id: f.id,
        name: f.name,
    }))
}

/// A page of live facilities, newest first, with the filters of product.md §2.
pub async fn list(
    conn: &mut Conn,
    filter: &FacilityFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    if let Some(threads) = conn.sqlite_readers() {
        return super::sqlite_reads::list(threads, filter, limit, offset).await;
    }
    let trigrams = conn.pg_trigrams();
    match conn.backend().await? {
        BackendConn::Sqlite(c) => {
            super::sqlite::facility_reads::list(c, filter, &[], limit, offset).await
        }
        BackendConn::Postgres(c) => {
            let rare = match (&filter.q, trigrams) {
                (Some(q), Some(trigrams)) => trigrams.rare(c, q).await,
                _ => Vec::new(),
            };
            super::postgres::facility_reads::list(c, filter, &rare, limit, offset).await
        }
    }
}

backend_fns! { facilities;
    pub async fn insert(r: &FacilityRecord) -> Result<(), sqlx::Error>;

    /// Inserts new facilities with one statement per table (a bulk load): in id order, all after
    /// every live facility, at most 2,000.
    pub async fn insert_many(records: &[FacilityRecord]) -> Result<(), sqlx::Error>;

    /// Saves the row of `r`, whose stored fields are `stored`, and replaces the children that
    /// differ.
    pub async fn update(stored: &FacilityFields, r: &FacilityRecord) -> Result<(), sqlx::Error>;

    /// Inserts `rows` (each with one value per column) into `table` in one statement.
    pub async fn insert_rows(table: &str, columns: &[&str], rows: Vec<Vec<Param>>) -> Result<(), sqlx::Error>;

    /// The live facility already registered with this cnpj in this department, if any.
    pub async fn live_duplicate(cnpj: &str, department: Department, except_id: &str) -> Result<Option<String>, sqlx::Error>;

    /// Whether equipment, documents or QC tests refer to the facility.
    pub async fn has_records(id: &str) -> Result<bool, sqlx::Error>;

    pub async fn is_member(facility_id: &str, user_id: &str) -> Result<bool, sqlx::Error>;

    /// Waits for, then holds off, the other writers of ranks; taken before any facility row lock.
    pub async fn lock_ranks() -> Result<(), sqlx::Error>;

    /// The department of the live facility `id`, read without a lock.
    pub async fn department(id: &str) -> Result<Option<String>, sqlx::Error>;

    pub async fn archive(id: &str, at: &str) -> Result<bool, sqlx::Error>;

    pub async fn touch(id: &str, at: &str) -> Result<(), sqlx::Error>;

    pub async fn set_image(id: &str, kind: ImageKind, content_type: &str, data: &[u8], at: &str) -> Result<(), sqlx::Error>;

    pub async fn image(id: &str, kind: ImageKind) -> Result<Option<(String, Vec<u8>)>, sqlx::Error>;

    /// The content type and size of an image, without its bytes.
    pub async fn image_info(id: &str, kind: ImageKind) -> Result<Option<(String, i64)>, sqlx::Error>;

    pub async fn remove_image(id: &str, kind: ImageKind) -> Result<bool, sqlx::Error>;
}

/// The SQL text [`views`] runs on `backend` for `ids`, and what it binds: the facility by id is
/// one id. For measuring that query outside the server (examples/sqlite_drivers.rs).
pub fn views_query(backend: crate::db::Backend, ids: &[String]) -> (String, Vec<String>) {
    match backend {
        crate::db::Backend::Sqlite => crate::store::sqlite::facility_reads::views_query(ids),
        crate::db::Backend::Postgres => crate::store::postgres::facility_reads::views_query(ids),
    }
}
