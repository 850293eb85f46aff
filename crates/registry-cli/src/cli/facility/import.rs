//! `registry facility import`: bulk registration from CSV or JSON with bounded concurrency, a dry
//! run, a summary and a failures file; a re-run skips what the server reports as already registered.

use super::fields;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format};
use clap::Args;
use futures::StreamExt;
use registry_client::ClientError;
use registry_client::facility_csv::{payload_from_row, strip_cnpj_punctuation};
use registry_core::api::Facility;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A .csv file (columns: see `registry facility import --help` / docs/cli.md) or a .json array
    /// of facility payloads.
    file: PathBuf,
    /// Check every row and tell what would happen, without registering anything.
    #[arg(long)]
    dry_run: bool,
    /// Registrations in flight at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: u16,
    /// Where to write the rows that failed (default: <file>.failures.csv).
    #[arg(long)]
    failures: Option<PathBuf>,
}

/// One input record: where it came from, and its payload or why it cannot be sent.
struct Item {
    row: usize,
    name: String,
    cnpj: String,
    payload: Result<Value, String>,
}

#[derive(Debug, Serialize)]
struct Failure {
    row: usize,
    name: String,
    cnpj: String,
    reason: String,
}

#[derive(Debug, Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Summary {
    total: usize,
    created: usize,
    already_registered: usize,
    failed: usize,
    dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    failures_file: Option<String>,
    failures: Vec<Failure>,
}

