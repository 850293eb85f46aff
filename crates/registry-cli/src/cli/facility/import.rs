//! `registry facility import`: bulk registration from CSV or JSON with bounded concurrency, a dry
//! run, a summary and a failures file; a re-run skips what the server reports as already registered.

use super::fields;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format};
use clap::Args;
use futures::StreamExt;
use registry_client::facility_csv::{self, payload_from_row, strip_cnpj_punctuation};
use registry_client::{ClientError, ListQuery};
use registry_core::api::{Facility, Group, User};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: u16,
    /// Where to write the rows that failed (default: <file>.failures.csv; stdin.failures.csv
    /// for `-`).
    #[arg(long)]
    failures: Option<PathBuf>,
}

/// One input record: where it came from, and its payload or why it cannot be sent.
struct Item {
    row: usize,
    name: String,
    cnpj: String,
    /// The cnpj was written with punctuation, which was taken out (the API takes the bare form).
    cnpj_stripped: bool,
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

/// Fields of an exported facility (`facility export --format json`) that belong to the server it
/// came from: left out when importing.
const EXPORT_ONLY: &[&str] = &[
    "_id",
    "version",
    "createdAt",
    "updatedAt",
    "logo",
    "backgroundImage",
];

/// The server's rules run on a payload before sending: why it would be refused, in one line.
fn check_locally(payload: &Value) -> Result<(), String> {
    fields::local_field_errors(payload, registry_core::facility::Mode::Create).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{} {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// The groups and users of this server, read once when some row names one, to find a row's
/// group by `_id` or exact name and its linked users by `_id` or e-mail: an export from another
/// server carries that server's `_id`s, with the group's name and the users' e-mails beside them.
#[derive(Default)]
struct Directory {
    groups: Option<Vec<Group>>,
    users: Option<Vec<User>>,
}

/// `slot`, read from `path` (every page) the first time it is asked for.
async fn read_once<'a, T: DeserializeOwned>(
    slot: &'a mut Option<Vec<T>>,
    ctx: &Ctx,
    path: &str,
) -> Result<&'a [T], ClientError> {
    if slot.is_none() {
        *slot = Some(ctx.client.all_pages(path, &ListQuery::default()).await?);
    }
    Ok(slot.as_deref().unwrap_or_default())
}

impl Directory {
    async fn groups(&mut self, ctx: &Ctx) -> Result<&[Group], ClientError> {
        read_once(&mut self.groups, ctx, "/group").await
    }

    async fn users(&mut self, ctx: &Ctx) -> Result<&[User], ClientError> {
        read_once(&mut self.users, ctx, "/users").await
    }

