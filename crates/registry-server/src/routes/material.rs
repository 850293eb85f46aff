//! Radioactive material endpoints: receipts checked against the facility's authorisation, the
//! weekly usage against the authorised quantities, and waste in decay storage up to its release.
//! Staff write; a `Cliente` reads the records of the facilities they are linked to (404 otherwise).

use crate::access::{scope_for, visible};
use crate::auth::Caller;
use crate::db::Conn;
use crate::db::{new_id, now, timestamp};
use crate::error::{ApiError, Result};
use crate::extract::{JsonBody, ListParams};
use crate::state::AppState;
use crate::store::material::{self as store, Scope, WasteQuery};
use crate::store::{audit, facilities};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use registry_core::api::ListEnvelope;
use registry_core::equipment::{Reference, local_date};
use registry_core::material::{
    IsoWeek, IsotopeUsage, Receipt, WeeklyUsage, activity_at_receipt, exceeds, radioisotope,
    read_receipt, usage,
};
use registry_core::waste::{
    WasteChanges, WasteContent, WasteForm, WastePackage, WasteRelease, read_release, read_waste,
    release_date,
};
use registry_core::{ErrorBody, FieldCode, FieldError, Radioisotope};
use serde_json::Value;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/facility/{id}/receipts",
            post(receive).get(list_for_facility),
        )
        .route("/receipts", get(list_all))
        .route("/receipt/{id}", get(show_receipt))
        .route("/facility/{id}/radioisotopes/usage", get(weekly_usage))
        .route(
            "/facility/{id}/waste",
            post(store_waste).get(waste_for_facility),
        )
        .route("/waste", get(waste_all))
        .route("/waste/{id}", get(show_waste).put(edit_waste))
        .route("/waste/{id}/release", post(release))
}

pub fn openapi() -> utoipa::openapi::OpenApi {
    use utoipa::OpenApi;
    #[derive(OpenApi)]
    #[openapi(
        paths(
            receive,
            list_for_facility,
            list_all,
            show_receipt,
            weekly_usage,
            store_waste,
            waste_for_facility,
            waste_all,
            show_waste,
            edit_waste,
            release
        ),
        components(schemas(
            Receipt,
            WeeklyUsage,
            IsotopeUsage,
            WastePackage,
            WasteContent,
            WasteForm,
            WasteRelease,
            Reference,
            ErrorBody
        ))
    )]
    struct Doc;
    Doc::openapi()
}

fn bad_filter(key: &str, what: &str) -> ApiError {
    ApiError::BadRequest(format!("{key} must be {what}."))
}

fn week_filter(params: &ListParams) -> Result<Option<IsoWeek>> {
    params
        .text("week")
        .map(|w| {
            IsoWeek::parse(&w)
                .ok_or_else(|| bad_filter("week", "an ISO week YYYY-Www, e.g. 2026-W05"))
        })
        .transpose()
}

fn isotope_filter(params: &ListParams) -> Result<Option<Radioisotope>> {
    params
        .text("radioisotope")
        .map(|r| {
            radioisotope(&Value::String(r)).ok_or_else(|| {
                bad_filter(
                    "radioisotope",
                    &format!("one of {}", Radioisotope::allowed()),
                )
            })
        })
        .transpose()
}

fn bool_filter(params: &ListParams, key: &str) -> Result<Option<bool>> {
    params
        .text(key)
        .map(|v| match v.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad_filter(key, "true or false")),
        })
        .transpose()
}

/// Staff see every facility; a `Cliente` theirs. A facility in the path must be visible.
async fn scope(conn: &mut Conn, caller: &Caller, facility: Option<String>) -> Result<Scope> {
    if let Some(id) = &facility {
        visible(conn, caller, id).await?;
    }
    Ok(Scope {
        facility_id: facility,
        member: scope_for(caller),
    })
}

