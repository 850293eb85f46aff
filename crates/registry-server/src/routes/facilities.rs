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
use crate::store::facilities::{self as store, FacilityRecord};
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
    FacilityChanges, FacilityFields, Mode, References, read_facility_partial,
};
use registry_core::{Department, FieldCode};
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
            let mut filter = params.facility_filter();
            if let Some(d) = department {
                filter.department = Some(d.as_str().to_owned());
            }
            filter.member = scope_for(caller);
            let (list, total) =
                store::list(&mut conn, &filter, params.page_size, params.offset()).await?;
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

/// The stored form of a facility's fields.
fn record(
    id: String,
    fields: FacilityFields,
    version: i64,
    created_at: String,
    updated_at: String,
) -> FacilityRecord {
    let FacilityFields {
        name,
        company_name,
        cnpj,
        telephone,
        department,
        group_id,
        cnen_registry,
        address,
        users,
        radioisotopes,
        practices,
    } = fields;
    FacilityRecord {
        id,
        name,
        company_name,
        cnpj,
        telephone,
        department,
        group_id,
        cnen_registry,
        address,
        users,
        radioisotopes,
        practices,
        version,
        created_at,
        updated_at,
    }
}

/// The fields of a loaded facility.
fn fields_of(facility: &Facility) -> Result<FacilityFields> {
    let r = FacilityRecord::from_view(facility)?;
    Ok(FacilityFields {
        name: r.name,
        company_name: r.company_name,
        cnpj: r.cnpj,
        telephone: r.telephone,
        department: r.department,
        group_id: r.group_id,
        cnen_registry: r.cnen_registry,
        address: r.address,
        users: r.users,
        radioisotopes: r.radioisotopes,
        practices: r.practices,
    })
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
    let mut tx = state.db.begin().await?;
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
    let record = record(new_id(), new.fields, 1, at.clone(), at);
    if let Err(e) = store::insert(&mut tx, &record).await {
        drop(tx);
        return Err(duplicate_after_race(&state, e, &record.cnpj, record.department, "").await);
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
    crate::store::lock_row(&mut tx, "facilities", id).await?;
    let before = store::view(&mut tx, id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    check_if_match(headers, before.version)?;
    let (changes, errs) =
        read_facility_partial(value, Mode::Edit, &state.config.extra_responsibilities);
    let current = fields_of(&before)?;
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
    let record = record(
        id.to_owned(),
        edit.fields,
        before.version + 1,
        before.created_at.clone(),
        now(),
    );
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
    crate::store::lock_row(&mut tx, "facilities", &id).await?;
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
    let (list, total) = audit::history(
        &mut conn,
        "facility",
        &id,
        params.page_size,
        params.offset(),
    )
    .await?;
    if total == 0 {
        return Err(ApiError::not_found("facility"));
    }
    Ok(Json(ListEnvelope {
        list,
        paging: params.paging(total),
    }))
}
