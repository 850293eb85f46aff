//! The HTTP routes, one module per resource, merged under `/api`.

pub mod auth;
pub mod documents;
pub mod facilities;
pub mod groups;
pub mod images;
pub mod users;

use crate::app::AppState;
use axum::Router;

pub fn api() -> Router<AppState> {
    Router::new()
        .merge(auth::router())
        .merge(users::router())
        .merge(facilities::router())
        .merge(images::router())
        .merge(groups::router())
        .merge(documents::router())
}
