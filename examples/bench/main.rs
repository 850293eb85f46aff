//! The whole-service benchmark (issue 6): seeds a realistic data set through the server's own
//! storage layer, starts the release server on SQLite and then on PostgreSQL, drives it with `wrk`
//! at fixed concurrency and duration, and prints one table per database (requests/s, p50, p99,
//! errors, ratio to `/healthz` in the same run, and the server's idle and peak resident memory).
//! The tables are also written to `docs/benchmarks.md` with the machine they ran on.
//!
//! `cargo run --release --example bench -- --facilities 100000`
//! Options: `--equipment N` (10000), `--qc-tests N` (200000), `--duration S` (10), `--connections C`
//! (32), `--threads T` (2), `--repeat R` (3, the median is reported), `--databases sqlite,postgres`,
//! `--output FILE` (docs/benchmarks.md), `--keep DIR` (keep each database's data set — the SQLite
//! file under DIR/sqlite, the PostgreSQL database `registry_bench_kept` — and reuse it on the next
//! run instead of seeding again), `--only A,B` (only the scenarios whose name contains
//! A or B; `/healthz` always runs, as the ceiling), `--cache on,off` (the passes per database: the
//! server with its default read cache, and with `REGISTRY_READ_CACHE_MIB=0`). PostgreSQL is reached at `REGISTRY_BENCH_POSTGRES_URL`
//! (default `postgres://postgres@127.0.0.1:5432/postgres`); the benchmark creates and drops its
//! own database there.
//! `REGISTRY_BENCH_SERVER=PATH` runs that server binary instead of building this tree's (A/B runs
//! against an earlier build, with `--keep`).

mod seed;
mod server;
mod wrk;

use anyhow::{Context, bail};
use registry_server::auth::hash_password;
use registry_server::db::Db;
use registry_server::store::users;
use seed::{SeedPlan, Seeded, seed};
use server::{build_server, rss_kib, start_server};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wrk::{Measure, ensure_wrk, median, run_wrk};

const ADMIN_EMAIL: &str = "bench-admin@example.com";
const ADMIN_PASSWORD: &str = "bench-admin-password";
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/bench/wrk.lua");

struct Args {
    plan: SeedPlan,
    duration: u64,
    connections: u32,
    threads: u32,
    repeat: usize,
    databases: Vec<String>,
    output: PathBuf,
    /// Keep the SQLite data set in this folder and reuse it on the next run.
    keep: Option<PathBuf>,
    /// Run only the scenarios whose name contains one of these.
    only: Vec<String>,
    /// Passes per database: with the read cache on (default settings) and off.
    cache: Vec<String>,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut a = Args {
        plan: SeedPlan {
            facilities: 100_000,
            equipment: 10_000,
            qc_tests: 200_000,
            physicists: 20,
            rng_seed: 2026,
        },
        duration: 10,
        connections: 32,
        threads: 2,
        repeat: 3,
        databases: vec!["sqlite".into(), "postgres".into()],
        output: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/benchmarks.md")),
        keep: None,
        only: Vec::new(),
        cache: vec!["on".into(), "off".into()],
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--facilities" => a.plan.facilities = value()?.parse()?,
            "--equipment" => a.plan.equipment = value()?.parse()?,
            "--qc-tests" => a.plan.qc_tests = value()?.parse()?,
            "--duration" => a.duration = value()?.parse()?,
            "--connections" => a.connections = value()?.parse()?,
            "--threads" => a.threads = value()?.parse()?,
            "--repeat" => a.repeat = value()?.parse::<usize>()?.max(1),
            "--databases" => a.databases = value()?.split(',').map(str::to_owned).collect(),
            "--output" => a.output = PathBuf::from(value()?),
            "--keep" => a.keep = Some(PathBuf::from(value()?)),
            "--only" => a.only = value()?.split(',').map(str::to_owned).collect(),
            "--cache" => a.cache = value()?.split(',').map(str::to_owned).collect(),
            other => bail!(
                "unknown option {other} (see the comment at the top of examples/bench/main.rs)"
            ),
        }
    }
    Ok(a)
}

