//! `GET /api/notices`: what the daily digest would tell each facility's responsible people today,
//! on demand, for staff.

use crate::auth::Staff;
use crate::error::{ApiError, Result};
use crate::extract::ListParams;
use crate::routes::describe::{Routes, routes};
use crate::routes::shared::{Forbidden, NotFound, PageParams};
use crate::state::AppState;
use crate::store::material::Scope;
use axum::Json;
use axum::extract::State;
use chrono::Utc;
use registry_core::api::ListEnvelope;
use registry_core::equipment::local_date;
use registry_core::notice::{Notice, NoticeKind};
use registry_core::values::names_of;

pub fn routes() -> Routes {
    routes![list]
}

#[utoipa::path(
    get, path = "/api/notices", tag = "radioactive material",
    params(
        ("facilityId" = Option<String>, Query),
        ("kind" = Option<String>, Query, description = "qc_overdue, qc_due_soon, licence_expiring, \
            document_expiring, waste_releasable, quantity_exceeded (comma-separated); default all"),
        PageParams
    ),
    responses(
        (status = 200, description = "By facility name, then kind, then date",
            body = ListEnvelope<Notice>),
        Forbidden, NotFound
    )
)]
async fn list(
    State(state): State<AppState>,
    _staff: Staff,
    params: ListParams,
) -> Result<Json<ListEnvelope<Notice>>> {
    let kinds = match params.text("kind") {
        None => Vec::new(),
        Some(k) => k
            .split(',')
            .map(|s| {
                NoticeKind::parse(s.trim()).ok_or_else(|| {
                    ApiError::BadRequest(format!(
                        "kind must be among: {}.",
                        names_of(NoticeKind::ALL, NoticeKind::as_str)
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?,
    };
    let mut conn = state.db.read().await?;
    // A filter narrows the list: an unknown facility leaves it empty (as on the other lists).
    let facility_id = params.text("facilityId");
    let scope = Scope {
        facility_id,
        member: None,
    };
    let mut notices = crate::notices::gather(
        &mut conn,
        &scope,
        local_date(Utc::now()),
        &state.config.notices,
    )
    .await?;
    if !kinds.is_empty() {
        notices.retain(|n| kinds.contains(&n.kind));
    }
    let total = notices.len() as i64;
    let list = notices
        .into_iter()
        .skip(params.offset() as usize)
        .take(params.page_size as usize)
        .collect();
    Ok(params.page(list, total))
}
