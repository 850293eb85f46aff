//! The queues of e-mails sent by a worker inside the server (scheduled documents, notice
//! digests): each row is claimed by exactly one instance for a lease, and its outcome recorded
//! only while the claim is held. `status`: pending → sending → sent | pending (retry) | failed.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::{Connection, DbRow};
use crate::store::model::claims::*;
use crate::store::types::Ts;
use sqlx::AssertSqlSafe;

/// A row of a queue, as [`claim`] returns it.
pub(crate) trait Claimed: Sized {
    const QUEUE: Queue;
    /// The columns read besides `id` (a constant list, never input).
    const COLUMNS: &'static str;
    fn from_row(row: &DbRow) -> Result<Self, sqlx::Error>;
}

/// Claims up to `limit` due rows of `T`'s queue for `instance` until `until`: pending ones whose
/// time has come, and ones whose previous claim lapsed. On PostgreSQL the rows are locked with
/// `FOR UPDATE SKIP LOCKED`, so concurrent instances never claim the same row; on SQLite the
/// single writer connection serialises the whole claim.
pub(crate) async fn claim<T: Claimed>(
    conn: &mut Connection,
    instance: &str,
    now: &str,
    until: &str,
    limit: i64,
) -> Result<Vec<T>, sqlx::Error> {
    let lock = super::dialect::SKIP_LOCKED;
    let table = T::QUEUE.table();
    let columns = T::COLUMNS;
    let sql = format!(
        "SELECT id, {columns} FROM {table} \
         WHERE (status = 'pending' AND next_attempt_at <= $1) OR (status = 'sending' AND claimed_until < $1) \
         ORDER BY next_attempt_at LIMIT $2{lock}"
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(Ts(now))
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
    let update = format!(
        "UPDATE {table} SET status = 'sending', claimed_by = $2, claimed_until = $3, updated_at = $4 WHERE id = $1"
    );
    for r in &rows {
        let id: String = sqlx::Row::try_get(r, "id")?;
        sqlx::query(AssertSqlSafe(update.clone()))
            .bind(&id)
            .bind(instance)
            .bind(Ts(until))
            .bind(Ts(now))
            .execute(&mut *conn)
            .await?;
    }
    rows.iter().map(T::from_row).collect()
}

/// Records the outcome of one attempt, if `instance` still holds the claim (`store::claims`).
pub async fn record_attempt(
    conn: &mut Connection,
    queue: Queue,
    id: &str,
    instance: &str,
    outcome: Outcome<'_>,
    now: &str,
) -> Result<bool, sqlx::Error> {
    let sql = format!(
        "UPDATE {} SET status = $3, attempts = attempts + 1, last_error = $4, \
         next_attempt_at = COALESCE($5, next_attempt_at), sent_at = CASE WHEN $3 = 'sent' THEN $6 ELSE sent_at END, \
         claimed_by = NULL, claimed_until = NULL, updated_at = $6 \
         WHERE id = $1 AND status = 'sending' AND claimed_by = $2",
        queue.table()
    );
    let done = sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .bind(instance)
        .bind(outcome.status())
        .bind(outcome.error.or(outcome.not_delivered))
        .bind(outcome.retry_at.map(Ts))
        .bind(Ts(now))
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
