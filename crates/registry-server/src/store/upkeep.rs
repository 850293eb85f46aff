//! What the server does to its database at start, after the migrations: the data upgrades they
//! left pending (`sql/upgrades.rs`) and, on PostgreSQL, the optional search index.

use crate::db::{BackendConn, Db};
use anyhow::Context;

/// Runs the data upgrades that migrations left pending, in one transaction, then makes sure of
/// PostgreSQL's search index. Called once at start, after `Db::connect` ran the migrations.
pub(crate) async fn run(db: &Db) -> anyhow::Result<()> {
    let mut tx = db.begin().await?;
    let upgraded = match tx.backend().await? {
        BackendConn::Sqlite(c) => super::sqlite::upgrades::run_pending(c).await,
        BackendConn::Postgres(c) => super::postgres::upgrades::run_pending(c).await,
    };
    upgraded.context("database upgrade failed")?;
    tx.commit().await?;
    let mut conn = db.read().await?;
    if let BackendConn::Postgres(c) = conn.backend().await? {
        ensure_search_index(c).await;
    }
    Ok(())
}

/// The facility search (`q`, a substring of name, company name, cnpj and cities) uses a trigram
/// index on PostgreSQL (pg_trgm, an extension, so it is created here rather than in the
/// migrations) over the live facilities' search texts (`facility_search`, migration 0011; the
/// index it replaces, on `facilities`, is dropped). It is optional: without the extension,
/// search still works, reading the table. Its pending list is off (`fastupdate = off`): each
/// write updates the index at once, so searches do not slow down as writes pile up in the
/// pending list between vacuums.
async fn ensure_search_index(conn: &mut sqlx::PgConnection) {
    const CREATE: &str = "CREATE EXTENSION IF NOT EXISTS pg_trgm; \
         CREATE INDEX IF NOT EXISTS facility_search_trgm ON facility_search USING gin (search_text gin_trgm_ops) WITH (fastupdate = off); \
         DROP INDEX IF EXISTS facilities_search_trgm;";
    // `IF NOT EXISTS` is not safe against another instance creating the same thing at the same
    // moment (a unique violation in the catalogue): then it exists, which a second try sees.
    let mut created = sqlx::raw_sql(CREATE).execute(&mut *conn).await;
    if created.is_err() {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        created = sqlx::raw_sql(CREATE).execute(&mut *conn).await;
    }
    if let Err(e) = created {
        tracing::warn!(error = %e, "no pg_trgm index for facility search; searches will read the whole table");
    }
}
