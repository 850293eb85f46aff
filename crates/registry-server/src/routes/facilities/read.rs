//! Reading facilities: the three lists, one facility with its ETag, and its change history.

use crate::access::scope_for;
use crate::auth::{Bearer, Caller, Reader, admit};
use crate::changes::ReadOf;
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::ListParams;
use crate::extract::Path;
use crate::routes::audited;
use crate::routes::shared::{FacilityFilters, Forbidden, PageParams};
use crate::state::AppState;
use crate::store::facilities as store;
use crate::versions::with_etag;
use axum::Json;
use axum::extract::{FromRequestParts, OriginalUri, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use registry_core::Department;
use registry_core::api::AuditEvent;
use registry_core::api::{Facility, ListEnvelope};

/// What the facility lists read from a request, in the order the handlers took it before: the
/// caller, the address (the cache key), then the paging and filters.
pub(super) struct ListRequest {
    state: AppState,
    reader: Reader,
    uri: Uri,
    params: ListParams,
}

impl FromRequestParts<AppState> for ListRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let reader = Reader::from_request_parts(parts, state).await?;
        let OriginalUri(uri) = OriginalUri::from_request_parts(parts, state)
            .await
            .unwrap_or_else(|never| match never {});
        let params = ListParams::from_request_parts(parts, state).await?;
        Ok(Self {
            state: state.clone(),
            reader,
            uri,
            params,
        })
    }
}

impl ListRequest {
    /// A page of the facilities the caller can read, of `department` when one is given.
    async fn answer(self, department: Option<Department>) -> Result<Response> {
        let Self {
            state,
            reader: Reader { caller, mut conn },
            uri,
            params,
        } = self;
        let key = caller.cache_key(&uri, "");
        state
            .cache
            .answer(&state.db, ReadOf::FacilityLists, key, async {
                let mut filter = params.facility_filter()?;
                if let Some(d) = department.map(|d| d.as_str().to_owned()) {
                    // A department's list filtered by the other department holds nothing.
                    if filter.department.as_ref().is_some_and(|f| *f != d) {
                        return Ok(params.page(Vec::<Facility>::new(), 0).into_response());
                    }
                    filter.department = Some(d);
                }
                filter.member = scope_for(&caller);
                let (list, total) =
                    store::list(&mut conn, &filter, params.page_size, params.offset()).await?;
                Ok(params.page(list, total).into_response())
            })
            .await
    }
}

#[utoipa::path(
    get, path = "/api/facilities", tag = "facilities", summary = "List facilities, paginated",
    params(FacilityFilters),
    responses((status = 200, description = "OK", body = ListEnvelope<Facility>))
)]
pub(super) async fn list_all(request: ListRequest) -> Result<Response> {
    request.answer(None).await
}

#[utoipa::path(
    get, path = "/api/nuclearmedicinefacilities", tag = "facilities",
    summary = "List nuclear-medicine facilities",
    params(FacilityFilters),
    responses((status = 200, description = "OK", body = ListEnvelope<Facility>))
)]
pub(super) async fn list_nuclear_medicine(request: ListRequest) -> Result<Response> {
    request.answer(Some(Department::NuclearMedicine)).await
}

#[utoipa::path(
    get, path = "/api/radiodiagnosisfacilities", tag = "facilities",
    summary = "List radiodiagnosis facilities",
    params(FacilityFilters),
    responses((status = 200, description = "OK", body = ListEnvelope<Facility>))
)]
pub(super) async fn list_radiodiagnosis(request: ListRequest) -> Result<Response> {
    request.answer(Some(Department::Radiodiagnosis)).await
}

#[utoipa::path(
    get, path = "/api/facility/{id}", tag = "facilities", summary = "Facility details",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "The facility, with its ETag (W/\"version\")",
            body = Facility)
    )
)]
pub(super) async fn show(
    State(state): State<AppState>,
    Bearer { claims, mut conn }: Bearer,
    Path(id): Path<String>,
) -> Result<Response> {
    // The view is the same for every caller who may see it: cached by facility, and read with
    // the caller's account where the backend does that in one statement. Who may see it is
    // settled after, whether the view came from the cache or not: an unknown or deactivated
    // account is 401 before any 404, and a `Cliente` not linked to the facility gets the 404 of
    // a facility that does not exist.
    let mut account = None;
    let answer = state
        .cache
        .answer(
            &state.db,
            ReadOf::Facility(&id),
            format!("facility {id}"),
            async {
                let (found, with) =
                    store::view_with_account(&mut conn, &id, &claims.id, true).await?;
                account = with;
                Ok(with_etag(StatusCode::OK, found.or_not_found("facility")?))
            },
        )
        .await;
    if account.is_none() {
        // The view came from the cache: the account alone (on PostgreSQL with the link).
        account = store::view_with_account(&mut conn, &id, &claims.id, false)
            .await?
            .1;
    }
    let (caller, linked) = match account {
        Some((user, linked)) => (admit(claims, user.as_ref())?, Some(linked)),
        None => (Bearer::account(&state, &mut conn, claims).await?, None),
    };
    if !caller.is_staff() {
        let linked = match linked {
            Some(linked) => linked,
            None => store::is_member(&mut conn, &id, &caller.id).await?,
        };
        if !linked {
            return Err(ApiError::not_found("facility"));
        }
    }
    answer
}

#[utoipa::path(
    get, path = "/api/facility/{id}/history", tag = "facilities",
    summary = "Change history of a facility",
    params(("id" = String, Path), PageParams),
    responses(
        (status = 200, description = "Audit events, newest first", body = ListEnvelope<AuditEvent>),
        Forbidden
    )
)]
pub(super) async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<AuditEvent>>> {
    audited::history(&state, &caller, "facility", &id, &params).await
}
