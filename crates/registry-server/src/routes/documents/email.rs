//! Scheduling a released document's e-mail.

use super::{ScheduleBody, finish_event, load_state};
use crate::auth::Staff;
use crate::db::{new_id, now, timestamp};
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::routes::audited;
use crate::routes::shared::{Forbidden, NotFound};
use crate::state::AppState;
use crate::store::documents as store;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use registry_core::ErrorBody;
use registry_core::audit::Action;
use registry_core::document::{
    Document, DocumentStatus, read_email_schedule, uses_default_recipients,
};

#[utoipa::path(
    post, path = "/api/document/scheduleEmail", tag = "documents",
    description = "Only `Liberado` documents. Stores the schedule; the server's worker sends it at \
        `sendAt` (default now) to `to` or the facility's active users, exactly once, retrying with \
        backoff.",
    request_body = ScheduleBody,
    responses(
        (status = 202, description = "Scheduled; see `scheduledEmail`", body = Document),
        Forbidden, NotFound,
        (status = 409, description = "The document is not released", body = ErrorBody)
    )
)]
pub(super) async fn schedule_email(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<Response> {
    let value = body.value()?;
    let id = JsonBody::id(&value)?;
    let mut tx = audited::locked(&state, "documents", &id).await?;
    // The facility held too, and the document read again: an archive of the facility either
    // commits first (the document is gone) or waits for this schedule, which it then cancels.
    let facility = load_state(&mut tx, &id).await?.facility_id;
    crate::store::share_row(&mut tx, "facilities", &facility).await?;
    let current = load_state(&mut tx, &id).await?;
    let to_facility_users = uses_default_recipients(&value);
    let facility_users = if to_facility_users {
        store::facility_recipients(&mut tx, &current.facility_id).await?
    } else {
        Vec::new()
    };
    let schedule = read_email_schedule(&value, chrono::Utc::now(), facility_users)
        .map_err(ApiError::Validation)?;
    // Fields before conflicts (docs/decisions.md, "Check order").
    if current.status != DocumentStatus::Released {
        return Err(ApiError::conflict(
            "conflict",
            format!(
                "Only released (Liberado) documents can be e-mailed; this one is \"{}\".",
                current.status
            ),
        ));
    }
    let schedule_id = new_id();
    let send_at = timestamp(schedule.send_at);
    store::schedule_email(
        &mut tx,
        &store::NewSchedule {
            id: &schedule_id,
            document_id: &id,
            recipients: &schedule.recipients,
            to_facility_users,
            send_at: &send_at,
            by: &caller.id,
            at: &now(),
        },
    )
    .await?;
    let detail =
        serde_json::json!({ "_id": schedule_id, "sendAt": send_at, "to": schedule.recipients });
    let action = Action::ScheduleEmail;
    finish_event(tx, &caller, &id, action, &detail, StatusCode::ACCEPTED).await
}
