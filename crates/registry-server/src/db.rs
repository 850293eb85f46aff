//! The database handle: one `sqlx::Any` pool over SQLite (default) or PostgreSQL, chosen from the
//! URL scheme, with portable SQL (`$n` parameters, text timestamps) and migrations run at start.
//!
//! Every write goes through a [`Tx`]; its commit advances the handle's *generation*, which the
//! read cache ([`crate::cache`]) compares against. On PostgreSQL the commit also sends a
//! notification, so that other instances on the same database advance theirs.

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyConnection, AnyPool, Transaction};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Advanced after every committed write (of this process, and on PostgreSQL of every
    /// process, through `LISTEN`).
    generation: Arc<AtomicU64>,
    /// The PostgreSQL listener task, stopped when the last handle is dropped.
    listener: Arc<Listener>,
}

/// How long a request waits for a PostgreSQL connection before it is answered 503.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// PostgreSQL channel on which every committed write is announced.
const CHANGES_CHANNEL: &str = "registry_changes";

#[derive(Default)]
struct Listener(Option<tokio::task::AbortHandle>);

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(task) = &self.0 {
            task.abort();
        }
    }
}

/// The transaction that holds every write of one request. It dereferences to the connection;
/// [`Tx::commit`] publishes the change. Dropped without a commit, it rolls back.
pub struct Tx {
    inner: Transaction<'static, sqlx::Any>,
    generation: Arc<AtomicU64>,
    backend: Backend,
}

impl Tx {
    /// Locks the record `id` of `table` until this transaction ends, so that a read → check →
    /// write of it cannot interleave with another request's (two edits with the same `If-Match`,
    /// two signatures of one document). PostgreSQL takes a row lock (`FOR UPDATE`); on SQLite
    /// every write transaction runs on the one writer connection, one after another, already.
    /// Call it first, before reading what the checks look at.
    pub async fn lock(&mut self, table: &'static str, id: &str) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "SELECT 1 FROM {table} WHERE id = $1 FOR UPDATE"
            )))
            .bind(id)
            .fetch_optional(&mut *self.inner)
            .await?;
        }
        Ok(())
    }

    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            // Delivered to every listener when (and only if) the transaction commits.
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!("NOTIFY {CHANGES_CHANNEL}")))
                .execute(&mut *self.inner)
                .await?;
        }
        let committed = self.inner.commit().await;
        // After the commit (and even after a failed one, which may have been applied before the
        // connection broke): a reader that saw the old generation either read the old data (and
        // its cached answer is now stale and ignored) or the new data.
        self.generation.fetch_add(1, Ordering::AcqRel);
        committed
    }
}

impl Deref for Tx {
    type Target = AnyConnection;
    fn deref(&self) -> &AnyConnection {
        &self.inner
    }
}

impl DerefMut for Tx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.inner
    }
}

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
                    .after_connect(|conn, _| sqlite_pragmas(conn, false))
                    .connect_with(options.clone())
                    .await
                    .context("cannot open the SQLite database")?;
                // Two readers per core: more only add page caches (4 MiB each) and thread
                // switches on a small machine (docs/benchmarks.md).
                let readers = std::thread::available_parallelism().map_or(2, |n| n.get()) * 2;
                let pool = AnyPoolOptions::new()
                    .max_connections(readers as u32)
                    .after_connect(|conn, _| sqlite_pragmas(conn, true))
                    .connect_with(options)
                    .await?;
                Db {
                    pool,
                    writer,
                    backend,
                    generation: Arc::default(),
                    listener: Arc::default(),
                }
            }
            Backend::Postgres => {
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    // A database that cannot be reached is answered with 503 after this long
                    // (connecting is retried until then), not after a client's patience runs out.
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect_with(options)
                    .await
                    .context("cannot connect to PostgreSQL")?;
                let generation = Arc::<AtomicU64>::default();
                let listener = listen_for_changes(url, generation.clone()).await?;
                Db {
                    writer: pool.clone(),
                    pool,
                    backend,
                    generation,
                    listener: Arc::new(Listener(Some(listener))),
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
    /// still works, reading the table. Its pending list is off (`fastupdate = off`): each write
    /// updates the index at once, so searches do not slow down as writes pile up in the pending
    /// list between vacuums. (An FTS5 trigram index on SQLite was measured slower for
    /// the broad terms people type, and it slows every write: see docs/benchmarks.md.)
    async fn ensure_search_index(&self) -> anyhow::Result<()> {
        if self.backend == Backend::Postgres {
            let created = sqlx::raw_sql(
                "CREATE EXTENSION IF NOT EXISTS pg_trgm; \
                 CREATE INDEX IF NOT EXISTS facilities_search_trgm ON facilities USING gin (search_text gin_trgm_ops) WITH (fastupdate = off); \
                 ALTER INDEX facilities_search_trgm SET (fastupdate = off);",
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
        Ok(Tx {
            inner: self.writer.begin().await?,
            generation: self.generation.clone(),
            backend: self.backend,
        })
    }

    /// The number of committed writes seen so far; read it *before* reading the data whose
    /// answer is to be cached.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    pub async fn read(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Any>, sqlx::Error> {
        self.pool.acquire().await
    }

    pub async fn close(&self) {
        if let Some(task) = &self.listener.0 {
            task.abort();
        }
        self.pool.close().await;
        self.writer.close().await;
    }
}

/// Listens on PostgreSQL for the commits of every instance. A lost connection is re-established;
/// as notifications may have been missed meanwhile, the generation advances then too.
async fn listen_for_changes(
    url: &str,
    generation: Arc<AtomicU64>,
) -> anyhow::Result<tokio::task::AbortHandle> {
    let mut listener = sqlx::postgres::PgListener::connect(url)
        .await
        .context("cannot connect to PostgreSQL to listen for changes")?;
    listener.listen(CHANGES_CHANNEL).await?;
    let task = tokio::spawn(async move {
        loop {
            let received = listener.try_recv().await;
            generation.fetch_add(1, Ordering::AcqRel);
            if let Err(e) = received {
                tracing::warn!(error = %e, "lost the PostgreSQL change notifications; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    });
    Ok(task.abort_handle())
}

/// Per-connection SQLite settings: WAL (readers never block the writer), foreign keys, and a
/// busy timeout for the moments another process holds the lock. Reader connections are
/// query-only, so a write can only happen in a [`Tx`] (which publishes it).
fn sqlite_pragmas(
    conn: &mut AnyConnection,
    reader: bool,
) -> futures::future::BoxFuture<'_, Result<(), sqlx::Error>> {
    Box::pin(async move {
        sqlx::raw_sql(if reader {
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
             PRAGMA busy_timeout = 10000; PRAGMA cache_size = -4000; PRAGMA query_only = ON;"
        } else {
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
             PRAGMA busy_timeout = 10000; PRAGMA cache_size = -4000;"
        })
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