    /// `payload`'s `group` (an `_id`, a name, or `{"_id", "name"}` as an export has it) as the
    /// `_id` of this server's group; its `users` as `[{_id, responsabilities}]` with each user
    /// found by `_id`, else by `email`. `Ok(Err(reason))` when one is not on this server.
    async fn resolve(
        &mut self,
        ctx: &Ctx,
        payload: &mut Value,
    ) -> Result<Result<(), String>, ClientError> {
        let Some(obj) = payload.as_object_mut() else {
            return Ok(Ok(()));
        };
        let group = match obj.get("group") {
            Some(Value::String(s)) if !s.trim().is_empty() => Some((Some(s.clone()), None)),
            Some(Value::Object(o)) => Some((
                o.get("_id").and_then(Value::as_str).map(str::to_owned),
                o.get("name").and_then(Value::as_str).map(str::to_owned),
            )),
            _ => None,
        };
        if let Some((id, name)) = group {
            let groups = self.groups(ctx).await?;
            let by_id = id
                .as_deref()
                .and_then(|id| groups.iter().find(|g| g.id == id.trim()));
            // A plain string may be the name too.
            let named = name
                .as_deref()
                .or(id.as_deref())
                .map(|n| n.trim().to_lowercase());
            let by_name = || {
                named
                    .as_deref()
                    .and_then(|n| groups.iter().find(|g| g.name.to_lowercase() == n))
            };
            match by_id.or_else(by_name) {
                Some(g) => {
                    obj.insert("group".into(), json!(g.id));
                }
                None => {
                    let shown = name.or(id).unwrap_or_default();
                    return Ok(Err(format!(
                        "group `{shown}`: no group with this _id or name on this server"
                    )));
                }
            }
        }
        if let Some(Value::Array(links)) = obj.get("users")
            && !links.is_empty()
        {
            let links = links.clone();
            let users = self.users(ctx).await?;
            let mut resolved = Vec::new();
            for link in &links {
                let text = |k: &str| link.get(k).and_then(Value::as_str).map(str::trim);
                let (id, email) = (text("_id"), text("email"));
                let found = id
                    .and_then(|id| users.iter().find(|u| u.id == id))
                    .or_else(|| {
                        email.and_then(|e| users.iter().find(|u| u.email.eq_ignore_ascii_case(e)))
                    });
                let Some(u) = found else {
                    let shown = email.or(id).unwrap_or_default();
                    return Ok(Err(format!(
                        "user `{shown}`: no user with this _id or e-mail on this server"
                    )));
                };
                let responsibilities = link.get("responsabilities").cloned().unwrap_or(json!([]));
                resolved.push(json!({"_id": u.id, "responsabilities": responsibilities}));
            }
            obj.insert("users".into(), Value::Array(resolved));
        }
        Ok(Ok(()))
    }
}

/// Each valid item's group and users found on this server ([`Directory::resolve`]), then the
/// server's rules run on it: an item that fails either carries the reason instead.
async fn prepare(ctx: &Ctx, items: &mut [Item]) -> Result<(), Fail> {
    let mut directory = Directory::default();
    for item in items.iter_mut() {
        let Ok(payload) = &mut item.payload else {
            continue;
        };
        let checked = match directory.resolve(ctx, payload).await? {
            Ok(()) => check_locally(payload),
            Err(reason) => Err(reason),
        };
        if let Err(reason) = checked {
            item.payload = Err(reason);
        }
    }
    Ok(())
}

fn read_items(path: &Path) -> Result<Vec<Item>, Fail> {
    let unreadable =
        |e: &dyn std::fmt::Display| Fail::Usage(format!("cannot read {}: {e}", path.display()));
    // `-` is stdin: JSON when its first non-blank character opens an array, else CSV.
    let from_stdin = path.as_os_str() == "-";
    let (text, converted) = facility_csv::read(path).map_err(|e| unreadable(&e))?;
    if converted {
        output::note(format!(
            "{} is not UTF-8: read as Windows-1252",
            path.display()
        ));
    }
    let is_json = if from_stdin {
        text.trim_start().starts_with('[')
    } else {
        path.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    };
    let payloads: Vec<(usize, Result<Value, String>)> = if is_json {
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
            .delimiter(facility_csv::delimiter(&text))
            .from_reader(text.as_bytes());
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
            let stripped = strip_cnpj_punctuation(&raw_cnpj);
            let cnpj_stripped = stripped.is_some();
            let cnpj = stripped.unwrap_or(raw_cnpj);
            let payload = payload.map(|mut p| {
                if let Some(obj) = p.as_object_mut() {
                    if obj.contains_key("cnpj") {
                        obj.insert("cnpj".into(), json!(cnpj));
                    }
                    // What a JSON export carries that is this server's own, not a facility's data.
                    for key in EXPORT_ONLY {
                        obj.remove(*key);
                    }
                }
                p
            });
            Item {
                row,
                name,
                cnpj,
                cnpj_stripped,
                payload,
            }
        })
        .collect())
}

/// Says on stderr which rows had a cnpj written with punctuation, taken out before sending (as
/// `facility create` says it).
fn note_stripped_cnpjs(items: &[Item]) {
    let rows: Vec<String> = items
        .iter()
        .filter(|i| i.cnpj_stripped)
        .map(|i| i.row.to_string())
        .collect();
    if !rows.is_empty() {
        output::note(format!(
            "note: {} cnpj{} sent without punctuation (the API accepts only the bare form): {} {}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            if rows.len() == 1 { "row" } else { "rows" },
            rows.join(", ")
        ));
    }
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
        let mut known: HashSet<(String, String)> = existing
            .into_iter()
            .map(|f| (f.cnpj, f.department.to_string()))
            .collect();
        for i in valid {
            let p = i.payload.as_ref().expect("valid");
            let key = (
                i.cnpj.clone(),
                p["department"].as_str().unwrap_or_default().to_owned(),
            );
            // A row repeating an earlier one of the file (same cnpj and department) is what the
            // real run finds already registered by then.
            if !known.insert(key) {
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
    // A dry run writes nothing: its failures are in the summary only.
    if summary.failed > 0 && !args.dry_run {
        let path = args.failures.clone().unwrap_or_else(|| {
            let mut p = if args.file.as_os_str() == "-" {
                "stdin".into()
            } else {
                args.file.clone().into_os_string()
            };
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
    // Rows that failed outrank a failed print of the summary (stdout's reader gone).
    let printed = print_summary(ctx.format, &summary);
    if summary.failed > 0 {
        let listed = match &summary.failures_file {
            Some(path) => format!("listed in {path}"),
            None => "listed above".to_owned(),
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
