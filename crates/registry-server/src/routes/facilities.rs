//! Facility endpoints (spec §4.3): lists, details, register, both edit forms, users/edit, archive,
//! history, with ETag/If-Match and an audit event for every change.

use crate::access::{scope_for, visible};
use crate::auth::Caller;
use crate::cache;
use crate::db::Conn;
use crate::db::{new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::Path;
use crate::extract::{JsonBody, ListParams};
use crate::state::AppState;
use crate::store::facilities::{self as store, FacilityRecord, ListScope};
use crate::store::{audit, groups, users};
use crate::versions::{check_if_match, with_etag};
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use registry_core::ErrorBody;
use registry_core::api::{
    AuditEvent, FacilityInput, FacilityUserInput, FacilityUsersInput, IdInput,
};
use registry_core::api::{Facility, ListEnvelope, Message};
use registry_core::facility::{
    FacilityChanges, Mode, apply_user_links, check_cnpj_lock, check_linked_users,
    read_facility_partial,
};
use registry_core::{Department, FieldCode, FieldError};
use serde_json::{Value, json};

/// This module's part of the OpenAPI description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(
        paths(
            list_all,
            list_nuclear_medicine,
            list_radiodiagnosis,
            show,
            register,
            edit_by_body,
            edit_by_path,
            edit_users,
            exclude,
            history
        ),
        components(schemas(
            Facility,
            FacilityInput,
            FacilityUsersInput,
            FacilityUserInput,
            IdInput,
            Message,
            AuditEvent,
            ErrorBody
        ))
    )]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/facilities", get(list_all))
        .route("/nuclearmedicinefacilities", get(list_nuclear_medicine))
        .route("/radiodiagnosisfacilities", get(list_radiodiagnosis))
        .route("/facility/register", post(register))
        .route("/facility/edit", post(edit_by_body))
        .route("/facility/users/edit", post(edit_users))
        .route("/facility/exclude", post(exclude))
        .route("/facility/{id}", get(show))
        .route("/facility/{id}/edit", put(edit_by_path))
        .route("/facility/{id}/history", get(history))
}

async fn list(
    state: &AppState,
    caller: &Caller,
    uri: &Uri,
    params: &ListParams,
    department: Option<Department>,
) -> Result<Response> {
    let key = cache::key(&caller.id, uri, "");
    state
        .cache
        .answer(&state.db, key, async {
            let mut conn = state.db.read().await?;
            let scope = ListScope {
                department,
                member: scope_for(caller),
            };
            let (list, total) = store::list(&mut conn, params, &scope).await?;
            Ok(Json(ListEnvelope {
                list,
                paging: params.paging(total),
            })
            .into_response())
        })
        .await
}

#[utoipa::path(get, path = "/api/facilities", tag = "facilities", summary = "List facilities, paginated", params(("filters" = Option<String>, Query, description = "JSON object with pageNum, pageSize (or limit) and filter keys"), ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query), ("q" = Option<String>, Query, description = "name, company name, cnpj or city"), ("state" = Option<String>, Query), ("city" = Option<String>, Query), ("group" = Option<String>, Query), ("radioisotope" = Option<String>, Query), ("practice" = Option<String>, Query), ("userId" = Option<String>, Query)), responses((status = 200, description = "OK", body = ListEnvelope<Facility>), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Missing or invalid token", body = ErrorBody)), security(("bearer" = [])))]
async fn list_all(
    State(state): State<AppState>,
    caller: Caller,
    OriginalUri(uri): OriginalUri,
    params: ListParams,
) -> Result<Response> {
    list(&state, &caller, &uri, &params, None).await
}

#[utoipa::path(get, path = "/api/nuclearmedicinefacilities", tag = "facilities", summary = "List nuclear-medicine facilities", params(("filters" = Option<String>, Query, description = "JSON object with pageNum, pageSize (or limit) and filter keys"), ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query), ("q" = Option<String>, Query, description = "name, company name, cnpj or city"), ("state" = Option<String>, Query), ("city" = Option<String>, Query), ("group" = Option<String>, Query), ("radioisotope" = Option<String>, Query), ("practice" = Option<String>, Query), ("userId" = Option<String>, Query)), responses((status = 200, description = "OK", body = ListEnvelope<Facility>), (status = 401, description = "Missing or invalid token", body = ErrorBody)), security(("bearer" = [])))]
async fn list_nuclear_medicine(
    State(state): State<AppState>,
    caller: Caller,
    OriginalUri(uri): OriginalUri,
    params: ListParams,
) -> Result<Response> {
    list(
        &state,
        &caller,
        &uri,
        &params,
        Some(Department::NuclearMedicine),
    )
    .await
}

