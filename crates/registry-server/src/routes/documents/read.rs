//! Reading one document and its file.

use super::load;
use crate::auth::{Caller, Reader};
use crate::error::{OrNotFound, Result};
use crate::extract::{Path, Query};
use crate::state::AppState;
use crate::store::documents as store;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::TryStreamExt;
use registry_core::document::Document;
use serde::Deserialize;

#[utoipa::path(
    get, path = "/api/document/{id}", tag = "documents",
    params(("id" = String, Path, description = "Document `_id`")),
    responses((status = 200, body = Document))
)]
pub(super) async fn show(
    Reader { caller, mut conn }: Reader,
    Path(id): Path<String>,
) -> Result<Response> {
    Ok(Json(load(&mut conn, &caller, &id).await?).into_response())
}

#[derive(Deserialize)]
pub(super) struct FileQuery {
    version: Option<i64>,
}

#[utoipa::path(
    get, path = "/api/document/{id}/file", tag = "documents",
    params(
        ("id" = String, Path, description = "Document `_id`"),
        ("version" = Option<i64>, Query, description = "An older file version; default the current \
            one")
    ),
    responses(
        (status = 200, description = "The file's bytes, with its content type",
            content_type = "application/octet-stream")
    )
)]
pub(super) async fn download(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(query): Query<FileQuery>,
) -> Result<Response> {
    let file = {
        let mut conn = state.db.read().await?;
        load(&mut conn, &caller, &id).await?;
        store::file(&mut conn, &id, query.version)
            .await?
            .or_not_found("file version")?
    };
    let stream = state.objects.stream(&file.sha256).await?;
    let body = Body::from_stream(stream.map_err(std::io::Error::other));
    let disposition = format!(
        "attachment; filename=\"{}\"; filename*=UTF-8''{}",
        file.name
            .replace(['"', '\\', '\r', '\n'], "_")
            .chars()
            .filter(char::is_ascii)
            .collect::<String>(),
        url::form_urlencoded::byte_serialize(file.name.as_bytes()).collect::<String>()
    );
    Ok((
        [
            (header::CONTENT_TYPE, file.content_type),
            (header::CONTENT_LENGTH, file.size.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::ETAG, format!("\"{}\"", file.sha256)),
            (header::CACHE_CONTROL, "private, no-cache".to_owned()),
        ],
        body,
    )
        .into_response())
}
