//! Queries, one module per resource. Every function takes a connection, so the same code runs
//! inside a request's write transaction or on a pooled read connection.

pub mod audit;
pub mod claims;
pub mod documents;
pub mod equipment;
pub mod equipment_types;
pub mod facilities;
pub mod groups;
pub mod material;
pub mod qc_tests;
pub mod users;

use sqlx::Row;
use sqlx::any::AnyRow;

/// An optional text column.
pub(crate) fn opt(row: &AnyRow, col: &str) -> Result<Option<String>, sqlx::Error> {
    row.try_get::<Option<String>, _>(col)
}