#[utoipa::path(get, path = "/api/radiodiagnosisfacilities", tag = "facilities", summary = "List radiodiagnosis facilities", params(("filters" = Option<String>, Query, description = "JSON object with pageNum, pageSize (or limit) and filter keys"), ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query), ("q" = Option<String>, Query, description = "name, company name, cnpj or city"), ("state" = Option<String>, Query), ("city" = Option<String>, Query), ("group" = Option<String>, Query), ("radioisotope" = Option<String>, Query), ("practice" = Option<String>, Query), ("userId" = Option<String>, Query)), responses((status = 200, description = "OK", body = ListEnvelope<Facility>), (status = 401, description = "Missing or invalid token", body = ErrorBody)), security(("bearer" = [])))]
async fn list_radiodiagnosis(
    State(state): State<AppState>,
    caller: Caller,
    OriginalUri(uri): OriginalUri,
    params: ListParams,
) -> Result<Response> {
    list(
        &state,
        &caller,
        &uri,
        &params,
        Some(Department::Radiodiagnosis),
    )
    .await
}

#[utoipa::path(get, path = "/api/facility/{id}", tag = "facilities", summary = "Facility details", params(("id" = String, Path)), responses((status = 200, description = "The facility, with its ETag (W/\"version\")", body = Facility), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody)), security(("bearer" = [])))]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    OriginalUri(uri): OriginalUri,
    Path(id): Path<String>,
) -> Result<Response> {
    let key = cache::key(&caller.id, &uri, "");
    state
        .cache
        .answer(&state.db, key, async {
            let mut conn = state.db.read().await?;
            Ok(with_etag(
                StatusCode::OK,
                visible(&mut conn, &caller, &id).await?,
            ))
        })
        .await
}

/// Checks that need the store (linked users, group, the one-holder rule), adding to `errors`.
/// Returns the resulting user links and role changes when the payload changes them.
async fn check_references(
    conn: &mut Conn,
    changes: &FacilityChanges,
    current_links: &[registry_core::facility::UserLink],
    errors: &mut Vec<FieldError>,
) -> Result<
    Option<(
        Vec<registry_core::facility::UserLink>,
        Vec<registry_core::facility::RoleChange>,
    )>,
