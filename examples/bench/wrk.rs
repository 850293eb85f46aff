//! Driving `wrk` (installed when missing) and reading its report.

use crate::{ADMIN_EMAIL, ADMIN_PASSWORD, Args, SCRIPT, Scenario};
use anyhow::Context;
use std::path::Path;
use std::process::Command;

#[derive(Clone, Copy, Debug, Default)]
pub struct Measure {
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub errors: u64,
}

fn duration_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, factor) = if let Some(v) = s.strip_suffix("us") {
        (v, 0.001)
    } else if let Some(v) = s.strip_suffix("ms") {
        (v, 1.0)
    } else if let Some(v) = s.strip_suffix('s') {
        (v, 1000.0)
    } else {
        return None;
    };
    num.trim().parse::<f64>().ok().map(|n| n * factor)
}

/// Reads wrk's `--latency` report.
fn parse_wrk(out: &str) -> anyhow::Result<Measure> {
    let mut m = Measure::default();
    for line in out.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["50%", v] => m.p50_ms = duration_ms(v).context("p50")?,
            ["99%", v] => m.p99_ms = duration_ms(v).context("p99")?,
            ["Requests/sec:", v] => m.rps = v.parse()?,
            ["Non-2xx", "or", "3xx", "responses:", n] => m.errors += n.parse::<u64>()?,
            ["Socket", "errors:", rest @ ..] => {
                m.errors += rest
                    .iter()
                    .filter_map(|w| w.trim_end_matches(',').parse::<u64>().ok())
                    .sum::<u64>();
            }
            _ => {}
        }
    }
    anyhow::ensure!(m.rps > 0.0, "wrk reported no requests:\n{out}");
    Ok(m)
}

pub fn median(mut v: Vec<Measure>) -> Measure {
    v.sort_by(|a, b| a.rps.total_cmp(&b.rps));
    let mid = v[v.len() / 2];
    Measure {
        errors: v.iter().map(|m| m.errors).sum(),
        ..mid
    }
}

pub fn ensure_wrk() -> anyhow::Result<()> {
    if Command::new("wrk").arg("--version").output().is_ok() {
        return Ok(());
    }
    eprintln!("wrk is missing: installing it from Debian's packages (apt-get install wrk)");
    let ok = Command::new("sh")
        .args([
            "-c",
            "apt-get install -y -qq wrk || (apt-get update -qq && apt-get install -y -qq wrk)",
        ])
        .status()?
        .success();
    anyhow::ensure!(
        ok,
        "could not install wrk; install it (Debian: apt-get install wrk) and run again"
    );
    Ok(())
}

pub fn run_wrk(
    args: &Args,
    base: &str,
    scenario: &Scenario,
    token: &str,
    ids_file: &Path,
    pages: usize,
) -> anyhow::Result<Measure> {
    let login = serde_json::json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).to_string();
    let out = Command::new("wrk")
        .args([
            "-t",
            &args.threads.to_string(),
            "-c",
            &args.connections.to_string(),
            "-d",
            &format!("{}s", args.duration),
        ])
        .args([
            "--latency",
            "--timeout",
            "10s",
            "-s",
            SCRIPT,
            base,
            "--",
            scenario.mode,
        ])
        .arg(ids_file)
        .env("REGISTRY_BENCH_TOKEN", token)
        .env("REGISTRY_BENCH_PATH", scenario.path)
        .env("REGISTRY_BENCH_PAGES", pages.to_string())
        .env(
            "REGISTRY_BENCH_TERMS",
            ids_file.with_file_name("search-terms.txt"),
        )
        .env("REGISTRY_BENCH_LOGIN", login)
        .output()
        .context("cannot run wrk")?;
    anyhow::ensure!(
        out.status.success(),
        "wrk failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_wrk(&String::from_utf8_lossy(&out.stdout))
}
