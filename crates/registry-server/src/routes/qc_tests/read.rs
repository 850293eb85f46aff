//! Reading QC tests: one record, its PDF report, and the history of one test type on one equipment.

use crate::access::{document_scope, visible_equipment};
use crate::auth::Caller;
use crate::db::Conn;
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::ListParams;
use crate::extract::Path;
use crate::routes::shared::PageParams;
use crate::state::AppState;
use crate::store::qc_tests as store;
use crate::store::{documents, equipment, equipment_types};
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use registry_core::api::ListEnvelope;
use registry_core::equipment::{QcTest, parse_date};
use std::collections::HashMap;

/// A live record the caller may see, or 404.
async fn visible_test(conn: &mut Conn, caller: &Caller, id: &str) -> Result<QcTest> {
    let mut record = store::get(conn, id).await?.or_not_found("test")?;
    visible_equipment(conn, caller, &record.equipment)
        .await
        .map_err(|_| ApiError::not_found("test"))?;
    hide_unreadable_documents(conn, caller, std::slice::from_mut(&mut record)).await?;
    Ok(record)
}

/// Tests name their report document only to callers who may read it: a `Cliente` reads released
/// documents only, and would otherwise learn the `_id` of a draft they get 404 for.
async fn hide_unreadable_documents(
    conn: &mut Conn,
    caller: &Caller,
    tests: &mut [QcTest],
) -> Result<()> {
    if caller.is_staff() {
        return Ok(());
    }
    let scope = document_scope(caller);
    let mut readable = HashMap::new();
    for test in tests {
        let Some(id) = test.document.clone() else {
            continue;
        };
        let may_read = match readable.get(&id) {
            Some(&may_read) => may_read,
            None => {
                let may_read = documents::view(conn, &id, &scope).await?.is_some();
                readable.insert(id, may_read);
                may_read
            }
        };
        if !may_read {
            test.document = None;
        }
    }
    Ok(())
}

#[utoipa::path(
    get, path = "/api/test/{id}", tag = "QC tests",
    params(("id" = String, Path)),
    responses((status = 200, body = QcTest))
)]
pub(super) async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<QcTest>> {
    let mut conn = state.db.read().await?;
    Ok(Json(visible_test(&mut conn, &caller, &id).await?))
}

#[utoipa::path(
    get, path = "/api/test/{id}/report", tag = "QC tests",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "A one-page PDF of the test: facility, equipment, readings, \
            figures, verdict, who and when; upload it as the test's document to sign it",
            content_type = "application/pdf")
    )
)]
pub(super) async fn report(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response> {
    let mut conn = state.db.read().await?;
    let record = visible_test(&mut conn, &caller, &id).await?;
    let equipment = equipment::get(&mut conn, &record.equipment)
        .await?
        .or_not_found("test")?;
    drop(conn);
    let generated_at = chrono::Utc::now()
        .with_timezone(&chrono::FixedOffset::west_opt(3 * 3600).expect("valid offset"))
        .format("%Y-%m-%d %H:%M (Brasília)")
        .to_string();
    let pdf = crate::report::qc_test_pdf(
        &record,
        &crate::report::ReportContext {
            equipment: &equipment,
            generated_at: &generated_at,
        },
    );
    Ok((
        [
            (
                axum::http::header::CONTENT_TYPE,
                "application/pdf".to_owned(),
            ),
            (
                axum::http::header::CONTENT_DISPOSITION,
                format!("inline; filename=\"qc-test-{id}.pdf\""),
            ),
            // A download, like document files and images (decisions.md).
            (
                axum::http::header::CACHE_CONTROL,
                "private, no-cache".to_owned(),
            ),
        ],
        pdf,
    )
        .into_response())
}

fn date_filter(params: &ListParams, key: &str) -> Result<Option<NaiveDate>> {
    params
        .text(key)
        .map(|s| {
            parse_date(&s)
                .ok_or_else(|| ApiError::BadRequest(format!("{key} must be a date (YYYY-MM-DD).")))
        })
        .transpose()
}

#[utoipa::path(
    get, path = "/api/test/{equipmentId}/{testId}", tag = "QC tests",
    params(
        ("equipmentId" = String, Path),
        ("testId" = String, Path, description = "The test type"),
        ("dateGte" = Option<String>, Query, description = "From this day (YYYY-MM-DD)"),
        ("dateLt" = Option<String>, Query, description = "Before this day (YYYY-MM-DD)"),
        PageParams
    ),
    responses((status = 200, description = "Newest first", body = ListEnvelope<QcTest>))
)]
pub(super) async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Path((equipment_id, test_type_id)): Path<(String, String)>,
    params: ListParams,
) -> Result<Json<ListEnvelope<QcTest>>> {
    let (gte, lt) = (
        date_filter(&params, "dateGte")?,
        date_filter(&params, "dateLt")?,
    );
    let mut conn = state.db.read().await?;
    visible_equipment(&mut conn, &caller, &equipment_id).await?;
    equipment_types::get_test_type(&mut conn, &test_type_id)
        .await?
        .or_not_found("test type")?;
    let (mut list, total) = store::history(
        &mut conn,
        &equipment_id,
        &test_type_id,
        gte,
        lt,
        params.page_size,
        params.offset(),
    )
    .await?;
    hide_unreadable_documents(&mut conn, &caller, &mut list).await?;
    Ok(params.page(list, total))
}
