//! User records.
//!
//! The storage interface of this resource; the queries are in `sql/users.rs`.

use registry_core::Role;
use registry_core::api::{Licences, User};
use registry_core::facility::UserState;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: String,
    pub name: String,
    pub email: String,
    pub telephone: Option<String>,
    pub cpf: Option<String>,
    pub roles: Vec<Role>,
    pub active: bool,
    pub licences: Licences,
    pub password_hash: String,
    pub token_version: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// The per-account login rule. A row of `login_failures` counts the password checks made for an
/// address since its last success; `window_start` holds the earliest time the next check may be
/// made (the column's name is older than this rule).
pub struct LoginRule {
    /// Checks answered without waiting.
    pub free: i64,
    /// The wait after the last free check, doubled after each further one, up to `max_delay`.
    pub delay: std::time::Duration,
    pub max_delay: std::time::Duration,
    /// Counts older than this (past their wait) start again from zero.
    pub forget_after: std::time::Duration,
}

impl UserRow {
    /// The public view: never the password hash.
    pub fn view(&self) -> User {
        User {
            id: self.id.clone(),
            name: self.name.clone(),
            email: self.email.clone(),
            telephone: self.telephone.clone(),
            cpf: self.cpf.clone(),
            roles: self.roles.clone(),
            active: self.active,
            licences: self.licences.clone(),
            created_at: self.created_at.clone(),
            updated_at: self.updated_at.clone(),
        }
    }
}

impl LoginRule {
    /// The wait after the `n`th counted check.
    pub(crate) fn wait_after(&self, n: i64) -> std::time::Duration {
        if n < self.free {
            return std::time::Duration::ZERO;
        }
        let doublings = (n - self.free).min(20) as u32;
        self.delay
            .saturating_mul(1 << doublings)
            .min(self.max_delay)
    }
}

/// Which users a list shows.
#[derive(Debug, Clone, Default)]
pub struct UserFilter {
    /// Case- and accent-insensitive substring of the name or e-mail.
    pub q: Option<String>,
    /// Only users holding this role.
    pub role: Option<String>,
    pub active: Option<bool>,
}

backend_fns! { users;
    pub async fn by_id(id: &str) -> Result<Option<UserRow>, sqlx::Error>;

    pub async fn by_email(email: &str) -> Result<Option<UserRow>, sqlx::Error>;

    pub async fn count() -> Result<i64, sqlx::Error>;

    pub async fn email_taken(email: &str, except_id: &str) -> Result<bool, sqlx::Error>;

    /// Inserts or replaces the whole row.
    pub async fn save(u: &UserRow, insert: bool) -> Result<(), sqlx::Error>;

    /// Users, newest first, filtered by `q` (name or e-mail), `role` and `active`.
    pub async fn list(filter: &UserFilter, limit: i64, offset: i64) -> Result<(Vec<UserRow>, i64), sqlx::Error>;

    /// Whether each of `ids` exists and is active (absent from the map when it does not exist).
    pub async fn states(ids: &[&str]) -> Result<BTreeMap<String, UserState>, sqlx::Error>;

    /// Active users holding a role.
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

    /// Stores a password-recovery token (its hash) for `user_id`, valid until `expires_at`.
    pub async fn add_reset(token_hash: &str, user_id: &str, expires_at: &str) -> Result<(), sqlx::Error>;
}
