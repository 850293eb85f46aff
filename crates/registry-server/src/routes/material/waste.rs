//! Waste in decay storage: packages, their release date under the clearance levels, and their
//! release.

use super::{Of, facility_ref, scope};
use crate::access::visible_record;
use crate::auth::{Caller, Staff};
use crate::db::{Conn, Tx};
use crate::db::{new_id, now, timestamp};
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::Path;
use crate::extract::{JsonBody, ListParams};
use crate::routes::audited;
use crate::routes::shared::{Conflict, Forbidden, UnknownFacility, WasteFilters};
use crate::state::AppState;
use crate::store::material::{self as store, WasteQuery};
use axum::Json;
use axum::extract::State;
use chrono::{NaiveDate, Utc};
use registry_core::FieldError;
use registry_core::api::ListEnvelope;
use registry_core::audit::Action;
use registry_core::equipment::local_date;
use registry_core::inputs::{WasteInput, WasteReleaseInput};
use registry_core::waste::{ClearanceLevels, WastePackage, WasteRelease, read_release, read_waste};

fn today() -> NaiveDate {
    local_date(Utc::now())
}

/// The deployer's clearance levels, which release dates are computed under.
fn clearance(state: &AppState) -> &ClearanceLevels {
    &state.config.notices.clearance
}

#[utoipa::path(
    post, path = "/api/facility/{id}/waste", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility")),
    request_body(content = WasteInput, description = "The release date is computed from the half-lives and the clearance \
        levels."),
    responses((status = 201, headers(("Location" = String, description = "The created record's path")), body = WastePackage), Forbidden)
)]
pub(super) async fn store_waste(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<audited::Created<WastePackage>> {
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
        // closedAt, releaseDate and releasable: set by `close_at` below.
        release_date: String::new(),
        contents,
        mass,
        closed_at: String::new(),
        location,
        description: c.description.flatten(),
        releasable: false,
        release: None,
        created_by: caller.reference(),
        created_at: stamp.clone(),
        updated_at: stamp,
    };
    package.close_at(closed_at, clearance(&state), today());
    store::save_waste(&mut tx, &package, true).await?;
    let id = package.id.clone();
    audited::created(tx, &caller, ("waste", "/api/waste"), &id, package).await
}

async fn waste_list(
    state: &AppState,
    caller: &Caller,
    of: Of,
    params: &ListParams,
) -> Result<Json<ListEnvelope<WastePackage>>> {
    let query = WasteQuery {
        releasable: params.flag("releasable")?,
        released: params.flag("released")?,
        radioisotope: params.radioisotope()?,
    };
    let mut conn = state.db.read().await?;
    let scope = scope(&mut conn, caller, of).await?;
    let (list, total) = store::waste_list(
        &mut conn,
        &scope,
        &query,
        &today().to_string(),
        params.page_size,
        params.offset(),
    )
    .await?;
    Ok(params.page(list, total))
}

#[utoipa::path(
    get, path = "/api/facility/{id}/waste", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility"), WasteFilters),
    responses((status = 200, description = "Newest first", body = ListEnvelope<WastePackage>))
)]
pub(super) async fn waste_for_facility(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<WastePackage>>> {
    waste_list(&state, &caller, Of::Path(id), &params).await
}

#[utoipa::path(
    get, path = "/api/waste", tag = "radioactive material",
    params(("facilityId" = Option<String>, Query), WasteFilters),
    responses(
        (status = 200, description = "Packages of every facility the caller can read, newest first",
            body = ListEnvelope<WastePackage>),
        UnknownFacility
    )
)]
pub(super) async fn waste_all(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Json<ListEnvelope<WastePackage>>> {
    waste_list(
        &state,
        &caller,
        Of::Filter(params.text("facilityId")),
        &params,
    )
    .await
}

/// A package the caller may see, or 404.
async fn visible_waste(conn: &mut Conn, caller: &Caller, id: &str) -> Result<WastePackage> {
    let found = store::waste(conn, id, &today().to_string()).await?;
    visible_record(conn, caller, found, "waste package", |p| &p.facility.id).await
}

#[utoipa::path(
    get, path = "/api/waste/{id}", tag = "radioactive material",
    params(("id" = String, Path)),
    responses((status = 200, body = WastePackage))
)]
pub(super) async fn show_waste(
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

/// Starts a write to the package `id` while it is not released: the transaction, and the package
/// as it is; 404 without one (before the body is judged, as for every record in a path), then
/// the body's field errors (`read`), then 409 `invalid_transition` once released.
async fn unreleased<T>(
    state: &AppState,
    id: &str,
    read: impl FnOnce() -> std::result::Result<T, Vec<FieldError>>,
) -> Result<(Tx, WastePackage, T)> {
    // Locked first: an edit and a release (or two edits) of one package wait for each other, so
    // neither decides on a package the other has changed meanwhile.
    let mut tx = audited::locked(state, "waste_packages", id).await?;
    let package = store::waste(&mut tx, id, &today().to_string())
        .await?
        .or_not_found("waste package")?;
    let input = read().map_err(ApiError::Validation)?;
    if package.release.is_some() {
        return Err(released_already());
    }
    Ok((tx, package, input))
}

#[utoipa::path(
    put, path = "/api/waste/{id}", tag = "radioactive material",
    params(("id" = String, Path)),
    request_body(content = WasteInput, description = "Fields present replace the stored ones; the \
        release date is computed \
        again. A released package answers 409 `invalid_transition`."),
    responses((status = 200, body = WastePackage), Forbidden, Conflict)
)]
pub(super) async fn edit_waste(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<WastePackage>> {
    let at = Utc::now();
    let value = body.value_for(&id, |v| read_waste(v, false, at).err().unwrap_or_default())?;
    let (tx, before, changes) = unreleased(&state, &id, || read_waste(&value, false, at)).await?;
    let package = changes
        .apply_to(&before, clearance(&state), today())
        .map_err(|e| anyhow::anyhow!("stored closedAt: {e}"))?;
    audited::edited(tx, &caller, "waste", &id, &before, package).await
}

#[utoipa::path(
    post, path = "/api/waste/{id}/release", tag = "radioactive material",
    params(("id" = String, Path)),
    request_body(content = WasteReleaseInput, description = "Before the release date → 409 `conflict`; a package already released → 409 \
        `invalid_transition`."),
    responses((status = 200, body = WastePackage), Forbidden, Conflict)
)]
pub(super) async fn release(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<WastePackage>> {
    let value = body.value()?;
    let at = Utc::now();
    let (mut tx, before, (dose_rate, released_at, notes)) =
        unreleased(&state, &id, || read_release(&value, at)).await?;
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
        released_by: caller.reference(),
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
    audited::changed(
        tx,
        &caller,
        "waste",
        &id,
        Action::Release,
        &before,
        &package,
    )
    .await?;
    Ok(Json(package))
}
