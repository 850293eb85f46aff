//! Archiving a facility.

use crate::auth::Staff;
use crate::changes::Changed;
use crate::db::now;
use crate::error::{OrNotFound, Result};
use crate::extract::JsonBody;
use crate::routes::archive;
use crate::routes::shared::{Forbidden, IfMatch, NotFound, VersionMismatch};
use crate::state::AppState;
use crate::store::documents;
use crate::store::facilities as store;
use crate::versions::check_if_match;
use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use registry_core::api::IdInput;
use registry_core::api::Message;

#[utoipa::path(
    post, path = "/api/facility/exclude", tag = "facilities", summary = "Archive a facility",
    request_body = IdInput,
    params(IfMatch),
    responses(
        (status = 200, description = "Archived", body = Message), Forbidden, NotFound,
        VersionMismatch
    )
)]
pub(super) async fn exclude(
    State(state): State<AppState>,
    Staff(caller): Staff,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Json<Message>> {
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = super::locked(&state, &id, true, &serde_json::Value::Null).await?;
    let before = store::view(&mut tx, &id).await?.or_not_found("facility")?;
    // Like an edit, an archive made on a stale copy is refused.
    check_if_match(&headers, before.version)?;
    let at = now();
    store::archive(&mut tx, &id, &at).await?;
    // Nothing of an archived facility goes out by e-mail any more.
    documents::cancel_facility_emails(&mut tx, &id, &at).await?;
    // Its equipment's tests leave the due lists too.
    tx.announce(Changed::Facilities {
        ids: vec![id.clone()],
        lists: true,
        due: true,
    });
    archive::finish(tx, &caller, "facility", &before, id, "Facility archived.").await
}
