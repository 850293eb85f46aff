//! The audit log: who changed what, when, with the record before and after.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::Connection;
use super::row::{json_opt, ts};
use crate::db::{new_id, now};
use crate::store::model::audit::*;
use crate::store::types::{JsonText, Ts};
use registry_core::api::{Actor, AuditEvent};
use serde_json::Value;
use sqlx::Row;

pub async fn record(conn: &mut Connection, change: Change<'_>) -> Result<(), sqlx::Error> {
    let json = |v: Option<&Value>| v.map(Value::to_string);
    let role_changes = (!change.role_changes.is_empty())
        .then(|| serde_json::to_string(change.role_changes).unwrap_or_default());
    let (before, after) = (json(change.before), json(change.after));
    sqlx::query(
        "INSERT INTO audit_events (id, entity, entity_id, action, actor_id, at, before_json, after_json, role_changes) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(new_id())
    .bind(change.entity)
    .bind(change.entity_id)
    .bind(change.action)
    .bind(change.actor)
    .bind(Ts(&now()))
    .bind(before.as_deref().map(JsonText))
    .bind(after.as_deref().map(JsonText))
    .bind(role_changes.as_deref().map(JsonText))
    .execute(conn)
    .await?;
    Ok(())
}

/// Events of one record, newest first.
pub async fn history(
    conn: &mut Connection,
    entity: &str,
    entity_id: &str,
    limit: i64,
    offset: i64,
) -> Result<(Vec<AuditEvent>, i64), sqlx::Error> {
    let total: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM audit_events WHERE entity = $1 AND entity_id = $2",
    )
    .bind(entity)
    .bind(entity_id)
    .fetch_one(&mut *conn)
    .await?;
    let rows = sqlx::query(
        "SELECT a.id, a.action, a.actor_id, u.name AS actor_name, a.at, a.before_json, a.after_json, a.role_changes \
         FROM audit_events a LEFT JOIN users u ON u.id = a.actor_id \
         WHERE a.entity = $1 AND a.entity_id = $2 ORDER BY a.id DESC LIMIT $3 OFFSET $4",
    )
    .bind(entity)
    .bind(entity_id)
    .bind(limit)
    .bind(offset)
    .fetch_all(&mut *conn)
    .await?;
    let parse = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
    let events = rows
        .into_iter()
        .map(|r| {
            let actor_id: Option<String> = r.try_get("actor_id")?;
            let actor_name: Option<String> = r.try_get("actor_name")?;
            let at = ts(&r, "at")?;
            Ok(AuditEvent {
                id: r.try_get("id")?,
                entity: entity.to_owned(),
                entity_id: entity_id.to_owned(),
                action: r.try_get("action")?,
                actor: actor_id.map(|id| Actor {
                    id,
                    name: actor_name.unwrap_or_default(),
                }),
                created_at: at.clone(),
                updated_at: at.clone(),
                at,
                before: parse(json_opt(&r, "before_json")?),
                after: parse(json_opt(&r, "after_json")?),
                role_changes: json_opt(&r, "role_changes")?
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or_default(),
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok((events, total))
}