/// One scenario: a name, the wrk script's mode, and the path for plain GETs.
struct Scenario {
    name: &'static str,
    mode: &'static str,
    path: &'static str,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "GET /healthz",
        mode: "path",
        path: "/healthz",
    },
    Scenario {
        name: "mixed: 60% by id, 15% page, 15% search, 10% writes",
        mode: "mixed",
        path: "",
    },
    Scenario {
        name: "GET /api/facility/:id (random)",
        mode: "facility_by_id",
        path: "",
    },
    Scenario {
        name: "GET /api/facilities (first page, 20)",
        mode: "path",
        path: "/api/facilities",
    },
    Scenario {
        name: "GET /api/facilities (random page of 20, whole range)",
        mode: "random_page",
        path: "",
    },
    Scenario {
        name: "GET /api/facilities?q= (random term)",
        mode: "search",
        path: "",
    },
    Scenario {
        name: "GET /api/radiodiagnosisfacilities",
        mode: "path",
        path: "/api/radiodiagnosisfacilities",
    },
    Scenario {
        name: "POST /api/facility/register/",
        mode: "create",
        path: "",
    },
    Scenario {
        name: "PUT /api/facility/:id/edit",
        mode: "edit",
        path: "",
    },
    Scenario {
        name: "GET /api/tests/due?state=overdue",
        mode: "path",
        path: "/api/tests/due?state=overdue",
    },
    Scenario {
        name: "POST /api/login/ (argon2)",
        mode: "login",
        path: "",
    },
];

/// Search terms: hundreds of facility names and every city of the data set, so that (as in real
/// use) consecutive searches rarely repeat.
fn search_terms(facilities: usize, rng_seed: u64) -> Vec<String> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(rng_seed);
    let mut terms: Vec<String> = (0..400)
        .map(|_| format!("clinica {}", rng.random_range(0..facilities.max(1))))
        .collect();
    terms.extend(seed::CITIES.iter().map(|(city, _)| city.to_lowercase()));
    terms
}

/// Seeds the data set and the benchmark's Administrator; returns what was created.
async fn prepare(url: &str, plan: &SeedPlan) -> anyhow::Result<(Seeded, Duration)> {
    let started = Instant::now();
    let db = Db::connect(url).await?;
    let seeded = seed(&db, plan).await?;
    let hash = hash_password(ADMIN_PASSWORD.into())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let admin = seed::user(
        "Benchmark Administrator".into(),
        ADMIN_EMAIL.into(),
        registry_core::Role::Administrator,
        &hash,
    );
    let mut tx = db.begin().await?;
    users::save(&mut tx, &admin, true).await?;
    tx.commit().await?;
    // Fresh statistics, as autovacuum (PostgreSQL) or a periodic ANALYZE (SQLite) would give.
    db.analyze().await?;
    db.close().await;
    Ok((seeded, started.elapsed()))
}

