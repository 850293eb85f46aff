//! The facility registry server: an axum REST API over SQLite or PostgreSQL.

pub mod app;
pub mod auth;
pub mod cache;
pub mod config;
pub mod db;
pub mod email_worker;
pub mod error;
pub mod extract;
pub mod mail;
pub mod notices;
pub mod objects;
pub mod openapi;
pub mod routes;
pub mod seed;
pub mod signing;
pub mod store;

pub use app::{AppState, Application};
pub use config::Config;
