//! Reading documents: one stored file, the record with its file versions, comments and e-mail
//! state (each loaded in one query for a whole page), and lists with filters.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::documents::{LIVE, parse_status};
use super::opt;
use super::row::{day, fetch_all, json, page_rows, ts, ts_opt};
use crate::store::types::Param;
use super::{Connection, DbRow};
use crate::store::model::documents::*;
use registry_core::document::{
    Comment, Document, FileInfo, FileVersion, Person, RecordRef, ScheduledEmail, SentEmail,
};
use sqlx::{AssertSqlSafe, Row};
use std::collections::HashMap;

const SELECT: &str = "SELECT d.id, d.name, d.facility_id, f.name AS facility_name, d.equipment_id, d.test_id, \
     d.date, d.validity, d.conclusion, d.status, d.uploaded_by, uu.name AS uploader_name, d.uploaded_at, \
     d.signed_by, su.name AS signer_name, d.signed_at, d.code, d.signature, \
     d.liberated_by, lu.name AS liberator_name, d.liberated_at, d.created_at, d.updated_at, \
     cf.name AS file_name, cf.content_type, cf.size, cf.sha256 \
     FROM documents d JOIN facilities f ON f.id = d.facility_id JOIN users uu ON uu.id = d.uploaded_by \
     LEFT JOIN users su ON su.id = d.signed_by LEFT JOIN users lu ON lu.id = d.liberated_by \
     JOIN document_files cf ON cf.document_id = d.id AND cf.version = d.file_version";

/// One stored file of a live document: the current one, or `version`.
pub async fn file(
    conn: &mut Connection,
    id: &str,
    version: Option<i64>,
) -> Result<Option<FileInfo>, sqlx::Error> {
    let sql = format!(
        "SELECT cf.name, cf.content_type, cf.size, cf.sha256 FROM documents d \
         JOIN facilities f ON f.id = d.facility_id \
         JOIN document_files cf ON cf.document_id = d.id AND cf.version = COALESCE($2, d.file_version) \
         WHERE d.id = $1 AND {LIVE}"
    );
    let row = sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .bind(version)
        .fetch_optional(conn)
        .await?;
    row.map(|r| file_info(&r, "name")).transpose()
}

/// A stored file's description, its name read from the column `name`.
fn file_info(r: &DbRow, name: &str) -> Result<FileInfo, sqlx::Error> {
    Ok(FileInfo {
        name: r.try_get(name)?,
        content_type: r.try_get("content_type")?,
        size: r.try_get("size")?,
        sha256: r.try_get("sha256")?,
    })
}

pub async fn view(
    conn: &mut Connection,
    id: &str,
    filter: &DocumentFilter,
) -> Result<Option<Document>, sqlx::Error> {
    let (clause, binds) = filter.clause(2);
    let sql = format!("{SELECT} WHERE d.id = $1 AND {LIVE}{clause}");
    let binds: Vec<Param> = std::iter::once(Param::text(id)).chain(binds).collect();
    let rows = fetch_all(&mut *conn, sql, &binds).await?;
    Ok(assemble(conn, rows, filter).await?.pop())
}

pub async fn list(
    conn: &mut Connection,
    filter: &DocumentFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Document>, i64), sqlx::Error> {
    let (clause, binds) = filter.clause(1);
    let (rows, total) = page_rows(
        &mut *conn,
        format!("SELECT COUNT(*) FROM documents d JOIN facilities f ON f.id = d.facility_id WHERE {LIVE}{clause}"),
        format!("{SELECT} WHERE {LIVE}{clause} ORDER BY d.id DESC"),
        binds,
        limit,
        offset,
    )
    .await?;
    Ok((assemble(conn, rows, filter).await?, total))
}

fn person(r: &DbRow, id: &str, name: &str) -> Result<Option<Person>, sqlx::Error> {
    Ok(opt(r, id)?.map(|id| Person {
        id,
        name: opt(r, name).ok().flatten().unwrap_or_default(),
    }))
}

/// Documents from their rows, with comments, versions and e-mail state loaded in one query each.
/// A client's view (`filter.client`) lists the current file only: earlier ones were drafts, never
/// released to them.
async fn assemble(
    conn: &mut Connection,
    rows: Vec<DbRow>,
    filter: &DocumentFilter,
) -> Result<Vec<Document>, sqlx::Error> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = rows
        .iter()
        .map(|r| r.try_get("id"))
        .collect::<Result<_, _>>()?;
    let mut comments = comments_of(conn, &ids).await?;
    let mut versions = versions_of(conn, &ids).await?;
    let mut emails = emails_of(conn, &ids).await?;
    rows.into_iter()
        .map(|r| {
            let id: String = r.try_get("id")?;
            let (scheduled_email, sent_email) = emails.remove(&id).unwrap_or_default();
            let document = Document {
                name: r.try_get("name")?,
                facility: RecordRef {
                    id: r.try_get("facility_id")?,
                    name: opt(&r, "facility_name")?,
                },
                equipment: opt(&r, "equipment_id")?.map(|id| RecordRef { id, name: None }),
                test: opt(&r, "test_id")?.map(|id| RecordRef { id, name: None }),
                date: day(&r, "date")?,
                validity: day(&r, "validity")?,
                conclusion: opt(&r, "conclusion")?,
                status: parse_status(&r.try_get::<String, _>("status")?)?,
                file: file_info(&r, "file_name")?,
                uploaded_by: person(&r, "uploaded_by", "uploader_name")?.unwrap_or(Person {
                    id: String::new(),
                    name: String::new(),
                }),
                uploaded_at: ts(&r, "uploaded_at")?,
                signed_by: person(&r, "signed_by", "signer_name")?,
                signed_at: ts_opt(&r, "signed_at")?,
                code: opt(&r, "code")?,
                signature: opt(&r, "signature")?,
                liberated_by: person(&r, "liberated_by", "liberator_name")?,
                liberated_at: ts_opt(&r, "liberated_at")?,
                comments: comments.remove(&id).unwrap_or_default(),
                scheduled_email,
                sent_email,
                versions: versions.remove(&id).unwrap_or_default(),
                created_at: ts(&r, "created_at")?,
                updated_at: ts(&r, "updated_at")?,
                id,
            };
            Ok(match filter.client {
                Some(_) => document.as_client_sees_it(),
                None => document,
            })
        })
        .collect()
}

