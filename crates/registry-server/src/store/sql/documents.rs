//! Document queries: the record with its file versions and comments, lists with filters, status
//! changes, and the durable e-mail schedules the worker claims.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::opt;
use super::row::{bind, day, json, ts, ts_opt};
use super::{Connection, DbRow};
use crate::db::placeholders;
use crate::store::claims::Queue;
use crate::store::documents::*;
use crate::store::types::{Day, JsonText, Ts};
use registry_core::document::{
    Comment, Document, DocumentStatus, FileInfo, FileVersion, Person, RecordRef, ScheduledEmail,
    SentEmail,
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

/// Only live documents of live facilities exist for the API.
const LIVE: &str = "d.archived_at IS NULL AND f.archived_at IS NULL";

pub async fn state(conn: &mut Connection, id: &str) -> Result<Option<DocumentState>, sqlx::Error> {
    let sql = format!(
        "SELECT d.facility_id, d.equipment_id, d.status, d.file_version, cf.sha256, cf.size, d.name, f.name AS facility_name, d.date, d.validity \
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

fn parse_status(s: &str) -> Result<DocumentStatus, sqlx::Error> {
    DocumentStatus::parse(s)
        .ok_or_else(|| sqlx::Error::Decode(format!("unknown document status {s:?}").into()))
}

/// Equipment that exists, is not archived and belongs to the facility.
pub async fn equipment_in_facility(
    conn: &mut Connection,
    equipment_id: &str,
    facility_id: &str,
) -> Result<bool, sqlx::Error> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM equipment WHERE id = $1 AND facility_id = $2 AND archived_at IS NULL",
    )
    .bind(equipment_id)
    .bind(facility_id)
    .fetch_one(conn)
    .await?;
    Ok(n > 0)
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

fn search_text(name: &str, conclusion: Option<&str>, code: Option<&str>) -> String {
    crate::db::search_key(&format!(
        "{name} {} {}",
        conclusion.unwrap_or(""),
        code.unwrap_or("")
    ))
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
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM documents WHERE code = $1")
        .bind(code)
        .fetch_one(conn)
        .await?;
    Ok(n > 0)
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
    sqlx::query("UPDATE documents SET archived_at = $2, updated_at = $2 WHERE id = $1")
        .bind(id)
        .bind(Ts(at))
        .execute(&mut *conn)
        .await?;
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
    row.map(|r| {
        Ok(FileInfo {
            name: r.try_get("name")?,
            content_type: r.try_get("content_type")?,
            size: r.try_get("size")?,
            sha256: r.try_get("sha256")?,
        })
    })
    .transpose()
}

pub async fn view(
    conn: &mut Connection,
    id: &str,
    filter: &DocumentFilter,
) -> Result<Option<Document>, sqlx::Error> {
    let (clause, binds) = filter.clause(2);
    let sql = format!("{SELECT} WHERE d.id = $1 AND {LIVE}{clause}");
    let mut query = sqlx::query(AssertSqlSafe(sql)).bind(id);
    for b in binds {
        query = bind(query, b);
    }
    let rows = query.fetch_all(&mut *conn).await?;
    Ok(assemble(conn, rows).await?.pop())
}

pub async fn list(
    conn: &mut Connection,
    filter: &DocumentFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Document>, i64), sqlx::Error> {
    let (clause, binds) = filter.clause(1);
    let count_sql = format!(
        "SELECT COUNT(*) FROM documents d JOIN facilities f ON f.id = d.facility_id WHERE {LIVE}{clause}"
    );
    let mut count = sqlx::query(AssertSqlSafe(count_sql));
    for b in binds.iter().cloned() {
        count = bind(count, b);
    }
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get(0)?;
    let n = binds.len();
    let sql = format!(
        "{SELECT} WHERE {LIVE}{clause} ORDER BY d.id DESC LIMIT ${} OFFSET ${}",
        n + 1,
        n + 2
    );
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for b in binds {
        query = bind(query, b);
    }
    let rows = query.bind(limit).bind(offset).fetch_all(&mut *conn).await?;
    Ok((assemble(conn, rows).await?, total))
}

fn person(r: &DbRow, id: &str, name: &str) -> Result<Option<Person>, sqlx::Error> {
    Ok(opt(r, id)?.map(|id| Person {
        id,
        name: opt(r, name).ok().flatten().unwrap_or_default(),
    }))
}

/// Documents from their rows, with comments, versions and e-mail state loaded in one query each.
async fn assemble(conn: &mut Connection, rows: Vec<DbRow>) -> Result<Vec<Document>, sqlx::Error> {
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
            Ok(Document {
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
                file: FileInfo {
                    name: r.try_get("file_name")?,
                    content_type: r.try_get("content_type")?,
                    size: r.try_get("size")?,
                    sha256: r.try_get("sha256")?,
                },
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
            })
        })
        .collect()
}