fn read_items(path: &Path) -> Result<Vec<Item>, Fail> {
    let unreadable =
        |e: &dyn std::fmt::Display| Fail::Usage(format!("cannot read {}: {e}", path.display()));
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let payloads: Vec<(usize, Result<Value, String>)> = if is_json {
        let text = std::fs::read_to_string(path).map_err(|e| unreadable(&e))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| unreadable(&e))?;
        let Value::Array(items) = value else {
            return Err(Fail::Usage(format!(
                "{} must hold a JSON array of facility payloads",
                path.display()
            )));
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i + 1, Ok(v)))
            .collect()
    } else {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| unreadable(&e))?;
        let headers = reader.headers().map_err(|e| unreadable(&e))?.clone();
        let mut out = Vec::new();
        for (i, record) in reader.records().enumerate() {
            // Row numbers as a spreadsheet shows them: the header is row 1.
            let row = i + 2;
            out.push((
                row,
                match record {
                    Ok(r) => {
                        let map: HashMap<String, String> = headers
                            .iter()
                            .zip(r.iter())
                            .map(|(h, v)| (h.to_owned(), v.to_owned()))
                            .collect();
                        payload_from_row(&map)
                    }
                    Err(e) => Err(format!("unreadable CSV row: {e}")),
                },
            ));
        }
        out
    };
    Ok(payloads
        .into_iter()
        .map(|(row, payload)| {
            let text = |k: &str| match &payload {
                Ok(p) => p[k].as_str().unwrap_or_default().to_owned(),
                Err(_) => String::new(),
            };
            let (name, raw_cnpj) = (text("name"), text("cnpj"));
            let cnpj = strip_cnpj_punctuation(&raw_cnpj).unwrap_or(raw_cnpj);
            let payload = payload.and_then(|mut p| {
                if let Some(obj) = p.as_object_mut()
                    && obj.contains_key("cnpj")
                {
                    obj.insert("cnpj".into(), json!(cnpj));
                }
                fields::local_field_errors(&p, registry_core::facility::Mode::Create)
                    .map(|()| p)
                    .map_err(|errors| {
                        errors
                            .iter()
                            .map(|e| format!("{} {}", e.field, e.message))
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
            });
            Item {
                row,
                name,
                cnpj,
                payload,
            }
        })
        .collect())
}

fn reason(e: &ClientError) -> String {
    let fields = e.field_errors();
    if fields.is_empty() {
        e.to_string()
    } else {
        fields
            .iter()
            .map(|f| format!("{} {}", f.field, f.message))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Errors that would fail every row the same way: stop at the first.
fn stops_the_import(e: &ClientError) -> bool {
    matches!(
        e,
        ClientError::Unauthorized(_)
            | ClientError::PermissionDenied(_)
            | ClientError::Connection { .. }
    )
}

pub async fn run(ctx: &Ctx, args: ImportArgs) -> Result<(), Fail> {
    let items = read_items(&args.file)?;
    let mut summary = Summary {
        total: items.len(),
        dry_run: args.dry_run,
        ..Default::default()
    };
    let (valid, invalid): (Vec<Item>, Vec<Item>) =
        items.into_iter().partition(|i| i.payload.is_ok());
    for i in invalid {
        summary.failures.push(Failure {
            row: i.row,
            name: i.name,
            cnpj: i.cnpj,
            reason: i.payload.expect_err("partitioned on errors"),
        });
    }
    if args.dry_run {
        let existing: Vec<Facility> = ctx
            .client
            .all_pages("/facilities", &Default::default())
            .await?;
        let known: HashSet<(String, String)> = existing
            .into_iter()
            .map(|f| (f.cnpj, f.department.to_string()))
            .collect();
        for i in valid {
            let p = i.payload.as_ref().expect("valid");
            let key = (
                i.cnpj.clone(),
                p["department"].as_str().unwrap_or_default().to_owned(),
            );
            if known.contains(&key) {
                summary.already_registered += 1;
            } else {
                summary.created += 1;
            }
        }
    } else {
        let bar = output::progress_bar(valid.len() as u64, "facilities");
        let client = &ctx.client;
        let mut outcomes = futures::stream::iter(valid.into_iter().map(|item| async move {
            let result = client
                .register_facility(item.payload.as_ref().expect("valid"))
                .await;
            (item, result)
        }))
        .buffer_unordered(args.concurrency.into());
        while let Some((item, result)) = outcomes.next().await {
            bar.inc(1);
            match result {
                Ok(_) => summary.created += 1,
                Err(e) if e.existing_id().is_some() => summary.already_registered += 1,
                Err(e) if stops_the_import(&e) => {
                    bar.abandon();
                    output::note(format!(
                        "import stopped: {} created, {} already registered before the error",
                        summary.created, summary.already_registered
                    ));
                    return Err(e.into());
                }
                Err(e) => summary.failures.push(Failure {
                    row: item.row,
                    name: item.name,
                    cnpj: item.cnpj,
                    reason: reason(&e),
                }),
            }
        }
        bar.finish_and_clear();
    }
    summary.failures.sort_by_key(|f| f.row);
    summary.failed = summary.failures.len();
    if summary.failed > 0 {
        let path = args.failures.clone().unwrap_or_else(|| {
            let mut p = args.file.clone().into_os_string();
            p.push(".failures.csv");
            PathBuf::from(p)
        });
        let mut w = csv::Writer::from_path(&path).map_err(anyhow::Error::from)?;
        for f in &summary.failures {
            w.serialize(f).map_err(anyhow::Error::from)?;
        }
        w.flush()?;
        summary.failures_file = Some(path.display().to_string());
    }
    print_summary(ctx.format, &summary)?;
    if summary.failed > 0 {
        return Err(Fail::Other(anyhow::anyhow!(
            "{} of {} facilities failed (listed in {})",
            summary.failed,
            summary.total,
            summary.failures_file.as_deref().unwrap_or_default()
        )));
    }
    Ok(())
}

fn print_summary(format: Format, s: &Summary) -> Result<(), Fail> {
    if format == Format::Json {
        output::print_json(s)?;
        return Ok(());
    }
    let (created, existing) = if s.dry_run {
        ("would be created", "already registered (would be skipped)")
    } else {
        ("created", "already registered (skipped)")
    };
    let mut out = output::stdout();
    writeln!(out, "{:>6} {created}", s.created)?;
    writeln!(out, "{:>6} {existing}", s.already_registered)?;
    writeln!(out, "{:>6} failed", s.failed)?;
    for f in s.failures.iter().take(20) {
        writeln!(out, "  row {}: {} {} — {}", f.row, f.name, f.cnpj, f.reason)?;
    }
    if s.failures.len() > 20 {
        writeln!(out, "  … and {} more", s.failures.len() - 20)?;
    }
    if let Some(path) = &s.failures_file {
        writeln!(out, "failures written to {path}")?;
    }
    Ok(())
}
