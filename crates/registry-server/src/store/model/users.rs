//! The types of `store::users` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use registry_core::Role;
use registry_core::api::User;

/// A stored account: its public view and what never leaves the server.
#[derive(Debug, Clone)]
pub struct UserRow {
    /// What the API shows of the account (never the secrets below).
    pub profile: User,
    pub password_hash: String,
    /// Raised to revoke every token issued before (deactivation, password change).
    pub token_version: i64,
}

/// The stored fields of an account that authentication needs.
#[derive(Debug, Clone)]
pub struct UserAuth {
    pub name: String,
    pub email: String,
    pub roles: Vec<Role>,
    pub active: bool,
    pub token_version: i64,
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
