//! SQLite drivers compared on the facility-by-id read (the storage issue): sqlx's native SQLite
//! driver against rusqlite, on an existing seeded database, without HTTP around them.
//!
//! Every request is the server's own by-id query — the facility row and its children as JSON,
//! the SQL text of `store::facilities::views_query(Backend::Sqlite, …)` — for a random live id, with
//! the row decoded into Strings, by column name, as the server reads it. C tasks on the tokio
//! runtime keep C requests in flight for a fixed duration, against K reader connections, through:
//! - `sqlx`: a `SqlitePool` of K connections opened as the server opens its readers (WAL,
//!   `query_only`, 4 MiB page cache, sqlx's default ping on acquire), read-only; sqlx runs each
//!   connection on its own thread.
//! - `sqlx-noping`: the same without the ping on acquire (`test_before_acquire(false)`).
//! - `rusqlite-threads`: the server's SQLite reader threads (`registry_server::sqlite_readers`):
//!   K rusqlite connections, each on its own thread, taking reads from one shared queue.
//! - `rusqlite-blocking`: K rusqlite connections in a pool; a request takes one and runs the query
//!   in `spawn_blocking`.
//!
//! Both drivers run the one SQLite library of the build (libsqlite3-sys, bundled), with prepared
//! statements kept per connection (sqlx's statement cache, rusqlite's `prepare_cached`). Before
//! measuring, the rows of the first ids are read with both drivers and compared. Each
//! measurement starts with a warm-up that is not counted; the runs of one repeat go one after the
//! other, and the median of the repeats (by requests/s) is reported.
//!
//! `cargo run --release --example sqlite_drivers -- --db PATH/registry.db`
//! Options: `--readers 2,4` (K), `--concurrency 32` (C), `--duration 10` (seconds measured per
//! run), `--warmup 2` (seconds), `--repeat 3`, `--ids 10000` (random live ids to read; 0: all),
//! `--drivers sqlx,sqlx-noping,rusqlite-threads,rusqlite-blocking`.

use anyhow::{Context, bail};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use registry_server::db::Backend;
use registry_server::sqlite_readers::{SqliteReaders, driver_error};
use registry_server::store::facilities::views_query;
use rusqlite::OpenFlags;
use sqlx::Row;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

struct Args {
    db: PathBuf,
    readers: Vec<usize>,
    concurrency: usize,
    duration: Duration,
    warmup: Duration,
    repeat: usize,
    ids: usize,
    drivers: Vec<String>,
}

const DRIVERS: &[&str] = &[
    "sqlx",
    "sqlx-noping",
    "rusqlite-threads",
    "rusqlite-blocking",
];