/// The live facility a staff member writes to, as a reference, or 404.
async fn facility_ref(conn: &mut Conn, id: &str) -> Result<Reference> {
    let f = facilities::view(conn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    Ok(Reference {
        id: f.id,
        name: f.name,
    })
}

fn unauthorised(r: Radioisotope) -> FieldError {
    FieldError::new(
        "radioisotope",
        FieldCode::InvalidRadioisotope,
        format!("{r} is not among the facility's authorised radioisotopes"),
    )
}

#[utoipa::path(post, path = "/api/facility/{id}/receipts", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility")),
    request_body(content = Object, description = "`{radioisotope, activity (mCi), activityReferenceTime?, supplier, lot?, \
        receivedBy?, receivedAt?, notes?}`. The isotope must be authorised at the facility (`invalid_radioisotope`). A receipt \
        that takes its week over the authorised quantity is stored with `overQuantity: true`."),
    responses((status = 201, body = Receipt), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 422, body = ErrorBody)))]
async fn receive(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Receipt>)> {
    caller.require_staff()?;
    let value = body.value()?;
    let at = Utc::now();
    let mut tx = state.db.begin().await?;
    let facility = facility_ref(&mut tx, &id).await?;
    store::lock_facility(&mut tx, &id).await?;
    let authorised = store::authorised(&mut tx, &id).await?;
    let quantity = |r: Radioisotope| authorised.iter().find(|(a, _)| *a == r).map(|(_, q)| *q);
    let draft = match read_receipt(&value, at) {
        Ok(d) if quantity(d.radioisotope).is_none() => {
            return Err(ApiError::Validation(vec![unauthorised(d.radioisotope)]));
        }
        Ok(d) => d,
        Err(mut errors) => {
            if let Some(r) = value.get("radioisotope").and_then(radioisotope)
                && quantity(r).is_none()
            {
                errors.insert(0, unauthorised(r));
            }
            return Err(ApiError::Validation(errors));
        }
    };
    let week = IsoWeek::containing(draft.received_at).to_string();
    let received = activity_at_receipt(
        draft.radioisotope,
        draft.activity,
        draft.activity_reference_time,
        draft.received_at,
    );
    let before: f64 = store::week_totals(&mut tx, &id, &week)
        .await?
        .iter()
        .filter(|(r, _, _)| *r == draft.radioisotope)
        .map(|(_, total, _)| total)
        .sum();
    let stamp = timestamp(at);
    let receipt = Receipt {
        id: new_id(),
        facility,
        radioisotope: draft.radioisotope,
        activity: draft.activity,
        activity_reference_time: timestamp(draft.activity_reference_time),
        activity_at_receipt: received,
        supplier: draft.supplier,
        lot: draft.lot,
        received_by: draft.received_by.unwrap_or_else(|| caller.name.clone()),
        received_at: timestamp(draft.received_at),
        week,
        over_quantity: exceeds(quantity(draft.radioisotope), before + received),
        notes: draft.notes,
        created_by: Reference {
            id: caller.id.clone(),
            name: caller.name.clone(),
        },
        created_at: stamp.clone(),
        updated_at: stamp,
    };
    store::insert_receipt(&mut tx, &receipt).await?;
    let id = receipt.id.clone();
    created(tx, &caller, "receipt", &id, receipt).await
}

/// Audits a new record, commits, and answers 201 with it.
async fn created<T: serde::Serialize>(
    mut tx: crate::db::Tx,
    caller: &Caller,
    entity: &str,
    id: &str,
    record: T,
) -> Result<(StatusCode, Json<T>)> {
    audit::record_change(
        &mut tx,
        Some(&caller.id),
        entity,
        id,
        "create",
        None,
        Some(&record),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(record)))
}

/// A `Cliente` sees only the records of facilities they are linked to; others are not found.
async fn check_visible(
    conn: &mut Conn,
    caller: &Caller,
    facility_id: &str,
    what: &str,
) -> Result<()> {
    if !caller.is_staff() && !facilities::is_member(conn, facility_id, &caller.id).await? {
        return Err(ApiError::not_found(what));
    }
    Ok(())
}

