//! User records.
//!
//! The storage interface of this resource; the queries are in `sql/users.rs`.

use crate::db::{BackendConn, Conn};
use registry_core::Role;
use registry_core::facility::UserState;
use std::collections::BTreeMap;

pub use super::model::users::*;

/// The user `id` (on SQLite, outside a transaction, read on the reader threads: it is the
/// token's user of every request).
pub async fn by_id(conn: &mut Conn, id: &str) -> Result<Option<UserRow>, sqlx::Error> {
    if let Some(threads) = conn.sqlite_readers() {
        return super::sqlite_reads::user(threads, id).await;
    }
    match conn.backend().await? {
        BackendConn::Sqlite(c) => super::sqlite::users::by_id(c, id).await,
        BackendConn::Postgres(c) => super::postgres::users::by_id(c, id).await,
    }
}

backend_fns! { users;
    pub async fn by_email(email: &str) -> Result<Option<UserRow>, sqlx::Error>;

    pub async fn count() -> Result<i64, sqlx::Error>;

    pub async fn email_taken(email: &str, except_id: &str) -> Result<bool, sqlx::Error>;

    /// Inserts or replaces the whole row.
    pub async fn save(u: &UserRow, insert: bool) -> Result<(), sqlx::Error>;

    /// Users, newest first, filtered by `q` (name or e-mail), `role` and `active`.
    pub async fn list(filter: &UserFilter, limit: i64, offset: i64) -> Result<(Vec<UserRow>, i64), sqlx::Error>;

    /// Whether each of `ids` exists and is active (absent from the map when it does not exist).
    pub async fn states(ids: &[&str]) -> Result<BTreeMap<String, UserState>, sqlx::Error>;

    /// Active users holding a role, counted after waiting for every other transaction that
    /// asked (until they end): two transactions that each take the role from a different holder
    /// cannot both count the other still holding it.
    pub async fn count_active_with_role(role: Role) -> Result<i64, sqlx::Error>;

    /// Reserves a password check for `email` before it is made, so that parallel guesses cannot
    /// all pass one reading of the count: `Ok(None)` when the check may go ahead (it stays counted
    /// until `clear_login_failures`), or `Ok(Some(seconds))` to wait. Must run in its own
    /// transaction: the upsert locks the row (PostgreSQL) or the database (SQLite) until commit,
    /// so a concurrent reservation sees this one.
    pub async fn reserve_login(email: &str, rule: &LoginRule, at: chrono::DateTime<chrono::Utc>) -> Result<Option<u64>, sqlx::Error>;

    /// Forgets the failed logins of `email` (a success, a new password, an Administrator's unlock).
    pub async fn clear_login_failures(email: &str) -> Result<(), sqlx::Error>;

    /// Drops the counts that `reserve_login` would start again from zero anyway (addresses tried
    /// once and never again), so guessed addresses do not pile up.
    pub async fn forget_old_login_failures(before: chrono::DateTime<chrono::Utc>) -> Result<u64, sqlx::Error>;

    /// Uses up a password-recovery token: the user it was issued to, if it is unused and not
    /// expired at `now`.
    pub async fn take_reset(token_hash: &str, now: &str) -> Result<Option<String>, sqlx::Error>;

    /// The user a password-recovery token was issued to, while it is usable at `now` (read only).
    pub async fn reset_owner(token_hash: &str, now: &str) -> Result<Option<String>, sqlx::Error>;

    /// Stores a password-recovery token (its hash) for `user_id`, valid until `expires_at`.
    pub async fn add_reset(token_hash: &str, user_id: &str, expires_at: &str) -> Result<(), sqlx::Error>;

    /// Uses up every recovery code of `user_id` not used yet: a password set any way ends them.
    pub async fn drop_resets(user_id: &str, now: &str) -> Result<(), sqlx::Error>;
}
