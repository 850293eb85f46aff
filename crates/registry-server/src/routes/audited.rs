//! The steps around the audit log that every resource shares: the start of a write to one
//! record (a transaction with its row locked), the end of a write (audit → commit), of an edit
//! (store → audit → commit, when it changed anything), the answer to a create, and the change
//! history of a record.

use crate::auth::Caller;
use crate::db::{Tx, now};
use crate::error::{ApiError, Result};
use crate::extract::ListParams;
use crate::state::AppState;
use crate::store::{Saved, audit};
use axum::Json;
use axum::http::{HeaderName, StatusCode, header};
use registry_core::api::{AuditEvent, ListEnvelope};
use registry_core::audit::Action;
use serde::Serialize;

/// Starts a write to the record `id` of `table`: a transaction with the record's row locked, so
/// that what the checks read next stays as it is until the commit.
pub(crate) async fn locked(state: &AppState, table: &'static str, id: &str) -> Result<Tx> {
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, table, id).await?;
    Ok(tx)
}

/// Ends a write of the record `id` in `tx`: records the caller's `action` in the audit log as
/// `entity`, with the record as it was (`before`) and as it is (`after`), and commits.
pub(crate) async fn commit<T: Serialize>(
    mut tx: Tx,
    caller: &Caller,
    entity: &str,
    id: &str,
    action: Action,
    before: Option<&T>,
    after: Option<&T>,
) -> Result<()> {
    caller.still(&mut tx).await?;
    audit::record_change(&mut tx, Some(&caller.id), entity, id, action, before, after).await?;
    tx.commit().await?;
    Ok(())
}

/// [`commit`] of a write that keeps the record (an edit, a release): with the record as it was
/// and as it is.
pub(crate) async fn changed<T: Serialize>(
    tx: Tx,
    caller: &Caller,
    entity: &str,
    id: &str,
    action: Action,
    before: &T,
    after: &T,
) -> Result<()> {
    commit(tx, caller, entity, id, action, Some(before), Some(after)).await
}

/// Ends an edit of the record `id` in `tx` and answers the record: when the edit changed it
/// (`after` differs from `before`), stamps and stores it, records [`Action::Edit`] as `entity`,
/// and commits; an edit that changes nothing writes nothing.
pub(crate) async fn edited<T: Saved + Serialize + PartialEq>(
    mut tx: Tx,
    caller: &Caller,
    entity: &str,
    id: &str,
    before: &T,
    mut after: T,
) -> Result<Json<T>> {
    if after != *before {
        after.set_updated_at(now());
        after.save(&mut tx, false).await?;
        changed(tx, caller, entity, id, Action::Edit, before, &after).await?;
    }
    Ok(Json(after))
}

/// A 201: the record created, and where it is read (`Location`, RFC 9110 §15.3.2).
pub(crate) type Created<T> = (StatusCode, [(HeaderName, String); 1], Json<T>);

/// The answer [`Created`] for the record `id` read at `{at}/{id}` (`/api/equipment`).
pub(crate) fn created_at<T>(at: &str, id: &str, record: T) -> Created<T> {
    (
        StatusCode::CREATED,
        [(header::LOCATION, format!("{at}/{id}"))],
        Json(record),
    )
}

/// Ends a request that created the record `id` in `tx`: audits `create`, commits, and answers 201
/// with the record and its `Location`, `{at}/{id}`.
pub(crate) async fn created<T: Serialize>(
    tx: Tx,
    caller: &Caller,
    (entity, at): (&str, &str),
    id: &str,
    record: T,
) -> Result<Created<T>> {
    commit(tx, caller, entity, id, Action::Create, None, Some(&record)).await?;
    Ok(created_at(at, id, record))
}

/// `GET /<resource>/{id}/history` (staff): a page of the audit events of the record `id` that the
/// log calls `entity`, newest first; a record without any is not found.
pub(crate) async fn history(
    state: &AppState,
    caller: &Caller,
    entity: &str,
    id: &str,
    params: &ListParams,
) -> Result<Json<ListEnvelope<AuditEvent>>> {
    caller.require_staff()?;
    let mut conn = state.db.read().await?;
    let (list, total) =
        audit::history(&mut conn, entity, id, params.page_size, params.offset()).await?;
    if total == 0 {
        return Err(ApiError::not_found(entity));
    }
    Ok(params.page(list, total))
}