async fn receipts(
    state: &AppState,
    caller: &Caller,
    facility: Option<String>,
    params: &ListParams,
) -> Result<Json<ListEnvelope<Receipt>>> {
    let week = week_filter(params)?.map(|w| w.to_string());
    let isotope = isotope_filter(params)?;
    let over = bool_filter(params, "overQuantity")?;
    let mut conn = state.db.read().await?;
    let scope = scope(&mut conn, caller, facility).await?;
    let (list, total) = store::receipts(
        &mut conn,
        &scope,
        week.as_deref(),
        isotope,
        over,
        params.page_size,
        params.offset(),
    )
    .await?;
    Ok(Json(ListEnvelope {
        list,
        paging: params.paging(total),
    }))
}

#[utoipa::path(get, path = "/api/facility/{id}/receipts", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility"),
           ("week" = Option<String>, Query, description = "YYYY-Www"), ("radioisotope" = Option<String>, Query),
           ("overQuantity" = Option<bool>, Query), ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query)),
    responses((status = 200, description = "Latest received first", body = ListEnvelope<Receipt>),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn list_for_facility(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<Receipt>>> {
    receipts(&state, &caller, Some(id), &params).await
}

#[utoipa::path(get, path = "/api/receipts", tag = "radioactive material",
    params(("facilityId" = Option<String>, Query), ("week" = Option<String>, Query, description = "YYYY-Www"),
           ("radioisotope" = Option<String>, Query), ("overQuantity" = Option<bool>, Query),
           ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query)),
    responses((status = 200, description = "Receipts of every facility the caller can read, latest received first",
               body = ListEnvelope<Receipt>), (status = 400, body = ErrorBody),
              (status = 404, description = "facilityId names no facility the caller can read", body = ErrorBody)))]
async fn list_all(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Json<ListEnvelope<Receipt>>> {
    receipts(&state, &caller, params.text("facilityId"), &params).await
}

#[utoipa::path(get, path = "/api/receipt/{id}", tag = "radioactive material",
    params(("id" = String, Path)),
    responses((status = 200, body = Receipt), (status = 404, body = ErrorBody)))]
async fn show_receipt(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Receipt>> {
    let mut conn = state.db.read().await?;
    let receipt = store::receipt(&mut conn, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("receipt"))?;
    check_visible(&mut conn, &caller, &receipt.facility.id, "receipt").await?;
    Ok(Json(receipt))
}

#[utoipa::path(get, path = "/api/facility/{id}/radioisotopes/usage", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility"),
           ("week" = Option<String>, Query, description = "YYYY-Www (Monday to Sunday, Brasília time); default the current week")),
    responses((status = 200, description = "Per isotope: authorised weekly quantity, received total and remaining margin (mCi)",
               body = WeeklyUsage), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn weekly_usage(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<WeeklyUsage>> {
    let week = week_filter(&params)?.unwrap_or_else(|| IsoWeek::containing(Utc::now()));
    let mut conn = state.db.read().await?;
    let facility = visible(&mut conn, &caller, &id).await?;
    let authorised: Vec<(Radioisotope, f64)> = facility
        .radioisotopes
        .iter()
        .map(|r| (r.name, r.quantity))
        .collect();
    let received = store::week_totals(&mut conn, &id, &week.to_string()).await?;
    Ok(Json(WeeklyUsage {
        facility: Reference {
            id: facility.id,
            name: facility.name,
        },
        week: week.to_string(),
        from: timestamp(week.start()),
        to: timestamp(week.end()),
        radioisotopes: usage(&authorised, &received),
    }))
}

fn today() -> String {
    local_date(Utc::now()).to_string()
}

/// The release date of a package under the deployer's clearance levels.
fn release_day(
    state: &AppState,
    contents: &[WasteContent],
    mass: f64,
    closed_at: DateTime<Utc>,
) -> String {
    release_date(contents, mass, closed_at, &state.config.notices.clearance).to_string()
}

#[utoipa::path(post, path = "/api/facility/{id}/waste", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility")),
    request_body(content = Object, description = "`{form: Sólido|Líquido, contents: [{radioisotope, activity (mCi at closure)}], \
        mass (kg), closedAt?, location, description?}`. The release date is computed from the half-lives and the clearance levels."),
    responses((status = 201, body = WastePackage), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 422, body = ErrorBody)))]
