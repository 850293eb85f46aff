//! Document writes: the record, its file versions, metadata, status changes and comments, with
//! the checks of what a document refers to. Reading documents (the record with its file versions,
//! comments and e-mail state, lists with filters) is in `document_reads.rs`; the durable e-mail
//! schedules the worker claims are in `document_emails.rs`.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::Connection;
use super::opt;
use super::row::{archive_row, day, exists};
use crate::store::model::documents::*;
use crate::store::types::{Day, Param, Ts};
use registry_core::document::{DocumentStatus, FileInfo};
use sqlx::{AssertSqlSafe, Row};

/// Only live documents of live facilities exist for the API.
pub(super) const LIVE: &str = "d.archived_at IS NULL AND f.archived_at IS NULL";

pub async fn state(conn: &mut Connection, id: &str) -> Result<Option<DocumentState>, sqlx::Error> {
    let sql = format!(
        "SELECT d.facility_id, d.equipment_id, d.test_id, d.status, d.file_version, cf.sha256, cf.size, d.name, f.name AS facility_name, d.date, d.validity \
         FROM documents d JOIN facilities f ON f.id = d.facility_id \
         JOIN document_files cf ON cf.document_id = d.id AND cf.version = d.file_version \
         WHERE d.id = $1 AND {LIVE}"
    );
    let Some(r) = sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(conn)
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(DocumentState {
        facility_id: r.try_get("facility_id")?,
        equipment_id: opt(&r, "equipment_id")?,
        test_id: opt(&r, "test_id")?,
        status: parse_status(&r.try_get::<String, _>("status")?)?,
        file_version: r.try_get("file_version")?,
        sha256: r.try_get("sha256")?,
        size: r.try_get("size")?,
        name: r.try_get("name")?,
        facility_name: r.try_get("facility_name")?,
        date: day(&r, "date")?,
        validity: day(&r, "validity")?,
    }))
}

pub(super) fn parse_status(s: &str) -> Result<DocumentStatus, sqlx::Error> {
    DocumentStatus::parse(s)
        .ok_or_else(|| sqlx::Error::Decode(format!("unknown document status {s:?}").into()))
}

/// Equipment that exists, is not archived and belongs to the facility.
pub async fn equipment_in_facility(
    conn: &mut Connection,
    equipment_id: &str,
    facility_id: &str,
) -> Result<bool, sqlx::Error> {
    exists(
        conn,
        "SELECT COUNT(*) FROM equipment WHERE id = $1 AND facility_id = $2 AND archived_at IS NULL",
        &[Param::text(equipment_id), Param::text(facility_id)],
    )
    .await
}

/// The equipment of a live QC test of the facility, `None` when there is no such test.
pub async fn test_equipment(
    conn: &mut Connection,
    test_id: &str,
    facility_id: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT equipment_id FROM qc_tests WHERE id = $1 AND facility_id = $2 AND archived_at IS NULL",
    )
    .bind(test_id)
    .bind(facility_id)
    .fetch_optional(conn)
    .await
}

pub(crate) fn search_text(name: &str, conclusion: Option<&str>, code: Option<&str>) -> String {
    registry_core::text::search_text([name, conclusion.unwrap_or(""), code.unwrap_or("")])
}

