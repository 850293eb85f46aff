//! The OpenAPI description at `/api/openapi.json` and Swagger UI at `/api/docs`.

use crate::app::AppState;
use axum::Router;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

#[derive(OpenApi)]
#[openapi(info(
    title = "Facility Registry API",
    description = "Facilities, users, groups, equipment, QC tests and documents of radiation-related healthcare sites."
))]
pub struct ApiDoc;

pub fn router() -> Router<AppState> {
    Router::new().merge(SwaggerUi::new("/api/docs").url("/api/openapi.json", api_doc()))
}

/// The whole description: the base document merged with each resource module's paths.
pub fn api_doc() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
        .merge_from(crate::routes::equipment_types::openapi())
        .merge_from(crate::routes::equipment::openapi())
        .merge_from(crate::routes::qc_tests::openapi())
}
