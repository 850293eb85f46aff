//! The release server under test: built once, started per pass on a free port, its memory read
//! from `/proc`.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn build_server() -> anyhow::Result<PathBuf> {
    // A given binary, for an A/B run against an earlier build on the same kept data set.
    if let Some(path) = std::env::var_os("REGISTRY_BENCH_SERVER") {
        return Ok(PathBuf::from(path));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let ok = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "registry-server",
            "--bin",
            "registry-server",
        ])
        .status()?
        .success();
    anyhow::ensure!(ok, "building the release server failed");
    Ok(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/release/registry-server"
    )))
}

pub fn rss_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn start_server(
    binary: &Path,
    url: &str,
    data_dir: &Path,
    cache: &str,
) -> anyhow::Result<Server> {
    let port = free_port()?;
    let mut command = Command::new(binary);
    if cache == "off" {
        command.env("REGISTRY_READ_CACHE_MIB", "0");
    }
    let child = command
        .env("REGISTRY_DATABASE_URL", url)
        .env("REGISTRY_BIND", format!("127.0.0.1:{port}"))
        .env("REGISTRY_DATA_DIR", data_dir)
        .env(
            "REGISTRY_JWT_SECRET",
            "benchmark-secret-benchmark-secret-0123456789",
        )
        .env("REGISTRY_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .context("cannot start the server")?;
    let server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if let Ok(res) = reqwest::get(format!("{}/readyz", server.base)).await
            && res.status().is_success()
        {
            return Ok(server);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("the server did not become ready")
}
