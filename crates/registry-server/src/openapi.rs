//! The OpenAPI description at `/api/openapi.json` and Swagger UI at `/api/docs`: each route
//! module describes its own endpoints; this merges them and declares the bearer scheme.

use crate::app::AppState;
use axum::Router;
use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa_swagger_ui::SwaggerUi;

#[derive(OpenApi)]
#[openapi(info(
    title = "Facility Registry API",
    description = "Facilities, users, groups, equipment, QC tests, documents, radioactive material, waste and notices of radiation-related healthcare sites (nuclear medicine and radiodiagnosis). Every path also answers with a trailing slash."
))]
struct ApiDoc;

pub fn document() -> utoipa::openapi::OpenApi {
    use crate::routes::*;
    let mut doc = ApiDoc::openapi()
        .merge_from(auth::openapi())
        .merge_from(users::openapi())
        .merge_from(facilities::openapi())
        .merge_from(images::openapi())
        .merge_from(groups::openapi())
        .merge_from(documents::openapi())
        .merge_from(equipment_types::openapi())
        .merge_from(equipment::openapi())
        .merge_from(qc_tests::openapi())
        .merge_from(material::openapi())
        .merge_from(notices::openapi());
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("JWT")
                .build(),
        ),
    );
    doc
}

pub fn router() -> Router<AppState> {
    Router::new().merge(SwaggerUi::new("/api/docs").url("/api/openapi.json", document()))
}
