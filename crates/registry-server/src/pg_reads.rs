//! The PostgreSQL connections that reads take ([`crate::db::Db::read`]): a pool that hands a
//! connection back without a round trip.
//!
//! sqlx's pool pings every connection it takes back (sqlx 0.9, unconditionally): one round trip,
//! and a wake-up of a PostgreSQL backend, for every request, besides its queries. A read
//! connection needs no such check: it never holds a transaction (writes go through
//! [`crate::db::Tx`], on sqlx's pool), and sqlx's PostgreSQL connection finishes whatever an
//! abandoned query left on it (unsent bytes, unread rows) before its next query, so a request
//! cancelled mid-read leaves nothing for the next one to see. What the ping found, a connection
//! PostgreSQL dropped, is checked here when it can have happened:
//! - after the connection sat idle for [`PING_AFTER_IDLE`] (a restart or an idle timeout), and
//! - after any request of this process met a connection failure ([`connection_failed`]): every
//!   read connection is pinged once before its next use, and replaced if dead.
//!
//! docs/benchmarks.md, eighteenth round, has the measurements.

use crate::pg_trigrams::TrigramSample;
use deadpool::managed::{self, Metrics, RecycleError, RecycleResult};
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection as _, PgConnection};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a pooled connection may sit idle before it is pinged again on acquire.
pub const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// Counts the connection failures met in this process (see [`connection_failed`]).
static FAILURES: AtomicU64 = AtomicU64::new(0);

/// Says that a request met a connection failure (PostgreSQL unreachable, a connection broken or
/// closed by the server): every read connection is pinged before its next use.
pub fn connection_failed() {
    FAILURES.fetch_add(1, Ordering::Relaxed);
}

/// A pooled read connection, with the failure count when it was last known alive.
pub struct ReadConn {
    pub conn: PgConnection,
    checked_at: u64,
    /// The database's search trigram counts (shared by the pool's connections).
    pub trigrams: Arc<TrigramSample>,
}

pub struct Manager {
    options: PgConnectOptions,
    trigrams: Arc<TrigramSample>,
}

impl managed::Manager for Manager {
    type Type = ReadConn;
    type Error = sqlx::Error;

    async fn create(&self) -> Result<ReadConn, sqlx::Error> {
        let checked_at = FAILURES.load(Ordering::Relaxed);
        let conn = PgConnection::connect_with(&self.options).await?;
        Ok(ReadConn {
            conn,
            checked_at,
            trigrams: self.trigrams.clone(),
        })
    }

    async fn recycle(&self, read: &mut ReadConn, metrics: &Metrics) -> RecycleResult<sqlx::Error> {
        let failures = FAILURES.load(Ordering::Relaxed);
        if failures != read.checked_at || metrics.last_used() >= PING_AFTER_IDLE {
            // A dead connection is dropped here and a new one made in its place.
            read.conn.ping().await.map_err(RecycleError::Backend)?;
            read.checked_at = failures;
        }
        Ok(())
    }
}

pub type Pool = managed::Pool<Manager>;
pub type Object = managed::Object<Manager>;

/// A pool of at most `size` read connections, which waits at most `wait` for one (then
/// [`sqlx::Error::PoolTimedOut`], answered 503 like any outage).
pub fn pool(options: PgConnectOptions, size: usize, wait: Duration) -> Pool {
    Pool::builder(Manager {
        options,
        trigrams: Arc::default(),
    })
    .max_size(size)
    .wait_timeout(Some(wait))
    .create_timeout(Some(wait))
    .recycle_timeout(Some(wait))
    .runtime(deadpool::Runtime::Tokio1)
    .build()
    .expect("a pool with a runtime for its timeouts")
}

/// A read connection from `pool`, or the error a request answers with.
pub async fn get(pool: &Pool) -> Result<Object, sqlx::Error> {
    pool.get().await.map_err(|e| match e {
        managed::PoolError::Backend(e) => e,
        managed::PoolError::Closed => sqlx::Error::PoolClosed,
        // Waiting, connecting or checking took longer than `wait`.
        managed::PoolError::Timeout(_) => sqlx::Error::PoolTimedOut,
        managed::PoolError::NoRuntimeSpecified | managed::PoolError::PostCreateHook(_) => {
            sqlx::Error::PoolTimedOut
        }
    })
}
