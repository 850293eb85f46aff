//! The HTTP routes, one module per resource, merged under `/api` ([`describe::PREFIX`]); each
//! handler's `#[utoipa::path]` both routes and describes it (`describe.rs`).

mod archive;
mod audited;
pub mod auth;
mod catalogue;
pub mod describe;
pub mod documents;
pub mod equipment;
pub mod equipment_types;
pub mod facilities;
pub mod groups;
pub mod images;
pub mod material;
pub mod notices;
pub mod qc_tests;
pub mod shared;
pub mod users;

use crate::state::AppState;
use axum::Router;
use describe::Routes;

fn all() -> Routes {
    Routes::new()
        .merge(auth::routes())
        .merge(users::routes())
        .merge(facilities::routes())
        .merge(images::routes())
        .merge(groups::routes())
        .merge(documents::routes())
        .merge(equipment_types::routes())
        .merge(equipment::routes())
        .merge(qc_tests::routes())
        .merge(material::routes())
        .merge(notices::routes())
}

/// The router nested at `/api`.
pub fn api() -> Router<AppState> {
    all().into_router()
}

/// The endpoints' part of the OpenAPI document (`openapi.rs` completes it).
pub fn openapi() -> utoipa::openapi::OpenApi {
    all().into_openapi()
}
