//! Benchmark of the due-date endpoints: seeds 10,000 equipment and 200,000 QC test records into a
//! fresh SQLite file and a fresh PostgreSQL database, starts the server in-process on each, and
//! times `GET /api/tests/due?state=overdue` (first page) and `GET /api/equipment/:id/tests/due`.
//!
//! Run with `cargo run --release --example bench_due`. PostgreSQL is reached at
//! `REGISTRY_BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`); when it
//! does not answer, that half is skipped with a message.

use registry_server::config::Secret;
#[path = "bench/seed.rs"]
mod seed;

use registry_server::{Application, Config};
use seed::{SeedPlan, seed};
use serde_json::Value;
use sqlx::Connection;
use std::time::{Duration, Instant};

const PLAN: SeedPlan = SeedPlan {
    facilities: 500,
    equipment: 10_000,
    qc_tests: 200_000,
    physicists: 20,
    rng_seed: 2026,
};
const ADMIN_EMAIL: &str = "bench@example.com";
const ADMIN_PASSWORD: &str = "bench-password-1";
const LIST_REQUESTS: usize = 50;
const EQUIPMENT_REQUESTS: usize = 500;

struct Timings {
    label: &'static str,
    samples: Vec<Duration>,
}

impl Timings {
    fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.samples.clone();
        sorted.sort();
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

async fn fresh_postgres() -> Option<(String, String, String)> {
    let admin_url = std::env::var("REGISTRY_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let mut conn = match sqlx::PgConnection::connect(&admin_url).await {
        Ok(c) => c,
        Err(e) => {
            println!("PostgreSQL: skipped, nothing answers at {admin_url} ({e}).");
            return None;
        }
    };
    let name = format!("registry_bench_{}", uuid::Uuid::new_v4().simple());
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .ok()?;
    let base = admin_url.rsplit_once('/').map(|(b, _)| b.to_owned())?;
    Some((format!("{base}/{name}"), admin_url, name))
}

async fn time_requests(
    client: &reqwest::Client,
    token: &str,
    urls: impl Iterator<Item = String>,
) -> anyhow::Result<(Vec<Duration>, Value)> {
    let mut samples = Vec::new();
    let mut last = Value::Null;
    for url in urls {
        let started = Instant::now();
        let res = client.get(&url).bearer_auth(token).send().await?;
        anyhow::ensure!(res.status().is_success(), "{url}: {}", res.status());
        last = res.json().await?;
        samples.push(started.elapsed());
    }
    Ok((samples, last))
}

async fn bench(label: &str, database_url: Option<String>) -> anyhow::Result<Vec<Timings>> {
    let dir = tempfile::tempdir()?;
    let mut config = Config::new(dir.path());
    config.bind = "127.0.0.1:0".into();
    config.database_url = database_url;
    // The benchmark seeds its own test types; keep its data shape as measured before.
    config.qc_catalogue = false;
    config.admin_email = Some(ADMIN_EMAIL.into());
    config.admin_password = Some(Secret(ADMIN_PASSWORD.into()));
    config.jwt_secret = Some(Secret(
        "bench-secret-0123456789-0123456789-0123456789".into(),
    ));
    let app = Application::build(config).await?;
    let db = app.state().db.clone();
    let started = Instant::now();
    let seeded = seed(&db, &PLAN).await?;
    println!(
        "{label}: seeded {} facilities, {} equipment, {} QC tests in {:.1} s",
        PLAN.facilities,
        PLAN.equipment,
        PLAN.qc_tests,
        started.elapsed().as_secs_f64()
    );
    let base = format!("http://{}", app.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    let token = registry_client::Client::new(&base)?
        .login(ADMIN_EMAIL, ADMIN_PASSWORD)
        .await?
        .token;

    let overdue_url = format!("{base}/api/tests/due?state=overdue");
    time_requests(&client, &token, std::iter::repeat_n(overdue_url.clone(), 3)).await?;
    let (list_samples, page) = time_requests(
        &client,
        &token,
        std::iter::repeat_n(overdue_url, LIST_REQUESTS),
    )
    .await?;
    println!(
        "{label}: {} overdue (equipment, test type) pairs in all",
        page["paging"]["total"]
    );
    let equipment_urls = (0..EQUIPMENT_REQUESTS).map(|i| {
        let id = &seeded.equipment_ids[(i * 7919) % seeded.equipment_ids.len()];
        format!("{base}/api/equipment/{id}/tests/due")
    });
    let (equipment_samples, _) = time_requests(&client, &token, equipment_urls).await?;

    let _ = stop.send(());
    server.await??;
    db.close().await;
    Ok(vec![
        Timings {
            label: "GET /api/tests/due?state=overdue (first page)",
            samples: list_samples,
        },
        Timings {
            label: "GET /api/equipment/:id/tests/due",
            samples: equipment_samples,
        },
    ])
}

fn report(database: &str, timings: &[Timings]) {
    for t in timings {
        println!(
            "{database:<10} {:<48} n={:<4} median {:>10}   p99 {:>10}",
            t.label,
            t.samples.len(),
            ms(t.percentile(50.0)),
            ms(t.percentile(99.0))
        );
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let sqlite = bench("SQLite", None).await?;
    let postgres = match fresh_postgres().await {
        Some((url, admin_url, name)) => {
            let timings = bench("PostgreSQL", Some(url)).await;
            if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
                    .execute(&mut conn)
                    .await;
            }
            Some(timings?)
        }
        None => None,
    };
    println!();
    report("SQLite", &sqlite);
    if let Some(postgres) = postgres {
        report("PostgreSQL", &postgres);
    }
    Ok(())
}