/// The rows that `select` (a query ending in `WHERE <its document_id column>`) finds for the
/// documents `ids`, in `order`.
async fn rows_for(
    conn: &mut Connection,
    select: &str,
    order: &str,
    ids: &[String],
) -> Result<Vec<DbRow>, sqlx::Error> {
    let (list, binds) = super::dialect::id_list(ids);
    let sql = format!("{select} IN ({list}) ORDER BY {order}");
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for bind in binds {
        query = query.bind(bind);
    }
    query.fetch_all(conn).await
}

/// `rows` read by `from_row`, grouped by their `document_id` (in the rows' order).
fn by_document<T>(
    rows: &[DbRow],
    from_row: impl Fn(&DbRow) -> Result<T, sqlx::Error>,
) -> Result<HashMap<String, Vec<T>>, sqlx::Error> {
    let mut out: HashMap<String, Vec<T>> = HashMap::new();
    for r in rows {
        out.entry(r.try_get("document_id")?)
            .or_default()
            .push(from_row(r)?);
    }
    Ok(out)
}

async fn comments_of(
    conn: &mut Connection,
    ids: &[String],
) -> Result<HashMap<String, Vec<Comment>>, sqlx::Error> {
    let select = "SELECT c.id, c.document_id, c.author_id, u.name, c.text, c.created_at FROM document_comments c \
         JOIN users u ON u.id = c.author_id WHERE c.document_id";
    let rows = rows_for(conn, select, "c.id", ids).await?;
    by_document(&rows, |r| {
        Ok(Comment {
            id: r.try_get("id")?,
            author: Person {
                id: r.try_get("author_id")?,
                name: r.try_get("name")?,
            },
            text: r.try_get("text")?,
            created_at: ts(r, "created_at")?,
        })
    })
}

async fn versions_of(
    conn: &mut Connection,
    ids: &[String],
) -> Result<HashMap<String, Vec<FileVersion>>, sqlx::Error> {
    let select = "SELECT v.document_id, v.version, v.name, v.content_type, v.size, v.sha256, v.uploaded_by, \
         u.name AS uploader, v.uploaded_at FROM document_files v JOIN users u ON u.id = v.uploaded_by \
         WHERE v.document_id";
    let rows = rows_for(conn, select, "v.version DESC", ids).await?;
    by_document(&rows, |r| {
        Ok(FileVersion {
            version: r.try_get("version")?,
            file: file_info(r, "name")?,
            uploaded_by: Person {
                id: r.try_get("uploaded_by")?,
                name: r.try_get("uploader")?,
            },
            uploaded_at: ts(r, "uploaded_at")?,
        })
    })
}

type EmailState = (Option<ScheduledEmail>, Option<SentEmail>);

/// Per document: its latest schedule, and its latest delivered one.
async fn emails_of(
    conn: &mut Connection,
    ids: &[String],
) -> Result<HashMap<String, EmailState>, sqlx::Error> {
    let select = "SELECT id, document_id, recipients, send_at, status, attempts, next_attempt_at, last_error, \
         sent_at FROM email_schedules WHERE document_id";
    let rows = rows_for(conn, select, "id", ids).await?;
    let mut out: HashMap<String, EmailState> = HashMap::new();
    for r in rows {
        let to: Vec<String> = serde_json::from_str(&json(&r, "recipients")?).unwrap_or_default();
        let status: String = r.try_get("status")?;
        let entry = out.entry(r.try_get("document_id")?).or_default();
        let schedule = ScheduledEmail {
            id: r.try_get("id")?,
            send_at: ts(&r, "send_at")?,
            to,
            next_attempt_at: (status == "pending")
                .then(|| ts(&r, "next_attempt_at"))
                .transpose()?,
            status,
            attempts: r.try_get("attempts")?,
            last_error: opt(&r, "last_error")?,
            sent_at: ts_opt(&r, "sent_at")?,
        };
        if let (Some(sent_at), "sent") = (&schedule.sent_at, schedule.status.as_str()) {
            entry.1 = Some(SentEmail {
                id: schedule.id.clone(),
                sent_at: sent_at.clone(),
                to: schedule.to.clone(),
            });
        }
        entry.0 = Some(schedule);
    }
    Ok(out)
}
