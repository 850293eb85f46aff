//! The start and the end every archive or delete of a record shares.

use super::audited;
use crate::auth::Caller;
use crate::db::Tx;
use crate::error::Result;
use crate::extract::JsonBody;
use crate::state::AppState;
use axum::Json;
use registry_core::api::Message;
use registry_core::audit::Action;
use serde::Serialize;

/// Starts a request that archives, deactivates or deletes the record whose `_id` the body
/// carries: that `_id`, and a transaction with the record's row of `table` locked.
pub(crate) async fn begin(
    state: &AppState,
    body: JsonBody,
    table: &'static str,
) -> Result<(Tx, String)> {
    let id = JsonBody::id(&body.value()?)?;
    let tx = audited::locked(state, table, &id).await?;
    Ok((tx, id))
}

/// Ends a request that archived or deleted the record `id` in `tx`: records [`Action::Archive`]
/// with the record as it was (`before`) in the audit log as `entity`, commits, and answers
/// `message`.
pub(crate) async fn finish<T: Serialize>(
    tx: Tx,
    caller: &Caller,
    entity: &str,
    before: &T,
    id: String,
    message: &str,
) -> Result<Json<Message>> {
    audited::commit(tx, caller, entity, &id, Action::Archive, Some(before), None).await?;
    Ok(Json(Message {
        message: message.into(),
        id: Some(id),
        token: None,
    }))
}
