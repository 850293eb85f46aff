//! Lists of documents, filtered and paged.

use crate::access::document_scope;
use crate::auth::{Caller, Reader};
use crate::db::Conn;
use crate::error::{ApiError, Result};
use crate::extract::{ListParams, Path};
use crate::routes::shared::{BadRequest, DocumentQuery, PageParams};
use crate::store::documents::{self as store, DocumentFilter};
use axum::response::{IntoResponse, Response};
use registry_core::api::ListEnvelope;
use registry_core::document::{self, Document, DocumentStatus};

fn filter_from(params: &ListParams, caller: &Caller) -> Result<DocumentFilter> {
    let mut filter = document_scope(caller);
    if let Some(s) = params.text("status") {
        filter.status = Some(DocumentStatus::parse_loosely(&s).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "status must be one of {}.",
                DocumentStatus::allowed()
            ))
        })?);
    }
    filter.facility_id = params
        .text("facilityId")
        .or_else(|| params.text("facility"));
    filter.equipment_id = params
        .text("equipmentId")
        .or_else(|| params.text("equipment"));
    filter.test_id = params.text("testId").or_else(|| params.text("test"));
    for (key, slot) in [
        ("dateGte", &mut filter.date_gte),
        ("dateLt", &mut filter.date_lt),
    ] {
        if let Some(raw) = params.text(key) {
            *slot = Some(document::parse_date(&raw).ok_or_else(|| {
                ApiError::BadRequest(format!("{key} must be a date as YYYY-MM-DD."))
            })?);
        }
    }
    filter.q = params.text("q");
    Ok(filter)
}

async fn list_with(
    conn: &mut Conn,
    filter: DocumentFilter,
    params: &ListParams,
) -> Result<Response> {
    let (list, total) = store::list(conn, &filter, params.page_size, params.offset()).await?;
    Ok(params.page(list, total).into_response())
}

#[utoipa::path(
    get, path = "/api/documents", tag = "documents",
    description = "Newest first. Filters (`?filters=<json>` or plain params): `status` (value or \
        slug), `facilityId`, `equipmentId`, `testId`, `dateGte`, `dateLt`, `q`; paging `pageNum`, \
        `pageSize`. A `Cliente` sees only released documents of their facilities.",
    params(
        ("status" = Option<String>, Query, description = "A status value (`Falta assinar`) or \
            its slug (`falta-assinar`)"),
        DocumentQuery,
        PageParams
    ),
    responses((status = 200, body = ListEnvelope<Document>), BadRequest)
)]
pub(super) async fn list(
    Reader { caller, mut conn }: Reader,
    params: ListParams,
) -> Result<Response> {
    let filter = filter_from(&params, &caller)?;
    list_with(&mut conn, filter, &params).await
}

#[utoipa::path(
    get, path = "/api/documents/{status}", tag = "documents",
    params(
        ("status" = String, Path, description = "A status value (`Falta assinar`) or its slug \
            (`falta-assinar`)"),
        DocumentQuery,
        PageParams
    ),
    responses((status = 200, body = ListEnvelope<Document>), BadRequest)
)]
pub(super) async fn list_by_status(
    Reader { caller, mut conn }: Reader,
    Path(status): Path<String>,
    params: ListParams,
) -> Result<Response> {
    let status = DocumentStatus::parse_loosely(&status).ok_or_else(|| {
        ApiError::NotFound(format!(
            "No such document status; use one of {}.",
            DocumentStatus::allowed()
        ))
    })?;
    let mut filter = filter_from(&params, &caller)?;
    filter.status = Some(status);
    list_with(&mut conn, filter, &params).await
}
