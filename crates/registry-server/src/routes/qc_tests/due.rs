//! Due dates: per equipment, and across every facility the caller can read.

use super::today;
use crate::access::scope_for;
use crate::access::visible_equipment;
use crate::auth::Reader;
use crate::changes::ReadOf;
use crate::error::{ApiError, Result};
use crate::extract::ListParams;
use crate::extract::Path;
use crate::routes::shared::PageParams;
use crate::state::AppState;
use crate::store::qc_tests::{self as store, DueQuery};
use axum::extract::{OriginalUri, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use registry_core::ErrorBody;
use registry_core::api::ListEnvelope;
use registry_core::equipment::{DueState, DueTest};

/// `state` as one value or a comma-separated list; `default` when absent.
fn states(params: &ListParams, default: &[DueState]) -> Result<Vec<DueState>> {
    let Some(text) = params.text("state") else {
        return Ok(default.to_vec());
    };
    text.split(',')
        .map(|s| {
            // In any case, as the other lists' filters.
            DueState::parse(&s.trim().to_ascii_lowercase()).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "state must be one of ok, due_soon, overdue, never_done (got \"{}\").",
                    s.trim()
                ))
            })
        })
        .collect()
}

/// The page of due tests `query` selects, cached per caller, request and day; an `equipment`
/// named must be visible to the caller.
async fn answer(
    state: &AppState,
    Reader { caller, mut conn }: Reader,
    uri: &Uri,
    params: &ListParams,
    query: &DueQuery,
    equipment: Option<&str>,
) -> Result<Response> {
    let key = caller.cache_key(uri, &query.today.to_string());
    state
        .cache
        .answer(&state.db, ReadOf::DueLists, key, async {
            if let Some(id) = equipment {
                visible_equipment(&mut conn, &caller, id).await?;
            }
            let (list, total) = store::due(&mut conn, query).await?;
            Ok(params.page(list, total).into_response())
        })
        .await
}

#[utoipa::path(
    get, path = "/api/equipment/{id}/tests/due", tag = "QC tests",
    params(
        ("id" = String, Path),
        ("state" = Option<String>, Query, description = "ok, due_soon, overdue, never_done \
            (comma-separated); default all"),
        ("failing" = Option<bool>, Query, description = "Only test types whose latest test is \
            Insatisfatório"),
        PageParams
    ),
    responses(
        (status = 200, description = "Every test type of the equipment's type, most urgent first",
            body = ListEnvelope<DueTest>)
    )
)]
pub(super) async fn due_for_equipment(
    State(state): State<AppState>,
    reader: Reader,
    OriginalUri(uri): OriginalUri,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response> {
    let query = DueQuery {
        equipment_id: Some(id.clone()),
        states: states(&params, &[])?,
        failing: params.flag("failing")?.unwrap_or(false),
        today: today(),
        limit: params.page_size,
        offset: params.offset(),
        ..DueQuery::default()
    };
    answer(&state, reader, &uri, &params, &query, Some(&id)).await
}

#[utoipa::path(
    get, path = "/api/tests/due", tag = "QC tests",
    params(
        ("state" = Option<String>, Query, description = "ok, due_soon, overdue, never_done \
            (comma-separated); default overdue,due_soon,never_done (with failing=true: every \
            state)"),
        ("failing" = Option<bool>, Query, description = "Only test types whose latest test is \
            Insatisfatório"),
        ("facilityId" = Option<String>, Query),
        ("typeOfEquipment" = Option<String>, Query),
        PageParams
    ),
    responses(
        (status = 200, description = "Tests of active equipment in every facility the caller can \
            read, most urgent first", body = ListEnvelope<DueTest>),
        (status = 401, body = ErrorBody)
    )
)]
pub(super) async fn due_everywhere(
    State(state): State<AppState>,
    reader: Reader,
    OriginalUri(uri): OriginalUri,
    params: ListParams,
) -> Result<Response> {
    let failing = params.flag("failing")?.unwrap_or(false);
    // A failing test needs attention whatever its due date: failing=true looks at every state.
    let default_states: &[DueState] = if failing {
        &[]
    } else {
        &[DueState::Overdue, DueState::DueSoon, DueState::NeverDone]
    };
    let query = DueQuery {
        member: scope_for(&reader.caller),
        facility_id: params.text("facilityId"),
        equipment_type_id: params.text("typeOfEquipment"),
        states: states(&params, default_states)?,
        failing,
        today: today(),
        limit: params.page_size,
        offset: params.offset(),
        ..DueQuery::default()
    };
    answer(&state, reader, &uri, &params, &query, None).await
}
