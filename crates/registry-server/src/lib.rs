//! The facility registry server: an axum REST API over SQLite or PostgreSQL.

pub mod app;
pub mod auth;
pub mod config;
pub mod db;
pub mod error;
pub mod extract;
pub mod mail;
pub mod openapi;
pub mod routes;
pub mod seed;
pub mod store;

pub use app::{AppState, Application};
pub use config::Config;