async fn store_waste(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<(StatusCode, Json<WastePackage>)> {
    caller.require_staff()?;
    let value = body.value()?;
    let mut tx = state.db.begin().await?;
    let facility = facility_ref(&mut tx, &id).await?;
    let at = Utc::now();
    let c = read_waste(&value, true, at).map_err(ApiError::Validation)?;
    let (Some(form), Some(contents), Some(mass), Some(closed_at), Some(location)) =
        (c.form, c.contents, c.mass, c.closed_at, c.location)
    else {
        unreachable!("required on create");
    };
    let stamp = timestamp(at);
    let mut package = WastePackage {
        id: new_id(),
        facility,
        form,
        release_date: release_day(&state, &contents, mass, closed_at),
        contents,
        mass,
        closed_at: timestamp(closed_at),
        location,
        description: c.description.flatten(),
        releasable: false,
        release: None,
        created_by: Reference {
            id: caller.id.clone(),
            name: caller.name.clone(),
        },
        created_at: stamp.clone(),
        updated_at: stamp,
    };
    package.releasable = package.release_date <= today();
    store::save_waste(&mut tx, &package, true).await?;
    let id = package.id.clone();
    created(tx, &caller, "waste", &id, package).await
}

async fn waste_list(
    state: &AppState,
    caller: &Caller,
    facility: Option<String>,
    params: &ListParams,
) -> Result<Json<ListEnvelope<WastePackage>>> {
    let query = WasteQuery {
        releasable: bool_filter(params, "releasable")?,
        released: bool_filter(params, "released")?,
        radioisotope: isotope_filter(params)?,
    };
    let mut conn = state.db.read().await?;
    let scope = scope(&mut conn, caller, facility).await?;
    let (list, total) = store::waste_list(
        &mut conn,
        &scope,
        &query,
        &today(),
        params.page_size,
        params.offset(),
    )
    .await?;
    Ok(Json(ListEnvelope {
        list,
        paging: params.paging(total),
    }))
}

#[utoipa::path(get, path = "/api/facility/{id}/waste", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility"),
           ("releasable" = Option<bool>, Query, description = "Only packages that may (true) or may not (false) be released today"),
           ("released" = Option<bool>, Query), ("radioisotope" = Option<String>, Query),
           ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query)),
    responses((status = 200, description = "Newest first", body = ListEnvelope<WastePackage>),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn waste_for_facility(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<WastePackage>>> {
    waste_list(&state, &caller, Some(id), &params).await
}

#[utoipa::path(get, path = "/api/waste", tag = "radioactive material",
    params(("facilityId" = Option<String>, Query),
           ("releasable" = Option<bool>, Query, description = "Only packages that may (true) or may not (false) be released today"),
           ("released" = Option<bool>, Query), ("radioisotope" = Option<String>, Query),
           ("pageNum" = Option<i64>, Query), ("pageSize" = Option<i64>, Query)),
    responses((status = 200, description = "Packages of every facility the caller can read, newest first",
               body = ListEnvelope<WastePackage>), (status = 400, body = ErrorBody),
              (status = 404, description = "facilityId names no facility the caller can read", body = ErrorBody)))]
async fn waste_all(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Json<ListEnvelope<WastePackage>>> {
    waste_list(&state, &caller, params.text("facilityId"), &params).await
}

/// A package the caller may see, or 404.
async fn visible_waste(conn: &mut Conn, caller: &Caller, id: &str) -> Result<WastePackage> {
    let package = store::waste(conn, id, &today())
        .await?
        .ok_or_else(|| ApiError::not_found("waste package"))?;
    check_visible(conn, caller, &package.facility.id, "waste package").await?;
    Ok(package)
}

#[utoipa::path(get, path = "/api/waste/{id}", tag = "radioactive material",
    params(("id" = String, Path)),
    responses((status = 200, body = WastePackage), (status = 404, body = ErrorBody)))]