struct Report {
    database: String,
    seeding: Duration,
    idle_mib: f64,
    peak_mib: f64,
    rows: Vec<(&'static str, Measure)>,
}

/// Seeds one database and measures it once per cache setting: one report per pass.
async fn bench_database(args: &Args, binary: &Path, database: &str) -> anyhow::Result<Vec<Report>> {
    let temp = tempfile::tempdir()?;
    let data_dir = match &args.keep {
        Some(dir) => {
            let dir = dir.join(database);
            std::fs::create_dir_all(&dir)?;
            dir
        }
        None => temp.path().to_owned(),
    };
    let pg_admin = std::env::var("REGISTRY_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let ids_file = data_dir.join("facility-ids.txt");
    let reuse = args.keep.is_some() && ids_file.exists();
    let pg_name = match args.keep {
        Some(_) => "registry_bench_kept".to_owned(),
        None => format!("registry_bench_{}", std::process::id()),
    };
    let url = match database {
        "sqlite" => format!(
            "sqlite://{}?mode=rwc",
            data_dir.join("registry.db").display()
        ),
        "postgres" => {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect(&pg_admin)
                .await
                .with_context(|| format!("no PostgreSQL at {pg_admin}"))?;
            if !reuse {
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {pg_name}"
                )))
                .execute(&mut conn)
                .await?;
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {pg_name}")))
                    .execute(&mut conn)
                    .await?;
            }
            format!(
                "{}/{pg_name}",
                pg_admin
                    .rsplit_once('/')
                    .map(|(b, _)| b)
                    .unwrap_or(&pg_admin)
            )
        }
        other => bail!("unknown database {other}: use sqlite or postgres"),
    };
    eprintln!(
        "[{database}] seeding {} facilities, {} equipment, {} QC tests…",
        args.plan.facilities, args.plan.equipment, args.plan.qc_tests
    );
    let seeding = if reuse {
        eprintln!(
            "[{database}] reusing the data set in {}",
            data_dir.display()
        );
        Duration::ZERO
    } else {
        let (seeded, seeding) = prepare(&url, &args.plan).await?;
        eprintln!("[{database}] seeded in {:.1} s", seeding.as_secs_f64());
        std::fs::write(&ids_file, seeded.facility_ids.join("\n"))?;
        seeding
    };

    std::fs::write(
        data_dir.join("search-terms.txt"),
        search_terms(args.plan.facilities, args.plan.rng_seed).join("\n"),
    )?;
    let pages = args.plan.facilities.div_ceil(20);
    let mut reports = Vec::new();
    for cache in &args.cache {
        let server = start_server(binary, &url, &data_dir, cache).await?;
        let pid = server.child.id();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let idle_kib = rss_kib(pid, "VmRSS:");
        let login: serde_json::Value = reqwest::Client::new()
            .post(format!("{}/api/login/", server.base))
            .json(&serde_json::json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        let token = login["token"].as_str().context("no token")?.to_owned();

        let mut rows = Vec::new();
        let chosen = SCENARIOS.iter().enumerate().filter(|(i, s)| {
            *i == 0 || args.only.is_empty() || args.only.iter().any(|o| s.name.contains(o.as_str()))
        });
        for (_, scenario) in chosen {
            let mut runs = Vec::new();
            for _ in 0..args.repeat {
                runs.push(run_wrk(
                    args,
                    &server.base,
                    scenario,
                    &token,
                    &ids_file,
                    pages,
                )?);
            }
            let m = median(runs);
            eprintln!(
                "[{database}, cache {cache}] {:<52} {:>9.0} req/s  p50 {:>8.2} ms  p99 {:>8.2} ms  errors {}  peak so far {:.1} MiB",
                scenario.name,
                m.rps,
                m.p50_ms,
                m.p99_ms,
                m.errors,
                rss_kib(pid, "VmHWM:") as f64 / 1024.0
            );
            rows.push((scenario.name, m));
        }
        let peak_kib = rss_kib(pid, "VmHWM:");
        drop(server);
        reports.push(Report {
            database: format!("{database}, read cache {cache}"),
            seeding,
            idle_mib: idle_kib as f64 / 1024.0,
            peak_mib: peak_kib as f64 / 1024.0,
            rows,
        });
    }
    if database == "postgres" && args.keep.is_none() {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&pg_admin).await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {pg_name}"
        )))
        .execute(&mut conn)
        .await?;
    }
    Ok(reports)
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kib| format!("{:.0} GiB", kib as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    format!(
        "{cores} cores ({cpu}), {mem} memory, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

fn table(r: &Report) -> String {
    let ceiling = r.rows.first().map(|(_, m)| m.rps).unwrap_or(1.0);
    let mut s = format!(
        "### {}\n\nSeeding: {:.1} s. Server memory: {:.1} MiB resident when idle after start, {:.1} MiB peak during the run.\n\n",
        r.database,
        r.seeding.as_secs_f64(),
        r.idle_mib,
        r.peak_mib
    );
    s.push_str("| scenario | requests/s | p50 (ms) | p99 (ms) | errors | ratio to /healthz |\n|---|---:|---:|---:|---:|---:|\n");
    for (name, m) in &r.rows {
        let _ = writeln!(
            s,
            "| {name} | {:.0} | {:.2} | {:.2} | {} | {:.3} |",
            m.rps,
            m.p50_ms,
            m.p99_ms,
            m.errors,
            m.rps / ceiling
        );
    }
    s
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    ensure_wrk()?;
    let binary = build_server()?;
    let mut reports = Vec::new();
    for database in &args.databases {
        match bench_database(&args, &binary, database).await {
            Ok(r) => reports.extend(r),
            Err(e) if database == "postgres" => eprintln!("[postgres] skipped: {e:#}"),
            Err(e) => return Err(e),
        }
    }
    let mut doc = String::from("# Benchmarks\n\n");
    let _ = writeln!(
        doc,
        "Latest run of `cargo run --release --example bench -- --facilities {}` ({} equipment, {} QC tests; wrk with {} threads and {} connections for {} s per scenario, median of {} runs; load generator and server share the machine).\n\nMachine: {}.\n",
        args.plan.facilities,
        args.plan.equipment,
        args.plan.qc_tests,
        args.threads,
        args.connections,
        args.duration,
        args.repeat,
        machine()
    );
    for r in &reports {
        doc.push_str(&table(r));
        doc.push('\n');
    }
    println!("{doc}");
    if let Some(dir) = args.output.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let notes_marker = "\n## Notes\n";
    let notes = std::fs::read_to_string(&args.output)
        .ok()
        .and_then(|old| old.find(notes_marker).map(|i| old[i..].to_owned()))
        .unwrap_or_default();
    std::fs::write(&args.output, format!("{doc}{notes}"))?;
    eprintln!("written to {}", args.output.display());
    Ok(())
}