pub async fn insert(conn: &mut Connection, d: &NewDocument<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO documents (id, name, facility_id, equipment_id, test_id, date, validity, conclusion, status, \
         file_version, search_text, uploaded_by, uploaded_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11, $12, $12, $12)",
    )
    .bind(d.id)
    .bind(d.name)
    .bind(d.facility_id)
    .bind(d.equipment_id)
    .bind(d.test_id)
    .bind(Day(d.date))
    .bind(Day(d.validity))
    .bind(d.conclusion)
    .bind(d.status.as_str())
    .bind(search_text(d.name, d.conclusion, None))
    .bind(d.by)
    .bind(Ts(d.at))
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn add_file(
    conn: &mut Connection,
    document_id: &str,
    version: i64,
    file: &FileInfo,
    by: &str,
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO document_files (document_id, version, name, content_type, size, sha256, uploaded_by, uploaded_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(document_id)
    .bind(version)
    .bind(&file.name)
    .bind(&file.content_type)
    .bind(file.size)
    .bind(&file.sha256)
    .bind(by)
    .bind(Ts(at))
    .execute(&mut *conn)
    .await?;
    sqlx::query("UPDATE documents SET file_version = $2, uploaded_by = $3, uploaded_at = $4, updated_at = $4 WHERE id = $1")
        .bind(document_id)
        .bind(version)
        .bind(by)
        .bind(Ts(at))
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn update_metadata(
    conn: &mut Connection,
    id: &str,
    c: &MetadataChanges,
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE documents SET name = COALESCE($2, name), \
         equipment_id = CASE WHEN $3 = 1 THEN $4 ELSE equipment_id END, \
         test_id = CASE WHEN $5 = 1 THEN $6 ELSE test_id END, \
         date = COALESCE($7, date), validity = COALESCE($8, validity), \
         conclusion = CASE WHEN $9 = 1 THEN $10 ELSE conclusion END, \
         status = COALESCE($11, status), updated_at = $12 WHERE id = $1",
    )
    .bind(id)
    .bind(c.name.as_deref())
    .bind(c.equipment_id.is_some() as i64)
    .bind(c.equipment_id.clone().flatten())
    .bind(c.test_id.is_some() as i64)
    .bind(c.test_id.clone().flatten())
    .bind(c.date.as_deref().map(Day))
    .bind(c.validity.as_deref().map(Day))
    .bind(c.conclusion.is_some() as i64)
    .bind(c.conclusion.clone().flatten())
    .bind(c.status.map(|s| s.as_str()))
    .bind(Ts(at))
    .execute(&mut *conn)
    .await?;
    refresh_search_text(conn, id).await
}

async fn refresh_search_text(conn: &mut Connection, id: &str) -> Result<(), sqlx::Error> {
    let r = sqlx::query("SELECT name, conclusion, code FROM documents WHERE id = $1")
        .bind(id)
        .fetch_one(&mut *conn)
        .await?;
    let text = search_text(
        &r.try_get::<String, _>("name")?,
        opt(&r, "conclusion")?.as_deref(),
        opt(&r, "code")?.as_deref(),
    );
    sqlx::query("UPDATE documents SET search_text = $2 WHERE id = $1")
        .bind(id)
        .bind(text)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn code_taken(conn: &mut Connection, code: &str) -> Result<bool, sqlx::Error> {
    let sql = "SELECT COUNT(*) FROM documents WHERE code = $1";
    exists(conn, sql, &[Param::text(code)]).await
}

pub async fn sign(conn: &mut Connection, id: &str, s: &Signing<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE documents SET status = $2, signed_by = $3, signed_at = $4, code = $5, signature = $6, updated_at = $4 WHERE id = $1",
    )
    .bind(id)
    .bind(DocumentStatus::Signed.as_str())
    .bind(s.signer)
    .bind(Ts(s.at))
    .bind(s.code)
    .bind(s.signature)
    .execute(&mut *conn)
    .await?;
    refresh_search_text(conn, id).await
}

pub async fn liberate(
    conn: &mut Connection,
    id: &str,
    by: &str,
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE documents SET status = $2, liberated_by = $3, liberated_at = $4, updated_at = $4 WHERE id = $1",
    )
    .bind(id)
    .bind(DocumentStatus::Released.as_str())
    .bind(by)
    .bind(Ts(at))
    .execute(conn)
    .await?;
    Ok(())
}

/// Soft delete; its pending e-mails are cancelled with it.
pub async fn archive(conn: &mut Connection, id: &str, at: &str) -> Result<(), sqlx::Error> {
    archive_row(&mut *conn, "documents", id, at).await?;
    sqlx::query(
        "UPDATE email_schedules SET status = 'cancelled', updated_at = $2 WHERE document_id = $1 AND status = 'pending'",
    )
    .bind(id)
    .bind(Ts(at))
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn add_comment(
    conn: &mut Connection,
    id: &str,
    document_id: &str,
    author: &str,
    text: &str,
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO document_comments (id, document_id, author_id, text, created_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(document_id)
    .bind(author)
    .bind(text)
    .bind(Ts(at))
    .execute(&mut *conn)
    .await?;
    sqlx::query("UPDATE documents SET updated_at = $2 WHERE id = $1")
        .bind(document_id)
        .bind(Ts(at))
        .execute(conn)
        .await?;
    Ok(())
}
