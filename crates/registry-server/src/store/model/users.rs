//! The types of `store::users` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use registry_core::Role;
use registry_core::api::{Licences, User};
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

    /// Takes the public fields of an edited [`view`](Self::view); the id, the secrets and the
    /// timestamps stay.
    pub fn take_view(&mut self, view: User) {
        self.name = view.name;
        self.email = view.email;
        self.telephone = view.telephone;
        self.cpf = view.cpf;
        self.roles = view.roles;
        self.active = view.active;
        self.licences = view.licences;
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
