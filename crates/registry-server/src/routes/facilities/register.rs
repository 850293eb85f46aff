//! Registering a facility.

use super::{duplicate, duplicate_after_race, references};
use crate::auth::Staff;
use crate::changes::Changed;
use crate::db::{new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::routes::shared::Forbidden;
use crate::state::AppState;
use crate::store::audit;
use crate::store::facilities::{self as store, FacilityRecord};
use crate::versions::with_etag;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use registry_core::ErrorBody;
use registry_core::api::Facility;
use registry_core::api::FacilityInput;
use registry_core::audit::Action;
use registry_core::facility::{Mode, read_facility_partial};

#[utoipa::path(
    post, path = "/api/facility/register", tag = "facilities", summary = "Create a facility",
    request_body = FacilityInput,
    responses(
        (status = 201, headers(("Location" = String, description = "The created record's path")), description = "Created", body = Facility), Forbidden,
        (status = 409, description = "duplicate_facility: already registered; the body carries its \
            _id", body = ErrorBody)
    )
)]
pub(super) async fn register(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<Response> {
    let value = body.value()?;
    let (changes, errs) =
        read_facility_partial(&value, Mode::Create, &state.config.extra_responsibilities);
    let mut tx = state.db.begin().await?;
    super::share_linked(&mut tx, &value).await?;
    let refs = references(&mut tx, &changes, None).await?;
    let new = changes
        .into_new(&refs, errs)
        .map_err(ApiError::Validation)?;
    let (cnpj, department) = new.fields.key();
    if let Some(existing) = store::live_duplicate(&mut tx, cnpj, department, "").await? {
        return Err(duplicate(existing));
    }
    let role_changes = new.role_changes;
    let at = now();
    let record = FacilityRecord {
        id: new_id(),
        fields: new.fields,
        version: 1,
        created_at: at.clone(),
        updated_at: at,
    };
    if let Err(e) = store::insert(&mut tx, &record).await {
        drop(tx);
        return Err(duplicate_after_race(
            &state,
            e,
            &record.fields.cnpj,
            record.fields.department,
            "",
        )
        .await);
    }
    let facility = store::view(&mut tx, &record.id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("facility vanished after insert"))?;
    let after = serde_json::to_value(&facility).map_err(anyhow::Error::from)?;
    // Judged after the wait for the rank lock: a revocation committed while queued refuses it.
    caller.still(&mut tx).await?;
    audit::record(
        &mut tx,
        audit::Change {
            entity: "facility",
            entity_id: &record.id,
            action: &Action::Create.name(),
            actor: Some(&caller.id),
            before: None,
            after: Some(&after),
            role_changes: &role_changes,
        },
    )
    .await?;
    // A new facility has no equipment yet: only the facility lists change.
    tx.announce(Changed::Facilities {
        ids: vec![],
        lists: true,
        due: false,
    });
    tx.commit().await?;
    let mut response = with_etag(StatusCode::CREATED, facility);
    let location =
        HeaderValue::from_str(&format!("/api/facility/{}", record.id)).expect("ascii id");
    response.headers_mut().insert(header::LOCATION, location);
    Ok(response)
}