fn parse_args() -> anyhow::Result<Args> {
    let mut a = Args {
        db: PathBuf::new(),
        readers: vec![2, 4],
        concurrency: 32,
        duration: Duration::from_secs(10),
        warmup: Duration::from_secs(2),
        repeat: 3,
        ids: 10_000,
        drivers: DRIVERS.iter().map(|d| d.to_string()).collect(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--db" => a.db = PathBuf::from(value()?),
            "--readers" => {
                a.readers = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--concurrency" => a.concurrency = value()?.parse()?,
            "--duration" => a.duration = Duration::from_secs_f64(value()?.parse()?),
            "--warmup" => a.warmup = Duration::from_secs_f64(value()?.parse()?),
            "--repeat" => a.repeat = value()?.parse::<usize>()?.max(1),
            "--ids" => a.ids = value()?.parse()?,
            "--drivers" => a.drivers = value()?.split(',').map(str::to_owned).collect(),
            other => bail!("unknown option {other}"),
        }
    }
    if a.db.as_os_str().is_empty() {
        bail!("usage: sqlite_drivers --db PATH/registry.db [options]");
    }
    if let Some(d) = a.drivers.iter().find(|d| !DRIVERS.contains(&d.as_str())) {
        bail!("unknown driver {d} (known: {})", DRIVERS.join(", "));
    }
    if a.readers.contains(&0) || a.concurrency == 0 {
        bail!("--readers and --concurrency must be at least 1");
    }
    Ok(a)
}

/// One row of the by-id query, every column decoded as the server reads it (text, or the
/// version as an integer); the JSON columns stay text.
#[derive(Debug, PartialEq)]
struct FacilityRow {
    id: String,
    name: String,
    company_name: String,
    cnpj: String,
    telephone: String,
    department: String,
    group_id: Option<String>,
    group_name: Option<String>,
    cnen_registry: Option<String>,
    version: i64,
    created_at: String,
    updated_at: String,
    address_json: Option<String>,
    users_json: Option<String>,
    isotopes_json: Option<String>,
    practices_json: Option<String>,
    image_kinds: Option<String>,
}

/// A [`FacilityRow`] read column by column with `row.getter("column")?` (either driver's).
macro_rules! facility_row {
    ($row:ident . $get:ident) => {
        FacilityRow {
            id: $row.$get("id")?,
            name: $row.$get("name")?,
            company_name: $row.$get("company_name")?,
            cnpj: $row.$get("cnpj")?,
            telephone: $row.$get("telephone")?,
            department: $row.$get("department")?,
            group_id: $row.$get("group_id")?,
            group_name: $row.$get("group_name")?,
            cnen_registry: $row.$get("cnen_registry")?,
            version: $row.$get("version")?,
            created_at: $row.$get("created_at")?,
            updated_at: $row.$get("updated_at")?,
            address_json: $row.$get("address_json")?,
            users_json: $row.$get("users_json")?,
            isotopes_json: $row.$get("isotopes_json")?,
            practices_json: $row.$get("practices_json")?,
            image_kinds: $row.$get("image_kinds")?,
        }
    };
}

impl FacilityRow {
    /// Bytes decoded (the same for both drivers on the same ids: a check that both did
    /// the same work).
    fn decoded_bytes(&self) -> usize {
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        [
            &self.id,
            &self.name,
            &self.company_name,
            &self.cnpj,
            &self.telephone,
            &self.department,
            &self.created_at,
            &self.updated_at,
        ]
        .iter()
        .map(|s| s.len())
        .sum::<usize>()
            + [
                &self.group_id,
                &self.group_name,
                &self.cnen_registry,
                &self.address_json,
                &self.users_json,
                &self.isotopes_json,
                &self.practices_json,
                &self.image_kinds,
            ]
            .into_iter()
            .map(opt)
            .sum::<usize>()
            + std::mem::size_of_val(&self.version)
    }

    fn from_sqlx(r: &sqlx::sqlite::SqliteRow) -> Result<Self, sqlx::Error> {
        Ok(facility_row!(r.try_get))
    }

    fn from_rusqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(facility_row!(r.get))
    }
}

/// A read-only sqlx pool of `readers` connections with the settings of the server's readers
/// (`Db::connect_sqlite`); `ping`: sqlx's default test of each connection on acquire.
async fn sqlx_pool(db: &std::path::Path, readers: usize, ping: bool) -> anyhow::Result<SqlitePool> {
    let options = SqliteConnectOptions::new()
        .filename(db)
        .read_only(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10))
        .pragma("cache_size", "-4000")
        .pragma("query_only", "ON");
    Ok(SqlitePoolOptions::new()
        .max_connections(readers as u32)
        .min_connections(readers as u32)
        .test_before_acquire(ping)
        .connect_with(options)
        .await?)
}

/// A read-only rusqlite connection with the same settings as [`sqlx_pool`]'s.
fn rusqlite_conn(db: &std::path::Path) -> rusqlite::Result<rusqlite::Connection> {
    let conn = rusqlite::Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
         PRAGMA cache_size = -4000; PRAGMA query_only = ON;",
    )?;
    Ok(conn)
}

fn rusqlite_by_id(
    conn: &rusqlite::Connection,
    sql: &str,
    id: &str,
) -> rusqlite::Result<Vec<FacilityRow>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map([id], FacilityRow::from_rusqlite)?;
    rows.collect()
}

