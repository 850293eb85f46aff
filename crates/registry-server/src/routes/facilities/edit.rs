//! Editing a facility (by body or by path, with If-Match) and replacing its user links.

use super::{duplicate, duplicate_after_race, references};
use crate::auth::{Caller, Staff};
use crate::changes::Changed;
use crate::db::now;
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::JsonBody;
use crate::extract::Path;
use crate::routes::shared::{DuplicateFacility, Forbidden, IfMatch, NotFound, VersionMismatch};
use crate::state::AppState;
use crate::store::audit;
use crate::store::facilities::{self as store, FacilityRecord};
use crate::versions::{check_if_match, with_etag};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use registry_core::api::Facility;
use registry_core::api::{FacilityInput, FacilityUsersInput};
use registry_core::audit::Action;
use registry_core::facility::{Mode, read_facility_partial};
use registry_core::{Department, FieldCode, FieldError};
use serde_json::{Value, json};

/// Applies an edit payload to facility `id` (both edit forms and users/edit).
async fn apply_edit(
    state: &AppState,
    caller: &Caller,
    id: &str,
    value: &Value,
    headers: &HeaderMap,
    action: Action,
) -> Result<Response> {
    // A move to the other department moves ranks: known before locking, to lock them first.
    let asked = value
        .get("department")
        .and_then(Value::as_str)
        .and_then(|d| Department::parse(d.trim()));
    let mut moves_ranks = match asked {
        Some(asked) => {
            let mut conn = state.db.read().await?;
            let stored = store::department(&mut conn, id).await?;
            stored.is_some_and(|d| Department::parse(&d) != Some(asked))
        }
        None => false,
    };
    let (mut tx, before) = loop {
        let mut tx = super::locked(state, id, moves_ranks, value).await?;
        let before = store::view(&mut tx, id).await?.or_not_found("facility")?;
        // A move committed since the unlocked read may have made this edit a move after all
        // (the facility is now in the other department): it must lock the ranks before the
        // row, as every move does, so it starts again (dropping `tx` rolls it back).
        if !moves_ranks && asked.is_some_and(|a| a != before.department) {
            moves_ranks = true;
            continue;
        }
        break (tx, before);
    };
    check_if_match(headers, before.version)?;
    let (changes, errs) =
        read_facility_partial(value, Mode::Edit, &state.config.extra_responsibilities);
    let current = store::fields_of(&before)?;
    let refs = references(&mut tx, &changes, Some((id, &current.cnpj))).await?;
    let Some(edit) = changes
        .apply_to(&current, &refs, errs)
        .map_err(ApiError::Validation)?
    else {
        return Ok(with_etag(StatusCode::OK, before));
    };
    let (cnpj, department) = edit.fields.key();
    if (cnpj, department) != current.key()
        && let Some(existing) = store::live_duplicate(&mut tx, cnpj, department, id).await?
    {
        return Err(duplicate(existing));
    }
    let role_changes = edit.role_changes;
    let record = FacilityRecord {
        id: id.to_owned(),
        fields: edit.fields,
        version: before.version + 1,
        created_at: before.created_at.clone(),
        updated_at: now(),
    };
    if let Err(e) = store::update(&mut tx, &current, &record).await {
        drop(tx);
        return Err(duplicate_after_race(
            state,
            e,
            &record.fields.cnpj,
            record.fields.department,
            id,
        )
        .await);
    }
    let after = store::view(&mut tx, id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("facility vanished during edit"))?;
    let before_json = serde_json::to_value(&before).map_err(anyhow::Error::from)?;
    let after_json = serde_json::to_value(&after).map_err(anyhow::Error::from)?;
    caller.still(&mut tx).await?;
    audit::record(
        &mut tx,
        audit::Change {
            entity: "facility",
            entity_id: id,
            action: &action.name(),
            actor: Some(&caller.id),
            before: Some(&before_json),
            after: Some(&after_json),
            role_changes: &role_changes,
        },
    )
    .await?;
    // Due lists show the facility's name and are selected by its users.
    tx.announce(Changed::Facilities {
        ids: vec![id.to_owned()],
        lists: true,
        due: before.name != after.name || before.users != after.users,
    });
    tx.commit().await?;
    Ok(with_etag(StatusCode::OK, after))
}

#[utoipa::path(
    post, path = "/api/facility/edit", tag = "facilities",
    summary = "Edit a facility (body carries _id)",
    params(IfMatch),
    request_body = FacilityInput,
    responses(
        (status = 200, description = "Edited", body = Facility), Forbidden, NotFound,
        DuplicateFacility, VersionMismatch
    )
)]
pub(super) async fn edit_by_body(
    State(state): State<AppState>,
    Staff(caller): Staff,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    let value = body.value()?;
    let extra = &state.config.extra_responsibilities;
    let id = JsonBody::id_along(&value, || {
        read_facility_partial(&value, Mode::Edit, extra)
            .1
            .into_vec()
    })?;
    apply_edit(&state, &caller, &id, &value, &headers, Action::Edit).await
}

#[utoipa::path(
    put, path = "/api/facility/{id}/edit", tag = "facilities", summary = "Edit a facility",
    params(("id" = String, Path), IfMatch),
    request_body = FacilityInput,
    responses(
        (status = 200, description = "Edited", body = Facility), Forbidden, DuplicateFacility,
        VersionMismatch
    )
)]
pub(super) async fn edit_by_path(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    let extra = &state.config.extra_responsibilities;
    let value = body.value_for(&id, |v| {
        read_facility_partial(v, Mode::Edit, extra).1.into_vec()
    })?;
    apply_edit(&state, &caller, &id, &value, &headers, Action::Edit).await
}

#[utoipa::path(
    post, path = "/api/facility/users/edit", tag = "facilities",
    summary = "Replace the user links of a facility",
    params(IfMatch),
    request_body = FacilityUsersInput,
    responses(
        (status = 200, description = "Edited", body = Facility), Forbidden, NotFound,
        VersionMismatch
    )
)]
pub(super) async fn edit_users(
    State(state): State<AppState>,
    Staff(caller): Staff,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    let value = body.value()?;
    let users = match value.get("users") {
        None | Some(Value::Null) => Err(FieldError::new(
            "users",
            FieldCode::Required,
            "is required: the full list of linked users",
        )),
        Some(users) => Ok(json!({ "users": users })),
    };
    let extra = &state.config.extra_responsibilities;
    let id = JsonBody::id_along(&value, || match &users {
        Ok(users) => read_facility_partial(users, Mode::Edit, extra).1.into_vec(),
        Err(missing) => vec![missing.clone()],
    })?;
    let users = users.map_err(|missing| ApiError::Validation(vec![missing]))?;
    apply_edit(&state, &caller, &id, &users, &headers, Action::EditUsers).await
}
