//! `registry facility import`: bulk registration from CSV or JSON with bounded concurrency, a dry
//! run, a summary and a failures file; a re-run skips what the server reports as already registered.

use super::import_lookup::prepare;
use super::import_rows::{Item, note_stripped_cnpjs, read_items};
use crate::cli::cancel;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format};
use clap::Args;
use futures::StreamExt;
use registry_client::{Client, ClientError, ListQuery, facility_csv};
use registry_core::api::Facility;
use registry_core::text::for_terminal;
use registry_core::{Department, MainRole};
use serde::Serialize;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The CSV columns, shown by `registry facility import --help`.
pub const CSV_COLUMNS_HELP: &str = "\
CSV columns (header row required; any order; unknown columns, such as an export's _id, ignored;
empty cells are absent fields):
  name, companyName, cnpj, telephone   text; cnpj with or without punctuation
  department                           Medicina Nuclear | Radiodiagnóstico
  street, city, state, complement, zipCode   the address
  CNENregistry                         text
  group                                the group's _id or exact name (on this server)
  practices                            ;-separated, e.g. Diagnóstico;Terapia Ambulatorial
  radioisotopes                        NAME=QUANTITY in mCi/week, ;-separated, e.g. Tc(99m)=1500;I(131)=200.5
A .json file holds an array of facility payloads; a group or linked user given by an _id this
server does not know is looked up by its name or e-mail (as `facility export` writes them).";

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A .csv file with a header row (columns below) or a .json array of facility payloads (the
    /// API's field names); `-` reads stdin (JSON when it starts with `[`, else CSV).
    file: PathBuf,
    /// Check every row and tell what would happen, without registering anything.
    #[arg(long)]
    dry_run: bool,
    /// Registrations in flight at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64), allow_negative_numbers = true)]
    concurrency: u16,
    /// Where to write the rows that failed (default: <file>.failures.csv; stdin.failures.csv
    /// for `-`); a run where none fails removes it.
    #[arg(long)]
    failures: Option<PathBuf>,
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
    /// Dry run: rows that would be created if the server accepts their custom
    /// responsibilities (`REGISTRY_EXTRA_RESPONSIBILITIES` is the server's, and not published).
    #[serde(skip_serializing_if = "is_zero")]
    created_if_accepted: usize,
    /// Those custom responsibilities, each once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    responsibilities_to_check: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failures_file: Option<String>,
    failures: Vec<Failure>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The responsibilities of a row's linked users outside the four main roles: custom ones, which
/// only the server knows whether it accepts (a server setting it does not publish).
fn custom_responsibilities(item: &Item) -> Vec<String> {
    let Ok(payload) = &item.payload else {
        return Vec::new();
    };
    let links = payload["users"].as_array().into_iter().flatten();
    links
        .flat_map(|link| link["responsabilities"].as_array().into_iter().flatten())
        .filter_map(|r| r.as_str())
        .filter(|r| MainRole::parse(r).is_none())
        .map(str::to_owned)
        .collect()
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
            | ClientError::Timeout { .. }
    )
}

/// Whether a row refused for its payload (here or by the server) is registered already: a
/// re-run skips it like any other, though a user it links has been deactivated since, say. The
/// server judges the payload before it looks for a duplicate.
async fn registered(client: &Client, item: &Item) -> bool {
    let (cnpj, department) = key(item);
    // A row without a valid department names no facility (as in the dry run's comparison).
    let Some(department) = Department::parse(&department) else {
        return false;
    };
    if cnpj.is_empty() {
        return false;
    }
    let query = ListQuery::default()
        .filter("q", cnpj.as_str())
        .filter("department", department.as_str());
    let found: Result<Vec<Facility>, _> = client.all_pages("/facilities", &query).await;
    found.is_ok_and(|found| (found.iter()).any(|f| f.cnpj == cnpj && f.department == department))
}

/// A row's key among facilities: its cnpj and department.
fn key(item: &Item) -> (String, String) {
    (item.cnpj.clone(), item.department.clone())
}

/// The items whose key no earlier item has, in order, and each other one's row with the row of
/// the first item of its key.
fn first_of_each_key(items: Vec<Item>) -> (Vec<Item>, Vec<(usize, usize)>) {
    let mut first_rows: HashMap<(String, String), usize> = HashMap::new();
    let mut repeats = Vec::new();
    let firsts = items
        .into_iter()
        .filter(|item| match first_rows.entry(key(item)) {
            Entry::Occupied(first) => {
                repeats.push((item.row, *first.get()));
                false
            }
            Entry::Vacant(slot) => {
                slot.insert(item.row);
                true
            }
        })
        .collect();
    (firsts, repeats)
}

