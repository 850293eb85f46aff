//! The storage interface: one module per resource, each a set of functions in domain types that
//! take a [`Conn`](crate::db::Conn) — a pooled read connection or a request's write transaction —
//! and run the query of the backend behind it.
//!
//! Each backend (`sqlite`, `postgres`) owns its driver, schema and migrations
//! (`migrations/<backend>/`) and its dialect module. The queries both backends run alike are
//! written once, in `sql/<resource>.rs`, and compiled into each backend with its own driver's
//! types; whatever differs between the two (date arithmetic, row locks, search) is a function of
//! the backend's `dialect` module. See docs/decisions.md, "Storage".

/// Defines storage functions: each takes a [`Conn`](crate::db::Conn) and runs the same-named
/// query of its backend.
macro_rules! backend_fns {
    ($module:ident; $($(#[$meta:meta])* pub async fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        $(
            $(#[$meta])*
            pub async fn $name(conn: &mut $crate::db::Conn, $($arg: $ty),*) -> $ret {
                match conn.backend().await? {
                    $crate::db::BackendConn::Sqlite(c) => $crate::store::sqlite::$module::$name(c, $($arg),*).await,
                    $crate::db::BackendConn::Postgres(c) => $crate::store::postgres::$module::$name(c, $($arg),*).await,
                }
            }
        )*
    };
}

/// The query modules (`sql/*.rs`) a backend compiles with its own driver types; each backend
/// invokes it once, beside its `Connection`, `Db`, `DbRow` and `dialect`.
macro_rules! shared_queries {
    () => {
        #[path = "sql/audit.rs"]
        pub(crate) mod audit;
        #[path = "sql/catalogue.rs"]
        pub(crate) mod catalogue;
        #[path = "sql/claims.rs"]
        pub(crate) mod claims;
        #[path = "sql/document_emails.rs"]
        pub(crate) mod document_emails;
        #[path = "sql/document_reads.rs"]
        pub(crate) mod document_reads;
        #[path = "sql/documents.rs"]
        pub(crate) mod documents;
        #[path = "sql/equipment.rs"]
        pub(crate) mod equipment;
        #[path = "sql/equipment_types.rs"]
        pub(crate) mod equipment_types;
        #[path = "sql/facilities.rs"]
        pub(crate) mod facilities;
        #[path = "sql/facility_ranks.rs"]
        pub(crate) mod facility_ranks;
        #[path = "sql/facility_reads.rs"]
        pub(crate) mod facility_reads;
        #[path = "sql/groups.rs"]
        pub(crate) mod groups;
        #[path = "sql/material.rs"]
        pub(crate) mod material;
        #[path = "sql/notices.rs"]
        pub(crate) mod notices;
        #[path = "sql/qc_tests.rs"]
        pub(crate) mod qc_tests;
        #[path = "sql/row.rs"]
        pub(crate) mod row;
        #[path = "sql/upgrades.rs"]
        pub(crate) mod upgrades;
        #[path = "sql/users.rs"]
        pub(crate) mod users;
        #[path = "sql/waste.rs"]
        pub(crate) mod waste;
        pub(crate) use row::opt;
    };
}

pub mod audit;
pub mod catalogue;
pub mod claims;
pub mod documents;
pub mod equipment;
pub mod equipment_types;
pub mod facilities;
pub mod groups;
pub mod material;
pub mod model;
pub use model::Saved;
pub mod qc_tests;
mod sqlite_reads;
pub(crate) mod upkeep;
pub mod users;

// Each backend compiles the shared queries of `sql/` with its own driver's types.
#[allow(clippy::duplicate_mod)]
mod postgres;
#[allow(clippy::duplicate_mod)]
mod sqlite;

/// Whether the database answers.
pub async fn ping(conn: &mut crate::db::Conn) -> Result<(), sqlx::Error> {
    match conn.backend().await? {
        crate::db::BackendConn::Sqlite(c) => sqlx::query("SELECT 1").execute(c).await.map(drop),
        crate::db::BackendConn::Postgres(c) => sqlx::query("SELECT 1").execute(c).await.map(drop),
    }
}

/// Writers that wait for each other, one kind at a time, until their transactions end
/// (`dialect::serialise`): where a check reads many rows that the concurrent writers change
/// different ones of, so no one row lock covers it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Writers {
    /// Writers of facility ranks and of `facility_counts` (`sql/facility_ranks.rs`).
    Ranks,
    /// Whoever may take a role from its holder while checking that some active holder stays
    /// (the last active Administrator).
    RoleHolders,
}

impl Writers {
    /// The key of the PostgreSQL advisory lock (arbitrary, distinct, fixed).
    pub(crate) fn key(self) -> i64 {
        match self {
            Writers::Ranks => 7306110372957181001,
            Writers::RoleHolders => 7306110372957181002,
        }
    }
}

/// Locks the record `id` of `table` until the transaction ends, so that a read → check → write
/// of it cannot interleave with another request's (two edits with the same `If-Match`, two
/// signatures of one document). PostgreSQL takes a row lock (`FOR UPDATE`); on SQLite every
/// write transaction runs on the one writer connection, one after another, already. Call it
/// first in the transaction, before reading what the checks look at.
pub async fn lock_row(
    conn: &mut crate::db::Conn,
    table: &'static str,
    id: &str,
) -> Result<(), sqlx::Error> {
    row_lock(conn, table, id, false).await
}

/// Keeps the record `id` of `table` from changing until the transaction ends while others may
/// keep it too (PostgreSQL `FOR KEY SHARE`: it waits for, and then holds off, a writer that
/// locks the row with [`lock_row`]): for a write whose checks read another record, such as a
/// QC test's test type, whose kind may not change once tests of it are recorded.
pub async fn share_row(
    conn: &mut crate::db::Conn,
    table: &'static str,
    id: &str,
) -> Result<(), sqlx::Error> {
    row_lock(conn, table, id, true).await
}

async fn row_lock(
    conn: &mut crate::db::Conn,
    table: &'static str,
    id: &str,
    shared: bool,
) -> Result<(), sqlx::Error> {
    match conn.backend().await? {
        crate::db::BackendConn::Sqlite(c) => sqlite::dialect::lock_row(c, table, id, shared).await,
        crate::db::BackendConn::Postgres(c) => {
            postgres::dialect::lock_row(c, table, id, shared).await
        }
    }
}
pub mod types;