/// The by-id query's text, made once for the whole program (a `&'static str`, as sqlx takes a
/// query it may keep in its statement cache without copying it).
type Sql = &'static str;

/// The K reader connections of one run.
enum Readers {
    Sqlx(SqlitePool),
    Threads(SqliteReaders),
    Blocking {
        free: Arc<Mutex<Vec<rusqlite::Connection>>>,
        permits: Semaphore,
    },
}

impl Readers {
    async fn open(driver: &str, db: &std::path::Path, k: usize) -> anyhow::Result<Self> {
        Ok(match driver {
            "sqlx" | "sqlx-noping" => Readers::Sqlx(sqlx_pool(db, k, driver == "sqlx").await?),
            "rusqlite-threads" => Readers::Threads(SqliteReaders::open(db, k, 0)?),
            "rusqlite-blocking" => Readers::Blocking {
                free: Arc::new(Mutex::new(
                    (0..k)
                        .map(|_| rusqlite_conn(db))
                        .collect::<Result<_, _>>()?,
                )),
                permits: Semaphore::new(k),
            },
            other => bail!("unknown driver {other}"),
        })
    }

    async fn by_id(&self, sql: Sql, id: &str) -> anyhow::Result<Vec<FacilityRow>> {
        Ok(match self {
            Readers::Sqlx(pool) => {
                let mut conn = pool.acquire().await?;
                let rows = sqlx::query(sql).bind(id).fetch_all(&mut *conn).await?;
                rows.iter()
                    .map(FacilityRow::from_sqlx)
                    .collect::<Result<_, _>>()?
            }
            Readers::Threads(threads) => {
                let id = id.to_owned();
                threads
                    .run(move |conn| rusqlite_by_id(conn, sql, &id).map_err(driver_error))
                    .await?
            }
            Readers::Blocking { free, permits } => {
                let _permit = permits.acquire().await?;
                let conn = free
                    .lock()
                    .expect("connection pool")
                    .pop()
                    .context("a permit without a free connection")?;
                let id = id.to_owned();
                let (conn, rows) = tokio::task::spawn_blocking(move || {
                    let rows = rusqlite_by_id(&conn, sql, &id);
                    (conn, rows)
                })
                .await?;
                free.lock().expect("connection pool").push(conn);
                rows?
            }
        })
    }
}

/// What one run measured.
struct Run {
    requests: usize,
    elapsed: Duration,
    /// Sorted request latencies, in microseconds.
    latencies: Vec<u32>,
    decoded_bytes: usize,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile_ms(&self, p: usize) -> f64 {
        let i = (self.latencies.len() * p / 100).min(self.latencies.len().saturating_sub(1));
        self.latencies
            .get(i)
            .map_or(0.0, |&us| f64::from(us) / 1000.0)
    }
}

/// `concurrency` tasks read random ids of `ids` for `duration`, each with its own seeded random
/// stream (the same streams for every driver).
async fn drive(
    readers: &Arc<Readers>,
    sql: Sql,
    ids: &Arc<Vec<String>>,
    concurrency: usize,
    duration: Duration,
) -> anyhow::Result<Run> {
    let start = Instant::now();
    let end = start + duration;
    let tasks: Vec<_> = (0..concurrency)
        .map(|task| {
            let (readers, ids) = (readers.clone(), ids.clone());
            tokio::spawn(async move {
                let mut rng = StdRng::seed_from_u64(task as u64);
                let (mut latencies, mut decoded_bytes) = (Vec::new(), 0);
                while Instant::now() < end {
                    let id = &ids[rng.random_range(0..ids.len())];
                    let sent = Instant::now();
                    let rows = readers.by_id(sql, id).await?;
                    if rows.len() != 1 {
                        bail!("facility {id}: {} rows", rows.len());
                    }
                    decoded_bytes += rows[0].decoded_bytes();
                    let micros = sent.elapsed().as_micros();
                    latencies.push(u32::try_from(micros).unwrap_or(u32::MAX));
                }
                Ok((latencies, decoded_bytes))
            })
        })
        .collect();
    let (mut latencies, mut decoded_bytes) = (Vec::new(), 0);
    for task in tasks {
        let (l, d) = task.await??;
        latencies.extend(l);
        decoded_bytes += d;
    }
    latencies.sort_unstable();
    Ok(Run {
        requests: latencies.len(),
        elapsed: start.elapsed(),
        latencies,
        decoded_bytes,
    })
}

