//! The facility registry server: an axum REST API over SQLite or PostgreSQL.

pub mod access;
pub mod app;
pub mod auth;
pub mod cache;
pub mod changes;
pub mod config;
pub mod db;
pub mod email_worker;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod limits;
pub mod mail;
pub mod notices;
pub mod objects;
pub mod openapi;
pub mod pg_changes;
pub mod pg_reads;
pub mod pg_trigrams;
pub mod report;
pub mod request_guard;
pub mod routes;
pub mod secrets;
pub mod sqlite_readers;
pub mod state;
pub mod store;
pub mod versions;

pub use app::{AppState, Application};
pub use config::Config;
