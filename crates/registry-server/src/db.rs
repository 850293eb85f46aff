//! The database handle: SQLite (default) or PostgreSQL, chosen from the URL scheme, each through
//! its own sqlx driver with its own schema and migrations (`migrations/sqlite`,
//! `migrations/postgres`). A [`Conn`] is one connection of either kind; the storage interface
//! ([`crate::store`]) takes it and hands it to the backend that owns the SQL.
//!
//! On SQLite the hot reads (facilities, the token's user) run on rusqlite reader threads
//! ([`SqliteReaders`]); a read [`Conn`] takes a sqlx connection only for the other reads.
//!
//! Every write goes through a [`Tx`]; its commit advances the handle's *generations*
//! ([`crate::changes`]) for what it changed, which the read cache ([`crate::cache`]) compares
//! against. On PostgreSQL the commit also sends a notification, so that other instances on the
//! same database advance theirs.

use crate::changes::{Changed, Generations, ReadOf};
use crate::pg_changes;
use crate::pg_reads::{self, PING_AFTER_IDLE};
use crate::sqlite_readers::SqliteReaders;
use anyhow::Context;
use chrono::Utc;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Connection as _, PgConnection, Postgres, Sqlite, SqliteConnection, Transaction};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
enum Pools {
    /// Query-only readers (sqlx's, and rusqlite's threads for the hot reads), and a single
    /// writer connection so that writes queue in-process instead of failing with "database is
    /// locked".
    Sqlite {
        readers: SqlitePool,
        threads: SqliteReaders,
        writer: SqlitePool,
        /// Held while the database is open: no second process opens it (`lock_database`).
        _lock: Arc<std::fs::File>,
    },
    /// Transactions on sqlx's pool; reads on [`pg_reads`]'s, which takes connections back
    /// without a round trip.
    Postgres { pool: PgPool, reads: pg_reads::Pool },
}

#[derive(Clone)]
pub struct Db {
    pools: Pools,
    pub backend: Backend,
    /// Advanced after every committed write (of this process, and on PostgreSQL of every
    /// process, through `LISTEN`).
    generations: Arc<Generations>,
    /// The PostgreSQL listener task, stopped when the last handle is dropped.
    listener: Arc<pg_changes::Listener>,
    /// Names this handle in its change notifications, so that its listener skips its own.
    instance: Arc<str>,
}

