//! Black-box API tests: a real server over a real database, driven over HTTP. Every test runs on
//! SQLite and on PostgreSQL.

mod answer;
#[path = "../common/mod.rs"]
mod common;
mod helpers;
mod instances;

mod abuse;
mod account_races;
mod auth;
mod cache;
mod check_then_write;
mod concurrency;
mod document_email;
mod documents;
mod due_counts;
mod due_rule;
mod equipment;
mod every_error;
mod facilities;
mod groups;
mod images;
mod indexed_lists;
mod input_limits;
mod material;
mod openapi;
mod outage;
mod qc_calc;
mod rare_trigrams;
mod recovery_mail;
mod schema;
mod service;
mod sqlite_readers;
mod startup;
mod storage_outage;
mod stored_views;
mod test_servers;
mod unicode_text;
mod users;
mod write_races;