pub async fn run(ctx: &Ctx, args: ImportArgs) -> Result<(), Fail> {
    if !args.dry_run {
        check_failures_path(&args)?;
    }
    let mut items = read_items(&args.file)?;
    note_stripped_cnpjs(&items);
    prepare(ctx, &mut items).await?;
    let mut summary = Summary {
        total: items.len(),
        dry_run: args.dry_run,
        ..Default::default()
    };
    let (valid, invalid): (Vec<Item>, Vec<Item>) =
        items.into_iter().partition(|i| i.payload.is_ok());
    // A row repeating an earlier one of the file (same cnpj and department) is never sent: the
    // earlier row is the one registered, whichever request would have come first.
    let (valid, repeats) = first_of_each_key(valid);
    for (repeat, first) in repeats.iter().take(10) {
        output::note(format!(
            "row {repeat} repeats row {first} (same cnpj and department): skipped"
        ));
    }
    if repeats.len() > 10 {
        output::note(format!(
            "… and {} more repeated rows skipped",
            repeats.len() - 10
        ));
    }
    summary.already_registered += repeats.len();
    // What the dry run holds registered; the real run asks about each refused row.
    let mut known: HashSet<(String, String)> = HashSet::new();
    if args.dry_run {
        let existing: Vec<Facility> = ctx
            .client
            .all_pages("/facilities", &Default::default())
            .await?;
        known.extend(
            existing
                .into_iter()
                .map(|f| (f.cnpj, f.department.to_string())),
        );
    }
    for i in invalid {
        let skipped = match args.dry_run {
            true => known.contains(&key(&i)),
            false => registered(&ctx.client, &i).await,
        };
        if skipped {
            summary.already_registered += 1;
            continue;
        }
        summary.failures.push(Failure {
            row: i.row,
            name: i.name,
            cnpj: i.cnpj,
            reason: i.payload.expect_err("partitioned on errors"),
        });
    }
    if args.dry_run {
        for i in valid {
            let custom = custom_responsibilities(&i);
            if !known.insert(key(&i)) {
                summary.already_registered += 1;
            } else if custom.is_empty() {
                summary.created += 1;
            } else {
                // Not promised: the server may refuse a custom responsibility.
                summary.created_if_accepted += 1;
                for r in custom {
                    if !summary.responsibilities_to_check.contains(&r) {
                        summary.responsibilities_to_check.push(r);
                    }
                }
            }
        }
    } else {
        // A Ctrl-C says what was registered by then (a re-run skips it).
        // Created, already registered, and sent without an answer yet (those may be registered
        // too: the server commits what it received).
        let done = Arc::new([
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ]);
        let seen = Arc::clone(&done);
        cancel::report(move || {
            let [created, existing, sending] = &*seen;
            let sending = sending.load(Ordering::SeqCst);
            let unanswered = match sending {
                0 => String::new(),
                n => format!(", and {n} sent without an answer yet may be registered too"),
            };
            format!(
                "import stopped: {} created, {} already registered before Ctrl-C{unanswered}; a re-run skips them",
                created.load(Ordering::SeqCst),
                existing.load(Ordering::SeqCst)
            )
        });
        let bar = output::progress_bar(valid.len() as u64, "facilities");
        let client = &ctx.client;
        let sending = &done[2];
        let mut outcomes = futures::stream::iter(valid.into_iter().map(|item| async move {
            sending.fetch_add(1, Ordering::SeqCst);
            let result = client
                .register_facility(item.payload.as_ref().expect("valid"))
                .await;
            (item, result)
        }))
        .buffer_unordered(args.concurrency.into());
        while let Some((item, result)) = outcomes.next().await {
            bar.inc(1);
            // Counted below before it leaves the unanswered ones (a Ctrl-C in between counts it
            // twice, as "may be registered": never not at all).
            let answered = || sending.fetch_sub(1, Ordering::SeqCst);
            match result {
                Ok(_) => {
                    summary.created += 1;
                    done[0].fetch_add(1, Ordering::SeqCst);
                    answered();
                }
                Err(e)
                    if e.existing_id().is_some()
                        || matches!(e, ClientError::Validation(_))
                            && registered(client, &item).await =>
                {
                    summary.already_registered += 1;
                    done[1].fetch_add(1, Ordering::SeqCst);
                    answered();
                }
                Err(e) if stops_the_import(&e) => {
                    bar.abandon();
                    output::note(format!(
                        "import stopped: {} created, {} already registered before the error",
                        summary.created, summary.already_registered
                    ));
                    return Err(e.into());
                }
                Err(e) => {
                    answered();
                    summary.failures.push(Failure {
                        row: item.row,
                        name: item.name,
                        cnpj: item.cnpj,
                        reason: reason(&e),
                    });
                }
            }
        }
        bar.finish_and_clear();
    }
    summary.failures.sort_by_key(|f| f.row);
    summary.failed = summary.failures.len();
    // A dry run writes nothing: its failures are in the summary only.
    let unwritten = match args.dry_run {
        true => None,
        false => keep_failures(&args, &mut summary).err(),
    };
    // Rows that failed outrank a failed print of the summary (stdout's reader gone). The summary
    // comes first whatever became of the failures file: the rows registered are what matters.
    let printed = print_summary(ctx.format, &summary);
    if summary.failed > 0 {
        let listed = match (&summary.failures_file, unwritten) {
            (Some(path), _) => format!("listed in {path}"),
            (None, Some(unwritten)) => format!("listed above; {unwritten}"),
            (None, None) => "listed above".to_owned(),
        };
        return Err(Fail::Other(anyhow::anyhow!(
            "{} of {} facilities {} ({listed})",
            summary.failed,
            summary.total,
            if args.dry_run { "would fail" } else { "failed" }
        )));
    }
    printed
}

