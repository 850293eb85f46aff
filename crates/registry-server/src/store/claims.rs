//! The queues of e-mails sent by a worker inside the server (scheduled documents, notice
//! digests): each row is claimed by exactly one instance for a lease, and its outcome recorded
//! only while the claim is held. `status`: pending → sending → sent | pending (retry) | failed.
//!
//! The storage interface of this resource; the queries are in `sql/claims.rs`.

pub use super::model::claims::*;

backend_fns! { claims;

    /// Records the outcome of one attempt, if `instance` still holds the claim: `sent`, a retry at
    /// `retry_at`, or `failed` (an `error` and no `retry_at`); `last_error` shows the `error` or,
    /// of a message sent, `not_delivered`. Returns whether the claim was still held.
    pub async fn record_attempt(queue: Queue, id: &str, instance: &str, outcome: Outcome<'_>, now: &str) -> Result<bool, sqlx::Error>;
}
