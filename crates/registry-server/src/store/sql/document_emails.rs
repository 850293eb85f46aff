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
use sqlx::Row;

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
pub(crate) use super::claims::claim as claim_due;

impl Claimed for ClaimedEmail {
    const QUEUE: Queue = Queue::EmailSchedules;
    const COLUMNS: &'static str = "document_id, recipients, attempts";

    fn from_row(r: &DbRow) -> Result<Self, sqlx::Error> {
        Ok(ClaimedEmail {
            id: r.try_get("id")?,
            document_id: r.try_get("document_id")?,
            recipients: serde_json::from_str(&json(r, "recipients")?).unwrap_or_default(),
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