/// Reads the first ids with every driver and checks that they decode the same rows.
async fn check_same_rows(args: &Args, sql: Sql, ids: &[String]) -> anyhow::Result<()> {
    let mut expected: Option<Vec<Vec<FacilityRow>>> = None;
    for driver in &args.drivers {
        let readers = Readers::open(driver, &args.db, 1).await?;
        let mut rows = Vec::new();
        for id in ids.iter().take(200) {
            rows.push(readers.by_id(sql, id).await?);
        }
        match &expected {
            None => expected = Some(rows),
            Some(e) if *e == rows => {}
            Some(_) => bail!("{driver} decodes other rows than {}", args.drivers[0]),
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    if !args.db.exists() {
        bail!("no database at {}", args.db.display());
    }
    // The by-id query, and each id as the query binds it (a one-id list).
    let by_id = |id: String| views_query(Backend::Sqlite, &[id]);
    let sql: Sql = Box::leak(by_id(String::new()).0.into_boxed_str());

    let mut ids: Vec<String> = {
        let conn = rusqlite_conn(&args.db)?;
        let mut stmt = conn.prepare("SELECT id FROM facilities WHERE archived_at IS NULL")?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?
    };
    let live = ids.len();
    if live == 0 {
        bail!("no live facility in {}", args.db.display());
    }
    ids.shuffle(&mut StdRng::seed_from_u64(2026));
    if args.ids > 0 {
        ids.truncate(args.ids);
    }
    let ids: Vec<String> = ids.into_iter().flat_map(|id| by_id(id).1).collect();
    check_same_rows(&args, sql, &ids).await?;
    let ids = Arc::new(ids);

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{} live facilities, {} random ids; {cores} cores; C = {}; {} s measured after {} s warm-up; \
         median of {} (by requests/s)",
        live,
        ids.len(),
        args.concurrency,
        args.duration.as_secs_f64(),
        args.warmup.as_secs_f64(),
        args.repeat
    );
    // results[k][driver]: the runs of every repeat.
    let mut results: Vec<Vec<Vec<Run>>> = args
        .readers
        .iter()
        .map(|_| args.drivers.iter().map(|_| Vec::new()).collect())
        .collect();
    for repeat in 0..args.repeat {
        for (ki, &k) in args.readers.iter().enumerate() {
            for (di, driver) in args.drivers.iter().enumerate() {
                let readers = Arc::new(Readers::open(driver, &args.db, k).await?);
                drive(&readers, sql, &ids, args.concurrency, args.warmup).await?;
                let run = drive(&readers, sql, &ids, args.concurrency, args.duration).await?;
                eprintln!(
                    "repeat {} K={k} {driver}: {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms",
                    repeat + 1,
                    run.per_second(),
                    run.percentile_ms(50),
                    run.percentile_ms(99)
                );
                results[ki][di].push(run);
                if let Readers::Sqlx(pool) = &*readers {
                    pool.close().await;
                }
            }
        }
    }

    println!();
    println!("| driver | K readers | requests/s | p50 (ms) | p99 (ms) | bytes decoded / request |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (ki, &k) in args.readers.iter().enumerate() {
        for (di, driver) in args.drivers.iter().enumerate() {
            let runs = &mut results[ki][di];
            runs.sort_by(|a, b| a.per_second().total_cmp(&b.per_second()));
            let run = &runs[runs.len() / 2];
            println!(
                "| {driver} | {k} | {:.0} | {:.2} | {:.2} | {:.0} |",
                run.per_second(),
                run.percentile_ms(50),
                run.percentile_ms(99),
                run.decoded_bytes as f64 / run.requests.max(1) as f64
            );
        }
    }
    Ok(())
}
