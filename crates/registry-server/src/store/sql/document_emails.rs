//! The durable e-mail schedules of documents: whom to send to, scheduling, and the claims of the
//! worker that sends them.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::claims::Claimed;
use super::{Connection, DbRow};
use super::row::json;
use crate::store::model::claims::Queue;
use crate::store::model::documents::*;
use crate::store::types::{JsonText, Ts};
use sqlx::{AssertSqlSafe, Row};

/// The e-mail addresses of the active users linked to the facility that `facility` selects (an
/// expression of `$1`), in the facility's order.
fn recipients_sql(facility: &str) -> String {
    format!(
        "SELECT u.email FROM facility_users fu JOIN users u ON u.id = fu.user_id \
         WHERE fu.facility_id = {facility} AND u.active = TRUE ORDER BY fu.position"
    )
}

/// The e-mail addresses of the facility's active users.
pub async fn facility_recipients(
    conn: &mut Connection,
    facility_id: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(AssertSqlSafe(recipients_sql("$1")))
        .bind(facility_id)
        .fetch_all(conn)
        .await
}

/// Recipients as stored (a JSON array).
fn recipients_json(recipients: &[String]) -> JsonText<String> {
    JsonText(serde_json::to_string(recipients).unwrap_or_else(|_| "[]".into()))
}

pub async fn schedule_email(conn: &mut Connection, s: &NewSchedule<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO email_schedules (id, document_id, recipients, send_at, status, attempts, next_attempt_at, created_by, created_at, updated_at, to_facility_users) \
         VALUES ($1, $2, $3, $4, 'pending', 0, $4, $5, $6, $6, $7)",
    )
    .bind(s.id)
    .bind(s.document_id)
    .bind(recipients_json(s.recipients))
    .bind(Ts(s.send_at))
    .bind(s.by)
    .bind(Ts(s.at))
    .bind(s.to_facility_users)
    .execute(conn)
    .await?;
    Ok(())
}

/// Claims up to `limit` due schedules for `instance` until `until` (see `claims::claim`). A
/// schedule sent to the facility's active users takes them as they are now, not as they were
/// when it was scheduled (product.md §5), and keeps them as its recipients (the document's
/// `scheduledEmail.to` and `sentEmail.to`).
pub async fn claim_due(
    conn: &mut Connection,
    instance: &str,
    now: &str,
    until: &str,
    limit: i64,
) -> Result<Vec<ClaimedEmail>, sqlx::Error> {
    let mut claimed: Vec<ClaimedEmail> =
        super::claims::claim(conn, instance, now, until, limit).await?;
    for email in claimed.iter_mut().filter(|e| e.to_facility_users) {
        let of_document = recipients_sql("(SELECT facility_id FROM documents WHERE id = $1)");
        email.recipients = sqlx::query_scalar(AssertSqlSafe(of_document))
            .bind(&email.document_id)
            .fetch_all(&mut *conn)
            .await?;
        sqlx::query("UPDATE email_schedules SET recipients = $2 WHERE id = $1")
            .bind(&email.id)
            .bind(recipients_json(&email.recipients))
            .execute(&mut *conn)
            .await?;
    }
    Ok(claimed)
}

impl Claimed for ClaimedEmail {
    const QUEUE: Queue = Queue::EmailSchedules;
    const COLUMNS: &'static str = "document_id, recipients, to_facility_users, attempts";

    fn from_row(r: &DbRow) -> Result<Self, sqlx::Error> {
        Ok(ClaimedEmail {
            id: r.try_get("id")?,
            document_id: r.try_get("document_id")?,
            recipients: serde_json::from_str(&json(r, "recipients")?).unwrap_or_default(),
            to_facility_users: r.try_get("to_facility_users")?,
            attempts: r.try_get("attempts")?,
        })
    }
}

pub async fn cancel_facility_emails(
    conn: &mut Connection,
    facility_id: &str,
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE email_schedules SET status = 'cancelled', updated_at = $2 WHERE status = 'pending' \
         AND document_id IN (SELECT id FROM documents WHERE facility_id = $1)",
    )
    .bind(facility_id)
    .bind(Ts(at))
    .execute(conn)
    .await?;
    Ok(())
}
