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
    let doc = ApiDoc::openapi().merge_from(crate::routes::documents::openapi());
    Router::new().merge(SwaggerUi::new("/api/docs").url("/api/openapi.json", doc))
}