async fn show_waste(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<WastePackage>> {
    let mut conn = state.db.read().await?;
    Ok(Json(visible_waste(&mut conn, &caller, &id).await?))
}

fn released_already() -> ApiError {
    ApiError::conflict(
        "invalid_transition",
        "The package was released; a released package is never changed.",
    )
}

#[utoipa::path(put, path = "/api/waste/{id}", tag = "radioactive material",
    params(("id" = String, Path)),
    request_body(content = Object, description = "Fields present replace the stored ones (`form`, `contents`, `mass`, `closedAt`, \
        `location`, `description`); the release date is computed again. A released package answers 409 `invalid_transition`."),
    responses((status = 200, body = WastePackage), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
async fn edit_waste(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<WastePackage>> {
    caller.require_staff()?;
    let value = body.value()?;
    let at = Utc::now();
    let changes: WasteChanges = read_waste(&value, false, at).map_err(ApiError::Validation)?;
    let mut tx = state.db.begin().await?;
    let before = store::waste(&mut tx, &id, &today())
        .await?
        .ok_or_else(|| ApiError::not_found("waste package"))?;
    if before.release.is_some() {
        return Err(released_already());
    }
    let mut package = before.clone();
    if let Some(form) = changes.form {
        package.form = form;
    }
    if let Some(contents) = changes.contents {
        package.contents = contents;
    }
    if let Some(mass) = changes.mass {
        package.mass = mass;
    }
    let closed_at = match changes.closed_at {
        Some(t) => t,
        None => DateTime::parse_from_rfc3339(&package.closed_at)
            .map_err(|e| anyhow::anyhow!("stored closedAt: {e}"))?
            .with_timezone(&Utc),
    };
    package.closed_at = timestamp(closed_at);
    if let Some(location) = changes.location {
        package.location = location;
    }
    if let Some(description) = changes.description {
        package.description = description;
    }
    package.release_date = release_day(&state, &package.contents, package.mass, closed_at);
    package.releasable = package.release_date <= today();
    if package != before {
        package.updated_at = now();
        store::save_waste(&mut tx, &package, false).await?;
        audit::record_change(
            &mut tx,
            Some(&caller.id),
            "waste",
            &id,
            "edit",
            Some(&before),
            Some(&package),
        )
        .await?;
        tx.commit().await?;
    }
    Ok(Json(package))
}

#[utoipa::path(post, path = "/api/waste/{id}/release", tag = "radioactive material",
    params(("id" = String, Path)),
    request_body(content = Object, description = "`{doseRate (µSv/h at the surface), releasedAt?, notes?}`. Before the release \
        date → 409 `conflict`; a package already released → 409 `invalid_transition`."),
    responses((status = 200, body = WastePackage), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
async fn release(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<WastePackage>> {
    caller.require_staff()?;
    let value = body.value()?;
    let at = Utc::now();
    let (dose_rate, released_at, notes) = read_release(&value, at).map_err(ApiError::Validation)?;
    let mut tx = state.db.begin().await?;
    let before = store::waste(&mut tx, &id, &today())
        .await?
        .ok_or_else(|| ApiError::not_found("waste package"))?;
    if before.release.is_some() {
        return Err(released_already());
    }
    let released_day = local_date(released_at).to_string();
    if before.release_date > released_day {
        return Err(ApiError::conflict(
            "conflict",
            format!(
                "The package is above its clearance levels until {}; it cannot be released on {released_day}.",
                before.release_date
            ),
        ));
    }
    let record = WasteRelease {
        released_by: Reference {
            id: caller.id.clone(),
            name: caller.name.clone(),
        },
        released_at: timestamp(released_at),
        dose_rate,
        notes,
    };
    let stamp = now();
    if !store::release_waste(&mut tx, &id, &record, &stamp).await? {
        return Err(released_already());
    }
    let mut package = before.clone();
    package.release = Some(record);
    package.releasable = false;
    package.updated_at = stamp;
    audit::record_change(
        &mut tx,
        Some(&caller.id),
        "waste",
        &id,
        "release",
        Some(&before),
        Some(&package),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(package))
}
