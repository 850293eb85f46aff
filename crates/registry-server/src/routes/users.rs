//! User endpoints (spec §4.2): the list (staff), one user and their facilities (staff or self).

use crate::auth::{Caller, Staff};
use crate::db::Conn;
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::ListParams;
use crate::extract::Path;
use crate::routes::describe::{Routes, routes};
use crate::routes::shared::{FacilityFilters, Forbidden, SearchParams};
use crate::state::AppState;
use crate::store::facilities::{self, FacilityFilter};
use crate::store::users::{self, UserRow};
use axum::Json;
use axum::extract::State;
use registry_core::Role;
use registry_core::api::{Facility, ListEnvelope, User};

pub fn routes() -> Routes {
    routes![list, show, user_facilities]
}

#[utoipa::path(
    get, path = "/api/users", tag = "users", summary = "List users (staff)",
    params(
        SearchParams,
        ("role" = Option<String>, Query, description = "Only users holding this role"),
        ("active" = Option<bool>, Query, description = "Only active (true) or deactivated (false) users")
    ),
    responses((status = 200, description = "OK", body = ListEnvelope<User>), Forbidden)
)]
async fn list(
    State(state): State<AppState>,
    _staff: Staff,
    params: ListParams,
) -> Result<Json<ListEnvelope<User>>> {
    let mut conn = state.db.read().await?;
    let filter = users::UserFilter {
        q: params.text("q"),
        // In any case, with or without accents (`fisico`), as the facility lists' filters.
        role: params.one_of("role", Role::parse_loosely, Role::as_str, Role::allowed)?,
        active: params.flag("active")?,
    };
    let (rows, total) = users::list(&mut conn, &filter, params.page_size, params.offset()).await?;
    Ok(params.page(rows.into_iter().map(|u| u.profile).collect(), total))
}

/// The user `id`, with the connection it was read on: staff see every user, others only
/// themselves (anyone else is "not found").
async fn visible_user(state: &AppState, caller: &Caller, id: &str) -> Result<(Conn, UserRow)> {
    if !caller.is_staff() && caller.id != id {
        return Err(ApiError::not_found("user"));
    }
    let mut conn = state.db.read().await?;
    let user = users::by_id(&mut conn, id).await?.or_not_found("user")?;
    Ok((conn, user))
}

#[utoipa::path(
    get, path = "/api/user/{id}", tag = "users", summary = "User details (staff or self)",
    params(("id" = String, Path)),
    responses((status = 200, description = "OK", body = User))
)]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<User>> {
    let (_, user) = visible_user(&state, &caller, &id).await?;
    Ok(Json(user.profile))
}

#[utoipa::path(
    get, path = "/api/user/{id}/facilities", tag = "users",
    summary = "Facilities of a user (staff or self)",
    params(("id" = String, Path), FacilityFilters),
    responses((status = 200, description = "OK", body = ListEnvelope<Facility>))
)]
async fn user_facilities(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<Facility>>> {
    let (mut conn, _) = visible_user(&state, &caller, &id).await?;
    let filter = FacilityFilter {
        member: Some(id),
        ..params.facility_filter()?
    };
    let (list, total) =
        facilities::list(&mut conn, &filter, params.page_size, params.offset()).await?;
    Ok(params.page(list, total))
}
