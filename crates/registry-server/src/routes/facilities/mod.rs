//! Facility endpoints (spec §4.3): lists, details, register, both edit forms, users/edit, archive,
//! history, with ETag/If-Match and an audit event for every change. One file a concern; this one
//! routes and holds what they share.

mod archive;
mod edit;
mod read;
mod register;

use crate::db::{Conn, Tx};
use crate::error::{ApiError, Result};
use crate::routes::describe::{Routes, routes};
use crate::state::AppState;
use crate::store::facilities as store;
use crate::store::{groups, users};
use registry_core::Department;
use registry_core::facility::{FacilityChanges, References};
use serde_json::Value;

pub fn routes() -> Routes {
    routes![
        read::list_all,
        read::list_nuclear_medicine,
        read::list_radiodiagnosis,
        register::register,
        edit::edit_by_body,
        edit::edit_users,
        archive::exclude,
        read::show,
        edit::edit_by_path,
        read::history
    ]
}

/// Starts a write to facility `id`: a transaction with its row locked and, when the write may
/// move ranks (an archive, a move to the other department), the ranks locked before the row
/// (`store::facilities::lock_ranks`: the other order deadlocks on PostgreSQL). The users the
/// payload links are shared first ([`share_linked`]).
async fn locked(state: &AppState, id: &str, moves_ranks: bool, payload: &Value) -> Result<Tx> {
    let mut tx = state.db.begin().await?;
    share_linked(&mut tx, payload).await?;
    if moves_ranks {
        store::lock_ranks(&mut tx).await?;
    }
    crate::store::lock_row(&mut tx, "facilities", id).await?;
    Ok(tx)
}

/// Shares the rows of the users a facility payload links (`users[]._id`, in id order) before
/// anything else is locked: a user's edit locks the user and then the facilities showing them
/// (PostgreSQL migration 0006), so a writer that locked a facility (or moved ranks) before a new
/// link's foreign-key check reached the user deadlocked with it.
async fn share_linked(tx: &mut Tx, payload: &Value) -> Result<()> {
    let mut ids: Vec<&str> = payload
        .get("users")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|link| link.get("_id")?.as_str())
        .map(str::trim)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for user in ids {
        crate::store::share_row(tx, "users", user).await?;
    }
    Ok(())
}

/// What the facility rules need from the store about the references of `changes`; `stored` is
/// the edited facility's `(id, cnpj)` (none on create).
async fn references(
    conn: &mut Conn,
    changes: &FacilityChanges,
    stored: Option<(&str, &str)>,
) -> Result<References> {
    let mut refs = References::default();
    if let Some(group) = changes.named_group() {
        refs.group_exists = groups::get(conn, group).await?.is_some();
    }
    if let Some(ids) = changes.linked_user_ids() {
        refs.users = users::states(conn, &ids).await?;
    }
    // Only a cnpj change can hit the lock, so only then look for linked records.
    if let Some((id, cnpj)) = stored
        && changes.changes_cnpj(cnpj)
    {
        refs.linked_to_records = store::has_records(conn, id).await?;
    }
    Ok(refs)
}

fn duplicate(id: String) -> ApiError {
    ApiError::Conflict {
        code: "duplicate_facility",
        message: "A live facility with this cnpj is already registered in this department.".into(),
        id: Some(id),
    }
}

/// The answer to a failed insert or update of a facility: when another request registered the
/// same `(cnpj, department)` between our check and our write (the unique index refused it), the
/// same `duplicate_facility` answer as the check gives, with that facility's `_id`.
async fn duplicate_after_race(
    state: &AppState,
    e: sqlx::Error,
    cnpj: &str,
    department: Department,
    id: &str,
) -> ApiError {
    if crate::db::is_unique_violation(&e) {
        let existing = match state.db.read().await {
            Ok(mut conn) => store::live_duplicate(&mut conn, cnpj, department, id).await,
            Err(e) => Err(e),
        };
        match existing {
            Ok(Some(existing)) => return duplicate(existing),
            Ok(None) => {}
            Err(e) => return e.into(),
        }
    }
    e.into()
}
