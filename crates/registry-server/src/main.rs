//! `registry-server`: runs the API with configuration from `REGISTRY_*` variables.

use clap::Parser;
use registry_server::{Application, Config};
use tracing_subscriber::EnvFilter;

/// The Facility Registry API server. It takes no arguments: every setting comes from a
/// `REGISTRY_*` environment variable (or the TOML file `REGISTRY_CONFIG` names).
#[derive(Parser)]
#[command(
    version,
    after_help = "Main settings (all in README.md, \"Configuration\"):
  REGISTRY_DATABASE_URL   sqlite://path?mode=rwc or postgres://user:pass@host/db
                          (default: the SQLite file registry.db in the data folder)
  REGISTRY_DATA_DIR       data folder: SQLite file, generated secrets, outbox, files (default: data)
  REGISTRY_BIND           listen address (default: 127.0.0.1:8080)
  REGISTRY_ADMIN_EMAIL, REGISTRY_ADMIN_PASSWORD
                          create the first Administrator when no user exists
  REGISTRY_SMTP_URL       smtp://host:25 (default: mail goes to <data>/outbox/*.eml)
  REGISTRY_CONFIG         a TOML file with the same settings (bind = \"...\", ...)
  REGISTRY_LOG            log filter (default: info)

The API is served under /api/, its documentation at /api/docs."
)]
struct Args {}

/// glibc raises its mmap threshold to the size of the largest freed block, so after the first
/// argon2 hash (19 MiB) every later one comes from an arena and stays resident; with one arena per
/// thread that grows to hundreds of MiB. A fixed threshold and two arenas keep the server small.
fn tame_the_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only adjusts allocator parameters; it is called before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

fn main() -> anyhow::Result<()> {
    Args::parse();
    tame_the_allocator();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

async fn run() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("REGISTRY_LOG")
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info")),
        )
        .init();
    let config = Config::from_env()?;
    let app = Application::build(config).await?;
    tracing::info!(address = %app.local_addr(), "listening; API under /api/, docs at /api/docs");
    app.run_until(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
    .await?;
    Ok(())
}
