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
  REGISTRY_LOG            log filter (default: info,sqlx=warn,tower_http=info)

The API is served under /api/, its documentation at /api/docs."
)]
struct Args {}

/// glibc raises its mmap threshold to the size of the largest freed block, so after the first
/// argon2 hash (19 MiB) every later one comes from an arena and stays resident; with one arena per
/// thread that grows to hundreds of MiB. A fixed threshold sends such blocks back to the system
/// when freed, so arenas hold only small blocks; eight of them (not two) keep the runtime's
/// workers and the SQLite reader threads from queueing on one arena's lock (−7 % CPU per page
/// read, +1 MiB resident: docs/benchmarks.md, ninth round).
fn tame_the_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only adjusts allocator parameters; it is called before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, 8);
    }
}

/// What the server writes — the SQLite database, kept secrets, the outbox's e-mails with their
/// recovery codes, uploaded files — is readable by its owner only, whatever the umask it was
/// started with.
fn private_files() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: umask only sets this process's file-creation mask.
    unsafe {
        libc::umask(0o077);
    }
}

fn main() -> anyhow::Result<()> {
    Args::parse();
    tame_the_allocator();
    private_files();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

async fn run() -> anyhow::Result<()> {
    let config = Config::from_env()?;
    let filter = match &config.log {
        Some(text) => EnvFilter::try_new(text)
            .map_err(|e| anyhow::anyhow!("REGISTRY_LOG is not a log filter ({e}): {text:?}"))?,
        None => EnvFilter::new("info,sqlx=warn,tower_http=info"),
    };
    // Colours only on a terminal: a journal or a container's log keeps plain text.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(terminal)
        .init();
    let environment = config.environment;
    let app = Application::build(config).await?;
    tracing::info!(address = %app.local_addr(), ?environment, "listening; API under /api/, docs at /api/docs");
    app.run_until(async {
        stop_signal().await;
        tracing::info!("shutting down: open requests finish, new connections are refused");
    })
    .await?;
    Ok(())
}

/// Ctrl-C, or SIGTERM (what a service manager or an orchestrator sends to stop or roll).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
                return;
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for SIGTERM"),
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