async fn comments_of(
    conn: &mut Connection,
    ids: &[String],
) -> Result<HashMap<String, Vec<Comment>>, sqlx::Error> {
    let sql = format!(
        "SELECT c.id, c.document_id, c.author_id, u.name, c.text, c.created_at FROM document_comments c \
         JOIN users u ON u.id = c.author_id WHERE c.document_id IN ({}) ORDER BY c.id",
        placeholders(1, ids.len())
    );
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for id in ids {
        query = query.bind(id);
    }
    let mut out: HashMap<String, Vec<Comment>> = HashMap::new();
    for r in query.fetch_all(conn).await? {
        out.entry(r.try_get("document_id")?)
            .or_default()
            .push(Comment {
                id: r.try_get("id")?,
                author: Person {
                    id: r.try_get("author_id")?,
                    name: r.try_get("name")?,
                },
                text: r.try_get("text")?,
                created_at: ts(&r, "created_at")?,
            });
    }
    Ok(out)
}

async fn versions_of(
    conn: &mut Connection,
    ids: &[String],
) -> Result<HashMap<String, Vec<FileVersion>>, sqlx::Error> {
    let sql = format!(
        "SELECT v.document_id, v.version, v.name, v.content_type, v.size, v.sha256, v.uploaded_by, u.name AS uploader, v.uploaded_at \
         FROM document_files v JOIN users u ON u.id = v.uploaded_by WHERE v.document_id IN ({}) ORDER BY v.version DESC",
        placeholders(1, ids.len())
    );
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for id in ids {
        query = query.bind(id);
    }
    let mut out: HashMap<String, Vec<FileVersion>> = HashMap::new();
    for r in query.fetch_all(conn).await? {
        out.entry(r.try_get("document_id")?)
            .or_default()
            .push(FileVersion {
                version: r.try_get("version")?,
                file: FileInfo {
                    name: r.try_get("name")?,
                    content_type: r.try_get("content_type")?,
                    size: r.try_get("size")?,
                    sha256: r.try_get("sha256")?,
                },
                uploaded_by: Person {
                    id: r.try_get("uploaded_by")?,
                    name: r.try_get("uploader")?,
                },
                uploaded_at: ts(&r, "uploaded_at")?,
            });
    }
    Ok(out)
}

type EmailState = (Option<ScheduledEmail>, Option<SentEmail>);

/// Per document: its latest schedule, and its latest delivered one.
async fn emails_of(
    conn: &mut Connection,
    ids: &[String],
) -> Result<HashMap<String, EmailState>, sqlx::Error> {
    let sql = format!(
        "SELECT id, document_id, recipients, send_at, status, attempts, next_attempt_at, last_error, sent_at \
         FROM email_schedules WHERE document_id IN ({}) ORDER BY id",
        placeholders(1, ids.len())
    );
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for id in ids {
        query = query.bind(id);
    }
    let mut out: HashMap<String, EmailState> = HashMap::new();
    for r in query.fetch_all(conn).await? {
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

/// The e-mail addresses of the facility's active users.
pub async fn facility_recipients(
    conn: &mut Connection,
    facility_id: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT u.email FROM facility_users fu JOIN users u ON u.id = fu.user_id \
         WHERE fu.facility_id = $1 AND u.active = TRUE ORDER BY fu.position",
    )
    .bind(facility_id)
    .fetch_all(conn)
    .await
}

pub async fn schedule_email(conn: &mut Connection, s: &NewSchedule<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO email_schedules (id, document_id, recipients, send_at, status, attempts, next_attempt_at, created_by, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, 'pending', 0, $4, $5, $6, $6)",
    )
    .bind(s.id)
    .bind(s.document_id)
    .bind(JsonText(
        serde_json::to_string(s.recipients).unwrap_or_else(|_| "[]".into()),
    ))
    .bind(Ts(s.send_at))
    .bind(s.by)
    .bind(Ts(s.at))
    .execute(conn)
    .await?;
    Ok(())
}

/// Claims up to `limit` due schedules for `instance` until `until` (see `claims::claim`).
pub async fn claim_due(
    conn: &mut Connection,
    instance: &str,
    now: &str,
    until: &str,
    limit: i64,
) -> Result<Vec<ClaimedEmail>, sqlx::Error> {
    let rows = super::claims::claim(
        conn,
        Queue::EmailSchedules,
        "document_id, recipients, attempts",
        instance,
        now,
        until,
        limit,
    )
    .await?;
    rows.iter()
        .map(|r| {
            Ok(ClaimedEmail {
                id: r.try_get("id")?,
                document_id: r.try_get("document_id")?,
                recipients: serde_json::from_str(&json(r, "recipients")?).unwrap_or_default(),
                attempts: r.try_get("attempts")?,
            })
        })
        .collect()
}