> {
    if let Some(Some(group)) = &changes.group
        && groups::get(conn, group).await?.is_none()
    {
        errors.push(FieldError::new(
            "group",
            FieldCode::GroupNotFound,
            format!("no group with _id {group}"),
        ));
    }
    let Some(links) = &changes.users else {
        return Ok(None);
    };
    let ids: Vec<&str> = links.iter().map(|l| l.user_id.as_str()).collect();
    let known = users::states(conn, &ids).await?;
    errors.extend(check_linked_users(links, &known));
    match apply_user_links(current_links, links.clone()) {
        Ok(applied) => Ok(Some(applied)),
        Err(e) => {
            errors.extend(e);
            Ok(None)
        }
    }
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

#[utoipa::path(post, path = "/api/facility/register", tag = "facilities", summary = "Create a facility", request_body = FacilityInput, responses((status = 201, description = "Created", body = Facility), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody), (status = 409, description = "duplicate_facility: already registered; the body carries its _id", body = ErrorBody)), security(("bearer" = [])))]
async fn register(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response> {
    caller.require_staff()?;
    let value = body.value()?;
    let (changes, errs) =
        read_facility_partial(&value, Mode::Create, &state.config.extra_responsibilities);
    let mut errors = errs.into_vec();
    let mut tx = state.db.begin().await?;
    let links = check_references(&mut tx, &changes, &[], &mut errors).await?;
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let (
        Some(name),
        Some(company_name),
        Some(cnpj),
        Some(telephone),
        Some(department),
        Some(address),
    ) = (
        changes.name,
        changes.company_name,
        changes.cnpj,
        changes.telephone,
        changes.department,
        changes.address,
    )
    else {
        unreachable!("create mode reports every missing required field");
    };
    if let Some(existing) = store::live_duplicate(&mut tx, cnpj.as_str(), department, "").await? {
        return Err(duplicate(existing));
    }
    let (user_links, role_changes) = links.unwrap_or_default();
    let at = now();
    let record = FacilityRecord {
        id: new_id(),
        name,
        company_name,
        cnpj: cnpj.as_str().to_owned(),
        telephone: telephone.as_str().to_owned(),
        department,
        group_id: changes.group.flatten(),
        cnen_registry: changes.cnen_registry.flatten(),
        address,
        users: user_links,
        radioisotopes: changes.radioisotopes.unwrap_or_default(),
        practices: changes.practices.unwrap_or_default(),
        version: 1,
        created_at: at.clone(),
        updated_at: at,
    };
    if let Err(e) = store::insert(&mut tx, &record).await {
        drop(tx);
        return Err(duplicate_after_race(&state, e, &record.cnpj, department, "").await);
    }
    let facility = store::view(&mut tx, &record.id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("facility vanished after insert"))?;
    let after = serde_json::to_value(&facility).map_err(anyhow::Error::from)?;
    audit::record(
        &mut tx,
        audit::Change {
            entity: "facility",
            entity_id: &record.id,
            action: "create",
            actor: Some(&caller.id),
            before: None,
            after: Some(&after),
            role_changes: &role_changes,
        },
    )
    .await?;
    tx.commit().await?;
    let mut response = with_etag(StatusCode::CREATED, facility);
    let location =
        HeaderValue::from_str(&format!("/api/facility/{}", record.id)).expect("ascii id");
    response.headers_mut().insert(header::LOCATION, location);
    Ok(response)
}

/// Applies an edit payload to facility `id` (both edit forms and users/edit).
async fn apply_edit(
    state: &AppState,
    caller: &Caller,
    id: &str,
    value: &Value,
    headers: &HeaderMap,
    action: &str,
) -> Result<Response> {
    let mut tx = state.db.begin().await?;
    tx.lock("facilities", id).await?;
    let before = store::view(&mut tx, id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    check_if_match(headers, before.version)?;
    let (changes, errs) =
        read_facility_partial(value, Mode::Edit, &state.config.extra_responsibilities);
    let mut errors = errs.into_vec();
    let mut record = FacilityRecord::from_view(&before)?;
    let links = check_references(&mut tx, &changes, &record.users, &mut errors).await?;
    // Only a cnpj change can hit the lock, so only then look for linked records.
    if changes
        .cnpj
        .as_ref()
        .is_some_and(|c| c.as_str() != record.cnpj)
    {
        let linked = store::has_records(&mut tx, id).await?;
        errors.extend(check_cnpj_lock(&record.cnpj, changes.cnpj.as_ref(), linked));
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let original = record.clone();
    let role_changes = match links {
        Some((links, role_changes)) => {
            record.users = links;
            role_changes
        }
        None => Vec::new(),
    };
    if let Some(v) = changes.name {
        record.name = v;
    }
    if let Some(v) = changes.company_name {
        record.company_name = v;
    }
    if let Some(v) = changes.cnpj {
        record.cnpj = v.as_str().to_owned();
    }
    if let Some(v) = changes.telephone {
        record.telephone = v.as_str().to_owned();
    }
    if let Some(v) = changes.department {
        record.department = v;
    }
    if let Some(v) = changes.group {
        record.group_id = v;
    }
    if let Some(v) = changes.address {
        record.address = v;
    }
    if let Some(v) = changes.cnen_registry {
        record.cnen_registry = v;
    }
    if let Some(v) = changes.radioisotopes {
        record.radioisotopes = v;
    }
    if let Some(v) = changes.practices {
        record.practices = v;
    }
    if record == original {
        return Ok(with_etag(StatusCode::OK, before));
    }
    if (record.cnpj != original.cnpj || record.department != original.department)
        && let Some(existing) =
            store::live_duplicate(&mut tx, &record.cnpj, record.department, id).await?
    {
        return Err(duplicate(existing));
    }
    record.version += 1;
    record.updated_at = now();
    if let Err(e) = store::update(&mut tx, &record).await {
        drop(tx);
        return Err(duplicate_after_race(state, e, &record.cnpj, record.department, id).await);
    }
    let after = store::view(&mut tx, id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("facility vanished during edit"))?;
    let before_json = serde_json::to_value(&before).map_err(anyhow::Error::from)?;
    let after_json = serde_json::to_value(&after).map_err(anyhow::Error::from)?;
    audit::record(
        &mut tx,
        audit::Change {
            entity: "facility",
            entity_id: id,
            action,
            actor: Some(&caller.id),
            before: Some(&before_json),
            after: Some(&after_json),
            role_changes: &role_changes,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(with_etag(StatusCode::OK, after))
}

#[utoipa::path(post, path = "/api/facility/edit", tag = "facilities", summary = "Edit a facility (body carries _id)", params(("If-Match" = Option<String>, Header, description = "W/\"version\" from the ETag")), request_body = FacilityInput, responses((status = 200, description = "Edited", body = Facility), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 409, description = "duplicate_facility", body = ErrorBody), (status = 412, description = "version_mismatch", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn edit_by_body(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    caller.require_staff()?;
    let value = body.value()?;
    let id = JsonBody::id(&value)?;
    apply_edit(&state, &caller, &id, &value, &headers, "edit").await
}

#[utoipa::path(put, path = "/api/facility/{id}/edit", tag = "facilities", summary = "Edit a facility", params(("id" = String, Path), ("If-Match" = Option<String>, Header, description = "W/\"version\" from the ETag")), request_body = FacilityInput, responses((status = 200, description = "Edited", body = Facility), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 409, description = "duplicate_facility", body = ErrorBody), (status = 412, description = "version_mismatch", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn edit_by_path(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    caller.require_staff()?;
    let value = body.value()?;
    match value.get("_id") {
        Some(Value::String(body_id)) if body_id.trim() != id => {
            return Err(ApiError::field(
                "_id",
                FieldCode::InvalidValue,
                format!("does not match the facility in the path ({id})"),
            ));
        }
        _ => {}
    }
    apply_edit(&state, &caller, &id, &value, &headers, "edit").await
}

#[utoipa::path(post, path = "/api/facility/users/edit", tag = "facilities", summary = "Replace the user links of a facility", request_body = FacilityUsersInput, responses((status = 200, description = "Edited", body = Facility), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn edit_users(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response> {
    caller.require_staff()?;
    let value = body.value()?;
    let id = JsonBody::id(&value)?;
    let users = match value.get("users") {
        None | Some(Value::Null) => {
            return Err(ApiError::field(
                "users",
                FieldCode::Required,
                "is required: the full list of linked users",
            ));
        }
        Some(users) => users.clone(),
    };
    apply_edit(
        &state,
        &caller,
        &id,
        &json!({ "users": users }),
        &headers,
        "users_edit",
    )
    .await
}

#[utoipa::path(post, path = "/api/facility/exclude", tag = "facilities", summary = "Archive a facility", request_body = IdInput, responses((status = 200, description = "Archived", body = Message), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody)), security(("bearer" = [])))]
async fn exclude(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    caller.require_staff()?;
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = state.db.begin().await?;
    tx.lock("facilities", &id).await?;
    let before = store::view(&mut tx, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    store::archive(&mut tx, &id, &now()).await?;
    audit::record_change(
        &mut tx,
        Some(&caller.id),
        "facility",
        &id,
        "archive",
        Some(&before),
        None,
    )
    .await?;
    tx.commit().await?;
    Ok(Json(Message {
        message: "Facility archived.".into(),
        id: Some(id),
        token: None,
    }))
}

#[utoipa::path(get, path = "/api/facility/{id}/history", tag = "facilities", summary = "Change history of a facility", params(("id" = String, Path), ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query)), responses((status = 200, description = "Audit events, newest first", body = ListEnvelope<AuditEvent>), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody)), security(("bearer" = [])))]
async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<registry_core::api::AuditEvent>>> {
    caller.require_staff()?;
    let mut conn = state.db.read().await?;
    let (list, total) = audit::history(&mut conn, "facility", &id, &params).await?;
    if total == 0 {
        return Err(ApiError::not_found("facility"));
    }
    Ok(Json(ListEnvelope {
        list,
        paging: params.paging(total),
    }))
}
