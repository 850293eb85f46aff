//! The database handle: one `sqlx::Any` pool over SQLite (default) or PostgreSQL, chosen from the
//! URL scheme, with portable SQL (`$n` parameters, text timestamps) and migrations run at start.

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyConnection, AnyPool, Transaction};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
pub struct Db {
    /// Readers (and writers on PostgreSQL).
    pub pool: AnyPool,
    /// On SQLite a single connection, so writes queue in-process instead of failing with
    /// "database is locked"; on PostgreSQL the same pool as `pool`.
    writer: AnyPool,
    pub backend: Backend,
}

pub type Tx = Transaction<'static, sqlx::Any>;

impl Db {
    pub async fn connect(url: &str) -> anyhow::Result<Db> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            anyhow::bail!("REGISTRY_DATABASE_URL must start with sqlite: or postgres:");
        };
        let options = AnyConnectOptions::from_str(url).context("invalid database URL")?;
        let db = match backend {
            Backend::Sqlite => {
                let writer = AnyPoolOptions::new()
                    .max_connections(1)
                    .after_connect(sqlite_pragmas)
                    .connect_with(options.clone())
                    .await
                    .context("cannot open the SQLite database")?;
                let pool = AnyPoolOptions::new()
                    .max_connections(8)
                    .after_connect(sqlite_pragmas)
                    .connect_with(options)
                    .await?;
                Db {
                    pool,
                    writer,
                    backend,
                }
            }
            Backend::Postgres => {
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(options)
                    .await
                    .context("cannot connect to PostgreSQL")?;
                Db {
                    writer: pool.clone(),
                    pool,
                    backend,
                }
            }
        };
        MIGRATOR
            .run(&db.writer)
            .await
            .context("database migrations failed")?;
        db.ensure_search_index().await?;
        Ok(db)
    }

    /// The facility search (`q`, a substring of name, company name, cnpj and cities) can use a
    /// trigram index on PostgreSQL (pg_trgm, a backend-specific kind of index, so it is created
    /// here rather than in the shared migrations). It is optional: without the extension, search
    /// still works, reading the table. (An FTS5 trigram index on SQLite was measured slower for
    /// the broad terms people type, and it slows every write: see docs/benchmarks.md.)
    async fn ensure_search_index(&self) -> anyhow::Result<()> {
        if self.backend == Backend::Postgres {
            let created = sqlx::raw_sql(
                "CREATE EXTENSION IF NOT EXISTS pg_trgm; \
                 CREATE INDEX IF NOT EXISTS facilities_search_trgm ON facilities USING gin (search_text gin_trgm_ops);",
            )
            .execute(&self.writer)
            .await;
            if let Err(e) = created {
                tracing::warn!(error = %e, "no pg_trgm index for facility search; searches will read the whole table");
            }
        }
        Ok(())
    }

    /// The default database: `registry.db` in the data folder.
    pub fn default_url(data_dir: &Path) -> String {
        format!(
            "sqlite://{}?mode=rwc",
            data_dir.join("registry.db").display()
        )
    }

    /// Starts the transaction that holds every write of one request.
    pub async fn begin(&self) -> Result<Tx, sqlx::Error> {
        self.writer.begin().await
    }

    pub async fn read(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Any>, sqlx::Error> {
        self.pool.acquire().await
    }

    pub async fn close(&self) {
        self.pool.close().await;
        self.writer.close().await;
    }
}

/// Per-connection SQLite settings: WAL (readers never block the writer), foreign keys, and a
/// busy timeout for the moments another process holds the lock.
fn sqlite_pragmas<'c>(
    conn: &'c mut AnyConnection,
    _meta: sqlx::pool::PoolConnectionMetadata,
) -> futures::future::BoxFuture<'c, Result<(), sqlx::Error>> {
    Box::pin(async move {
        sqlx::raw_sql(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
             PRAGMA busy_timeout = 10000; PRAGMA cache_size = -4000;",
        )
        .execute(conn)
        .await
        .map(|_| ())
    })
}

/// A new record id (UUID v7: unique and ordered by creation).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A timestamp in the stored form: RFC 3339 UTC with microseconds.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub fn now() -> String {
    timestamp(Utc::now())
}

/// `$start, $start+1, …` for `n` values of an `IN (…)` list.
pub fn placeholders(start: usize, n: usize) -> String {
    (start..start + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lower-case, accent-free text for searching (`São Paulo` matches `sao paulo`).
pub fn search_key(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            c => c,
        })
        .collect()
}

/// A `LIKE` pattern matching `s` anywhere, with `%`, `_` and `\` escaped (use `ESCAPE '\'`).
pub fn contains_pattern(s: &str) -> String {
    let mut p = String::from("%");
    for c in search_key(s.trim()).chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// Whether an error is a unique-constraint violation.
pub fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}
