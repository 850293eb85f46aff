//! The audit log: who changed what, when, with the record before and after.
//!
//! The storage interface of this resource; the queries are in `sql/audit.rs`.

use registry_core::api::AuditEvent;
use registry_core::audit::Action;

pub use super::model::audit::*;

backend_fns! { audit;
    pub async fn record(change: Change<'_>) -> Result<(), sqlx::Error>;

    /// Events of one record, newest first.
    pub async fn history(entity: &str, entity_id: &str, limit: i64, offset: i64) -> Result<(Vec<AuditEvent>, i64), sqlx::Error>;
}

/// Records a change to one record from its before/after snapshots (serialised as the API shows
/// them). The one helper every resource uses; facility edits that carry role changes use `record`.
pub async fn record_change<T: serde::Serialize>(
    conn: &mut crate::db::Conn,
    actor: Option<&str>,
    entity: &str,
    entity_id: &str,
    action: Action,
    before: Option<&T>,
    after: Option<&T>,
) -> anyhow::Result<()> {
    let json = |v: Option<&T>| v.map(serde_json::to_value).transpose();
    let (before, after) = (json(before)?, json(after)?);
    record(
        conn,
        Change {
            entity,
            entity_id,
            action: &action.name(),
            actor,
            before: before.as_ref(),
            after: after.as_ref(),
            role_changes: &[],
        },
    )
    .await?;
    Ok(())
}
