//! The HTTP routes, one module per resource, merged under `/api`.

mod archive;
pub mod auth;
mod catalogue;
pub mod documents;
pub mod equipment;
pub mod equipment_types;
pub mod facilities;
pub mod groups;
pub mod images;
pub mod material;
pub mod notices;
pub mod qc_tests;
pub mod users;

use crate::state::AppState;
use axum::Router;

pub fn api() -> Router<AppState> {
    Router::new()
        .merge(auth::router())
        .merge(users::router())
        .merge(facilities::router())
        .merge(images::router())
        .merge(groups::router())
        .merge(documents::router())
        .merge(equipment_types::router())
        .merge(equipment::router())
        .merge(qc_tests::router())
        .merge(material::router())
        .merge(notices::router())
}
