//! The end every archive or delete of a record shares.

use crate::auth::Caller;
use crate::db::Tx;
use crate::error::Result;
use crate::store::audit;
use axum::Json;
use registry_core::api::Message;
use serde::Serialize;

/// Ends a request that archived or deleted the record `id` in `tx`: records `action` with the
/// record as it was (`before`) in the audit log as `entity`, commits, and answers `message`.
pub(crate) async fn finish<T: Serialize>(
    mut tx: Tx,
    caller: &Caller,
    entity: &str,
    action: &str,
    before: &T,
    id: String,
    message: &str,
) -> Result<Json<Message>> {
    audit::record_change(
        &mut tx,
        Some(&caller.id),
        entity,
        &id,
        action,
        Some(before),
        None,
    )
    .await?;
    tx.commit().await?;
    Ok(Json(Message {
        message: message.into(),
        id: Some(id),
        token: None,
    }))
}
