//! End-to-end tests of the `registry` CLI: a real server on SQLite (or, with
//! `REGISTRY_TEST_CLI_DATABASE=postgres`, PostgreSQL) in this process, and the real `registry`
//! binary run as a subprocess with a private config folder.

#[path = "../common/mod.rs"]
mod common;

mod accounts;
mod cancel;
mod documents;
mod edit_wizards;
mod equipment;
mod exit_codes;
mod facilities;
mod facility_refusals;
mod flag_values;
mod harness;
mod history;
mod import;
mod import_checks;
mod links;
mod material;
mod messages;
mod qc_calc;
mod scripting;
mod session;
mod users_groups;
mod versions;
mod wizard;