/// Where the failures go: `--failures`, else `<file>.failures.csv` (`stdin.failures.csv` for
/// `-`).
fn failures_path(args: &ImportArgs) -> PathBuf {
    args.failures.clone().unwrap_or_else(|| {
        let mut p = if args.file.as_os_str() == "-" {
            "stdin".into()
        } else {
            args.file.clone().into_os_string()
        };
        p.push(".failures.csv");
        PathBuf::from(p)
    })
}

/// The header of a failures file.
const FAILURES_HEADER: &str = "row,name,cnpj,reason";

/// Whether `path` holds a failures file that a run wrote (its first line is the header), so
/// that a run may replace or remove it; `None` when there is nothing there.
fn holds_failures(path: &Path) -> Option<bool> {
    let meta = std::fs::metadata(path).ok()?;
    let mut first = String::new();
    let read = meta.is_file()
        && std::fs::File::open(path)
            .map(std::io::BufReader::new)
            .and_then(|mut r| std::io::BufRead::read_line(&mut r, &mut first))
            .is_ok();
    Some(read && first.trim_end() == FAILURES_HEADER)
}

/// The failures file may be written or removed at the end: it is not the file imported, and
/// nothing but an earlier run's failures is there.
fn check_failures_path(args: &ImportArgs) -> Result<(), Fail> {
    let path = failures_path(args);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if args.file.as_os_str() != "-" && same(&path, &args.file) {
        return Err(Fail::Usage(format!(
            "--failures {} is the file being imported: name another file",
            path.display()
        )));
    }
    if holds_failures(&path) == Some(false) {
        return Err(Fail::Usage(format!(
            "{} exists and is not a failures file of `facility import` (first line `{FAILURES_HEADER}`): \
             name another file with --failures, or move it",
            path.display()
        )));
    }
    Ok(())
}

/// The failures file of a run that sent rows: the failures written to it (noted in `summary`),
/// or, when none failed, the one an earlier run left removed, since its rows are stale (a
/// warning when it cannot be). Why the failures could not be written, naming the file.
fn keep_failures(args: &ImportArgs, summary: &mut Summary) -> Result<(), String> {
    let path = failures_path(args);
    if summary.failures.is_empty() {
        if holds_failures(&path) != Some(true) {
            return Ok(());
        }
        match std::fs::remove_file(&path) {
            Ok(()) => output::note(format!(
                "removed {}: its rows were an earlier run's, and none failed now",
                path.display()
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => output::note(format!(
                "warning: {} (an earlier run's failures) could not be removed: {e}",
                path.display()
            )),
        }
        return Ok(());
    }
    match write_failures(&path, &summary.failures) {
        Ok(()) => {
            summary.failures_file = Some(path.display().to_string());
            Ok(())
        }
        Err(e) => Err(format!(
            "they could not be written to {}: {e}",
            path.display()
        )),
    }
}

/// The failures as CSV at `path`, each text [`facility_csv::formula_safe`] (a name or cnpj is
/// the file's, which anyone may have written).
fn write_failures(path: &Path, failures: &[Failure]) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(FAILURES_HEADER.split(','))?;
    for f in failures {
        let row = [&f.row.to_string(), &f.name, &f.cnpj, &f.reason];
        facility_csv::write_safe_record(&mut w, row)?;
    }
    Ok(w.flush()?)
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
    if s.created_if_accepted > 0 {
        let named: Vec<String> = (s.responsibilities_to_check.iter())
            .map(|r| format!("`{r}`"))
            .collect();
        let (noun, these) = match named.len() {
            1 => ("responsibility", named.join("")),
            _ => ("responsibilities", named.join(", ")),
        };
        writeln!(
            out,
            "{:>6} would be created if the server accepts the {noun} {these} (a custom one: \
             the server's REGISTRY_EXTRA_RESPONSIBILITIES decides)",
            s.created_if_accepted
        )?;
    }
    writeln!(out, "{:>6} {existing}", s.already_registered)?;
    writeln!(out, "{:>6} failed", s.failed)?;
    for f in s.failures.iter().take(20) {
        let line = format!("  row {}: {} {} — {}", f.row, f.name, f.cnpj, f.reason);
        writeln!(out, "{}", for_terminal(&line))?;
    }
    if s.failures.len() > 20 {
        writeln!(out, "  … and {} more", s.failures.len() - 20)?;
    }
    if let Some(path) = &s.failures_file {
        writeln!(out, "failures written to {path}")?;
    }
    Ok(())
}
