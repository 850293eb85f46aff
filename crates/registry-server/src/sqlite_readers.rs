//! SQLite's reader threads: a few read-only rusqlite connections, each on a thread of its own,
//! taking reads from one queue. The hot reads on SQLite (`store::sqlite_reads`) run here rather
//! than through sqlx, whose SQLite driver hands every statement and row between its worker thread
//! and the task: measured 1.5–1.6× as fast for the facility by id (docs/benchmarks.md, "SQLite
//! drivers"). Writes and every other read stay on sqlx.

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;
use tokio::sync::oneshot;

/// One read, run on a reader thread with its connection.
type Job = Box<dyn FnOnce(&Connection) + Send>;

/// The queue of the reader threads, and the connections for short reads run in place. Cloning it
/// is cheap; the threads end when the last clone is dropped.
#[derive(Clone)]
pub struct SqliteReaders {
    jobs: mpsc::Sender<Job>,
    /// How many reader threads take jobs.
    threads: usize,
    /// Idle connections for [`SqliteReaders::run_short`], one per core.
    idle: Arc<Mutex<Vec<Connection>>>,
    /// What the reads learn of this database's data to plan their queries.
    pub statistics: Arc<Statistics>,
}

/// Planner statistics kept per database: how many facilities hold each trigram of the search
/// index, with when the counts were started (`store::sqlite_reads::rare_trigrams`).
#[derive(Default)]
pub struct Statistics {
    pub trigrams: Mutex<Option<(std::time::Instant, std::collections::HashMap<String, i64>)>>,
}

/// Prepared statements kept per connection: the distinct texts of the reads routed here (a page
/// size's views, each filter combination of the list).
const STATEMENT_CACHE: usize = 64;

impl SqliteReaders {
    /// Opens `threads` read-only connections to the database file at `path` (after migrations,
    /// with the settings of sqlx's readers: WAL, `query_only`, a 4 MiB page cache) and starts a
    /// thread for each.
    pub fn open(path: &Path, threads: usize, in_place: usize) -> anyhow::Result<SqliteReaders> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..threads {
            let conn = reader(path)?;
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("sqlite-reader-{n}"))
                .spawn(move || {
                    loop {
                        // The lock is held only while waiting for the next job.
                        let next = queue.lock().map(|q| q.recv());
                        let Ok(Ok(job)) = next else { break };
                        // A panicking read answers its request with an error (its reply is
                        // dropped) and leaves the thread serving the others.
                        let _ =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&conn)));
                    }
                })?;
        }
        let idle = (0..in_place)
            .map(|_| reader(path))
            .collect::<Result<_, _>>()?;
        Ok(SqliteReaders {
            jobs,
            threads,
            idle: Arc::new(Mutex::new(idle)),
            statistics: Arc::default(),
        })
    }

    /// Runs a short `read` (a few index look-ups: a facility by id, a page by kept ranks, the
    /// token's user) on the calling thread when a connection is idle, or else on the reader
    /// threads. In place it costs no hand-over between threads, which was a fifth of a page's
    /// and most of a by-id read's time (docs/benchmarks.md); longer reads (searches and filtered
    /// lists) keep to the threads so that they never hold up the runtime's workers.
    pub async fn run_short<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, sqlx::Error> + Send + 'static,
    ) -> Result<T, sqlx::Error> {
        let Some(conn) = self.idle.lock().ok().and_then(|mut idle| idle.pop()) else {
            return self.run(read).await;
        };
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&conn)));
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
        answer.map_err(|_| sqlx::Error::WorkerCrashed)?
    }

    /// Has every connection give back the memory of its page cache (an idle server's): those
    /// idle here at once, and each thread's as it takes its turn (each waits for the others, so
    /// that every thread takes one).
    pub fn release_memory(&self) {
        if let Ok(idle) = self.idle.lock() {
            for conn in idle.iter() {
                let _ = conn.execute_batch("PRAGMA shrink_memory");
            }
        }
        let all = Arc::new(std::sync::Barrier::new(self.threads));
        for _ in 0..self.threads {
            let all = all.clone();
            let _ = self.jobs.send(Box::new(move |conn| {
                let _ = conn.execute_batch("PRAGMA shrink_memory");
                all.wait();
            }));
        }
    }

    /// Runs `read` on the next free reader thread and waits for its answer.
    pub async fn run<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, sqlx::Error> + Send + 'static,
    ) -> Result<T, sqlx::Error> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Box::new(move |conn| {
                // The request may have been dropped meanwhile: nobody to answer then.
                let _ = reply.send(read(conn));
            }))
            .map_err(|_| sqlx::Error::PoolClosed)?;
        answer.await.map_err(|_| sqlx::Error::WorkerCrashed)?
    }
}

/// A read-only connection with the settings of sqlx's readers.
fn reader(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.execute_batch(
        "PRAGMA foreign_keys = ON; PRAGMA cache_size = -4000; PRAGMA query_only = ON;",
    )?;
    // The plans never depend on bound values. Without this, SQLite looks at the bound pattern of
    // every `x LIKE $n` while planning and prepares the statement again each time another
    // pattern is bound: every search was parsed and planned anew, 30 % of a search's CPU at
    // 100,000 facilities (docs/benchmarks.md, "twelfth round").
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(conn)
}

/// A rusqlite error, as the storage interface's error type.
pub fn driver_error(e: rusqlite::Error) -> sqlx::Error {
    match e {
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::InvalidColumnName(_)
        | rusqlite::Error::IntegralValueOutOfRange(..) => sqlx::Error::Decode(Box::new(e)),
        e => sqlx::Error::Protocol(format!("SQLite reader: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failed_or_panicking_read_answers_an_error_and_the_thread_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("readers.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7);")
            .unwrap();
        // One thread: every read below is served by the same one.
        let readers = SqliteReaders::open(&path, 1, 0).unwrap();
        let read = |c: &Connection| {
            c.query_row("SELECT x FROM t", [], |r| r.get::<_, i64>(0))
                .map_err(driver_error)
        };
        assert_eq!(readers.run(read).await.unwrap(), 7);
        // Query-only: a write is refused.
        let write = readers
            .run(|c| {
                c.execute("INSERT INTO t VALUES (8)", [])
                    .map_err(driver_error)
            })
            .await;
        assert!(matches!(write, Err(sqlx::Error::Protocol(_))), "{write:?}");
        let wrong_type = readers
            .run(|c| {
                c.query_row("SELECT 'seven'", [], |r| r.get::<_, i64>(0))
                    .map_err(driver_error)
            })
            .await;
        assert!(
            matches!(wrong_type, Err(sqlx::Error::Decode(_))),
            "{wrong_type:?}"
        );
        let panicked = readers
            .run(|_| -> Result<(), sqlx::Error> { panic!("a read that panics") })
            .await;
        assert!(
            matches!(panicked, Err(sqlx::Error::WorkerCrashed)),
            "{panicked:?}"
        );
        assert_eq!(readers.run(read).await.unwrap(), 7);
    }
}