/// How long a request waits for a PostgreSQL connection before it is answered 503.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// Turns off SQLite's memory statistics before the library starts: kept on (SQLite's default),
/// every allocation of every connection takes one process-wide mutex, and with the reader
/// connections working at once a fifth of a page's CPU went to waiting on and waking it
/// (docs/benchmarks.md). Nothing reads the statistics. Too late once SQLite has started (a second
/// database in the same process): SQLite refuses and keeps them on, which is only slower.
fn without_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_config` is called with an option that takes one `int`, before any
        // connection of this process is opened (the first SQLite open goes through here); a
        // call after SQLite started returns SQLITE_MISUSE and changes nothing.
        unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            );
        }
    });
}

/// One database connection: a pooled read connection or a write transaction, of either backend.
/// Every storage function takes `&mut Conn`; a [`Tx`] dereferences to one.
pub struct Conn(Inner);

enum Inner {
    /// A SQLite read: the reader threads, and a connection of sqlx's reader pool taken when a
    /// read that does not run on the threads first needs it.
    SqliteRead {
        threads: SqliteReaders,
        pool: SqlitePool,
        conn: Option<PoolConnection<Sqlite>>,
    },
    SqliteTx(Transaction<'static, Sqlite>),
    PostgresRead(pg_reads::Object),
    PostgresTx(Transaction<'static, Postgres>),
}

/// The connection of one backend, for the storage interface to hand to that backend's queries.
pub enum BackendConn<'a> {
    Sqlite(&'a mut SqliteConnection),
    Postgres(&'a mut PgConnection),
}

impl Conn {
    pub async fn backend(&mut self) -> Result<BackendConn<'_>, sqlx::Error> {
        Ok(match &mut self.0 {
            Inner::SqliteRead { pool, conn, .. } => {
                let conn = match conn {
                    Some(c) => c,
                    None => conn.insert(pool.acquire().await?),
                };
                BackendConn::Sqlite(conn)
            }
            Inner::SqliteTx(t) => BackendConn::Sqlite(t),
            Inner::PostgresRead(c) => BackendConn::Postgres(&mut c.conn),
            Inner::PostgresTx(t) => BackendConn::Postgres(t),
        })
    }

    /// The search trigram counts, when this is a PostgreSQL read.
    pub fn pg_trigrams(&self) -> Option<Arc<crate::pg_trigrams::TrigramSample>> {
        match &self.0 {
            Inner::PostgresRead(c) => Some(c.trigrams.clone()),
            _ => None,
        }
    }

    /// The reader threads, when this is a SQLite read (not a transaction: a write transaction
    /// reads what it wrote, on its own connection).
    pub fn sqlite_readers(&self) -> Option<&SqliteReaders> {
        match &self.0 {
            Inner::SqliteRead { threads, .. } => Some(threads),
            _ => None,
        }
    }
}

/// The transaction that holds every write of one request. It dereferences to its [`Conn`];
/// [`Tx::commit`] publishes the change. Dropped without a commit, it rolls back.
pub struct Tx {
    conn: Conn,
    generations: Arc<Generations>,
    instance: Arc<str>,
    changed: Changed,
}

impl Tx {
    /// Narrows what the commit tells the read cache: by default a write may have changed
    /// anything; a handler that knows exactly what it wrote says so here.
    pub fn announce(&mut self, changed: Changed) {
        self.changed = changed;
    }

    pub async fn commit(self) -> Result<(), sqlx::Error> {
        let committed = match self.conn.0 {
            Inner::SqliteTx(t) => t.commit().await,
            Inner::PostgresTx(mut t) => {
                // Delivered to every listener when (and only if) the transaction commits; the
                // payload names this instance, whose listener skips it (counted below already),
                // and what changed.
                sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(pg_changes::CHANNEL)
                    .bind(format!("{}\n{}", self.instance, self.changed.encode()))
                    .execute(&mut *t)
                    .await?;
                t.commit().await
            }
            Inner::SqliteRead { .. } | Inner::PostgresRead(_) => {
                unreachable!("a Tx holds a transaction")
            }
        };
        // After the commit (and even after a failed one, which may have been applied before the
        // connection broke): a reader that saw the old generation either read the old data (and
        // its cached answer is now stale and ignored) or the new data.
        self.generations.advance(&self.changed);
        committed
    }
}

impl Deref for Tx {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        &self.conn
    }
}

impl DerefMut for Tx {
    fn deref_mut(&mut self) -> &mut Conn {
        &mut self.conn
    }
}

impl Db {
    pub async fn connect(url: &str) -> anyhow::Result<Db> {
        if url.starts_with("sqlite:") {
            Self::connect_sqlite(url).await
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Self::connect_postgres(url).await
        } else {
            anyhow::bail!("REGISTRY_DATABASE_URL must start with sqlite: or postgres:");
        }
    }

    /// WAL (readers never block the writer), foreign keys, and a busy timeout for the moments
    /// another process holds the lock. Reader connections are query-only, so a write can only
    /// happen in a [`Tx`] (which publishes it).
    async fn connect_sqlite(url: &str) -> anyhow::Result<Db> {
        without_memory_statistics();
        let options = SqliteConnectOptions::from_str(url)
            .context("invalid database URL")?
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            .pragma("cache_size", "-4000");
        let lock = lock_database(options.get_filename())?;
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await
            .context("cannot open the SQLite database")?;
        SQLITE_MIGRATIONS
            .run(&writer)
            .await
            .context("database migrations failed")?;
        // Two reader threads per core: more only add page caches (4 MiB each) and thread
        // switches on a small machine (docs/benchmarks.md); and one connection per core (the
        // runtime's workers) for the short reads run in place.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let readers = cores * 2;
        let threads = SqliteReaders::open(options.get_filename(), readers, cores)
            .context("cannot open the SQLite reader connections")?;
        let readers = SqlitePoolOptions::new()
            .max_connections(readers as u32)
            .connect_with(options.pragma("query_only", "ON"))
            .await?;
        Ok(Db {
            pools: Pools::Sqlite {
                readers,
                threads,
                writer,
                _lock: Arc::new(lock),
            },
            backend: Backend::Sqlite,
            generations: Arc::default(),
            listener: Arc::default(),
            instance: new_id().into(),
        })
    }

    async fn connect_postgres(url: &str) -> anyhow::Result<Db> {
        let options = PgConnectOptions::from_str(url).context("invalid database URL")?;
        // The pool of transactions (every write); reads have their own (`pg_reads`).
        let pool = PgPoolOptions::new()
            .max_connections(16)
            // A database that cannot be reached is answered with 503 after this long
            // (connecting is retried until then), not after a client's patience runs out.
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // sqlx pings a connection when it takes it back (a round trip on every release) and,
            // by default, again when it hands it out. The second ping is kept only for a
            // connection that has sat idle, which a restarted or unreachable server may have
            // dropped meanwhile; one in steady use was alive when it came back, and a request
            // that finds it broken after all is answered 503 (docs/decisions.md, "Database
            // outage") while the release ping closes it (docs/benchmarks.md, fourteenth round).
            .test_before_acquire(false)
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= PING_AFTER_IDLE {
                        conn.ping().await?;
                    }
                    Ok(true)
                })
            })
            .connect_with(options.clone())
            .await;
        let pool = match pool {
            Ok(pool) => pool,
            Err(e) => return Err(postgres_unreachable(&options, e).await),
        };
        // As many read connections again: a read waits for a read, not behind writes.
        let reads = pg_reads::pool(options, 16, ACQUIRE_TIMEOUT);
        POSTGRES_MIGRATIONS
            .run(&pool)
            .await
            .context("database migrations failed")?;
        let generations = Arc::<Generations>::default();
        let instance: Arc<str> = new_id().into();
        let listener = pg_changes::listen(url, generations.clone(), instance.clone()).await?;
        Ok(Db {
            pools: Pools::Postgres { pool, reads },
            backend: Backend::Postgres,
            generations,
            listener: Arc::new(pg_changes::Listener(Some(listener))),
            instance,
        })
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
        let inner = match &self.pools {
            Pools::Sqlite { writer, .. } => Inner::SqliteTx(writer.begin().await?),
            Pools::Postgres { pool, .. } => Inner::PostgresTx(pool.begin().await?),
        };
        Ok(Tx {
            conn: Conn(inner),
            generations: self.generations.clone(),
            instance: self.instance.clone(),
            changed: Changed::Everything,
        })
    }

    /// Has SQLite's reader connections give back their page caches' memory (an idle server's).
    pub fn release_memory(&self) {
        if let Pools::Sqlite { threads, .. } = &self.pools {
            threads.release_memory();
        }
    }

    /// The stamp of an answer read from `read` ([`Generations::stamp`]); take it *before*
    /// reading the data whose answer is to be cached.
    pub fn stamp(&self, read: ReadOf) -> u64 {
        self.generations.stamp(read)
    }

    /// A pooled read connection (query-only on SQLite).
    pub async fn read(&self) -> Result<Conn, sqlx::Error> {
        Ok(Conn(match &self.pools {
            Pools::Sqlite {
                readers, threads, ..
            } => Inner::SqliteRead {
                threads: threads.clone(),
                pool: readers.clone(),
                conn: None,
            },
            Pools::Postgres { reads, .. } => Inner::PostgresRead(pg_reads::get(reads).await?),
        }))
    }

    /// Fresh planner statistics after a bulk load: `ANALYZE` on SQLite, `VACUUM ANALYZE` on
    /// PostgreSQL (which also builds the visibility map index-only scans need).
    pub async fn analyze(&self) -> Result<(), sqlx::Error> {
        match &self.pools {
            Pools::Sqlite { writer, .. } => {
                sqlx::raw_sql("ANALYZE").execute(writer).await.map(drop)
            }
            Pools::Postgres { pool, .. } => sqlx::raw_sql("VACUUM ANALYZE")
                .execute(pool)
                .await
                .map(drop),
        }
    }

    pub async fn close(&self) {
        self.listener.stop();
        match &self.pools {
            Pools::Sqlite {
                readers, writer, ..
            } => {
                readers.close().await;
                writer.close().await;
            }
            Pools::Postgres { pool, reads } => {
                reads.close();
                pool.close().await
            }
        }
    }
}

/// A SQLite database belongs to one process (its writes queue on one in-process connection, and
/// its read cache is cleared in-process): a second server on the same file would answer stale
/// reads and fail writes with "database is locked". So the first holds an exclusive lock on
/// `<file>.lock` while it runs, and a second one refuses to start.
fn lock_database(db: &Path) -> anyhow::Result<std::fs::File> {
    let mut path = db.as_os_str().to_owned();
    path.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", Path::new(&path).display()))?;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor that `file` owns and keeps open.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        anyhow::ensure!(
            locked == 0,
            "{} is in use by another registry-server: a SQLite database belongs to one process \
             (run several instances on PostgreSQL)",
            db.display()
        );
    }
    Ok(file)
}

/// Why PostgreSQL could not be reached at start, naming the server: the pool's own error is only
/// that it waited (for a refused connection, say), so one connection is tried to tell the cause.
async fn postgres_unreachable(
    options: &PgConnectOptions,
    pool_error: sqlx::Error,
) -> anyhow::Error {
    use sqlx::ConnectOptions;
    let cause = match options.connect().await {
        Ok(_) => anyhow::Error::from(pool_error),
        Err(e) => anyhow::Error::from(e),
    };
    cause.context(format!(
        "cannot connect to PostgreSQL at {}:{} (REGISTRY_DATABASE_URL)",
        options.get_host(),
        options.get_port(),
    ))
}

/// A new record id (UUID v7: unique and ordered by creation).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

pub use registry_core::values::timestamp;

/// Now, in the stored form ([`timestamp`]).
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

pub use registry_core::text::{name_key, search_key};

/// A `LIKE` pattern matching `s` anywhere in a search text, with `%`, `_` and `\` escaped (use
/// `ESCAPE '\'`).
pub fn contains_pattern(s: &str) -> String {
    like_anywhere(&search_key(s.trim()))
}

/// A `LIKE` pattern matching the `key` anywhere, escaped as [`contains_pattern`].
pub fn like_anywhere(key: &str) -> String {
    let mut p = String::from("%");
    for c in key.chars() {
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

#[cfg(test)]
#[path = "db_upgrade_tests.rs"]
mod upgrade_tests;
