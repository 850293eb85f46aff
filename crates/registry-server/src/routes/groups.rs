//! Groups of facilities (spec §4.7): staff create and edit, Administrators delete, and a group
//! still used by live facilities cannot be deleted.

use crate::access::scope_for;
use crate::auth::Caller;
use crate::db::Conn;
use crate::db::{new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::Path;
use crate::extract::{JsonBody, ListParams};
use crate::state::AppState;
use crate::store::{audit, groups};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use registry_core::ErrorBody;
use registry_core::Role;
use registry_core::api::{Group, ListEnvelope, Message};
use registry_core::api::{GroupInput, IdInput};
use registry_core::group::read_group;

/// This module's part of the OpenAPI description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(
        paths(list, show, register, edit, exclude),
        components(schemas(Group, GroupInput, IdInput, Message, ErrorBody))
    )]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/group", get(list))
        .route("/group/register", post(register))
        .route("/group/edit", post(edit))
        .route("/group/exclude", post(exclude))
        .route("/group/{id}", get(show))
}

#[utoipa::path(get, path = "/api/group", tag = "groups", summary = "List groups", params(("filters" = Option<String>, Query, description = "JSON object with pageNum, pageSize (or limit) and filter keys"), ("pageNum" = Option<i64>, Query, description = "1-based page"), ("pageSize" = Option<i64>, Query, description = "20 by default, at most 200"), ("q" = Option<String>, Query, description = "search text")), responses((status = 200, description = "OK", body = ListEnvelope<Group>), (status = 401, description = "Missing or invalid token", body = ErrorBody)), security(("bearer" = [])))]
async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    params: ListParams,
) -> Result<Json<ListEnvelope<Group>>> {
    let mut conn = state.db.read().await?;
    let (list, total) = groups::list(&mut conn, &params).await?;
    Ok(Json(ListEnvelope {
        list,
        paging: params.paging(total),
    }))
}

#[utoipa::path(get, path = "/api/group/{id}", tag = "groups", summary = "One group", params(("id" = String, Path)), responses((status = 200, description = "The group with its facilities", body = Group), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody)), security(("bearer" = [])))]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Group>> {
    let mut conn = state.db.read().await?;
    let mut group = groups::get(&mut conn, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("group"))?;
    group.facilities =
        Some(groups::facilities(&mut conn, &id, scope_for(&caller).as_deref()).await?);
    Ok(Json(group))
}

async fn ensure_unique_name(conn: &mut Conn, name: &str, id: &str) -> Result<()> {
    if groups::name_taken(conn, name, id).await? {
        return Err(ApiError::conflict(
            "conflict",
            format!("A group named {name:?} already exists."),
        ));
    }
    Ok(())
}

async fn record(
    conn: &mut Conn,
    caller: &Caller,
    action: &str,
    before: Option<&Group>,
    after: Option<&Group>,
) -> Result<()> {
    let id = after.or(before).map(|g| g.id.clone()).unwrap_or_default();
    audit::record_change(conn, Some(&caller.id), "group", &id, action, before, after).await?;
    Ok(())
}

#[utoipa::path(post, path = "/api/group/register", tag = "groups", summary = "Create a group", request_body = GroupInput, responses((status = 201, description = "Created", body = Group), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 409, description = "Name already used", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn register(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<(StatusCode, Json<Group>)> {
    caller.require_staff()?;
    let changes = read_group(&body.value()?, true).map_err(ApiError::Validation)?;
    let at = now();
    let group = Group {
        id: new_id(),
        name: changes.name.expect("required on create"),
        description: changes.description.flatten(),
        facilities: None,
        created_at: at.clone(),
        updated_at: at,
    };
    let mut tx = state.db.begin().await?;
    ensure_unique_name(&mut tx, &group.name, &group.id).await?;
    groups::save(&mut tx, &group, true).await?;
    record(&mut tx, &caller, "create", None, Some(&group)).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(group)))
}

#[utoipa::path(post, path = "/api/group/edit", tag = "groups", summary = "Edit a group", request_body = GroupInput, responses((status = 200, description = "OK", body = Group), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 409, description = "Name already used", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn edit(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Group>> {
    caller.require_staff()?;
    let value = body.value()?;
    let id = JsonBody::id(&value)?;
    let changes = read_group(&value, false).map_err(ApiError::Validation)?;
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "facility_groups", &id).await?;
    let before = groups::get(&mut tx, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("group"))?;
    if let Some(name) = &changes.name {
        ensure_unique_name(&mut tx, name, &id).await?;
    }
    let mut group = changes.apply_to(&before);
    if group != before {
        group.updated_at = now();
        groups::save(&mut tx, &group, false).await?;
        record(&mut tx, &caller, "edit", Some(&before), Some(&group)).await?;
        tx.commit().await?;
    }
    Ok(Json(group))
}

#[utoipa::path(post, path = "/api/group/exclude", tag = "groups", summary = "Delete a group (Administrator)", request_body = IdInput, responses((status = 200, description = "Deleted", body = Message), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 409, description = "in_use: facilities still use the group", body = ErrorBody)), security(("bearer" = [])))]
async fn exclude(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    caller.require_any(&[Role::Administrator])?;
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "facility_groups", &id).await?;
    let group = groups::get(&mut tx, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("group"))?;
    let used_by = groups::facilities(&mut tx, &id, None).await?.len();
    if used_by > 0 {
        return Err(ApiError::conflict(
            "in_use",
            format!("The group is used by {used_by} facilities; move them to another group first."),
        ));
    }
    groups::delete(&mut tx, &id).await?;
    record(&mut tx, &caller, "delete", Some(&group), None).await?;
    tx.commit().await?;
    Ok(Json(Message {
        message: "Group deleted.".into(),
        id: Some(id),
        token: None,
    }))
}
