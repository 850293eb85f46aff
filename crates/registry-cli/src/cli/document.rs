//! `registry document …`: list, show, upload and download (streamed, with a progress bar on a
//! terminal), sign, release, comment, schedule the e-mail, archive, and verify a signed file.

use super::output::{self, Format, Rows};
use super::{Ctx, Fail, Globals, equipment, facility, prompt};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use registry_client::{ClientError, ListQuery, MAX_PAGE_SIZE};
use registry_core::document::{
    Document, DocumentStatus, public_key_from_base64, read_document, verify_document_digest,
};
use registry_core::equipment::local_date;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Debug, Subcommand)]
pub enum DocumentCommand {
    /// List documents, newest first (one page, or all with --all).
    List(ListArgs),
    /// Show one document with its signature, comments and file versions.
    Show { document: String },
    /// Upload a PDF or image report (streamed from disk).
    Upload(UploadArgs),
    /// Download a document's file (streamed to disk, checked against its SHA-256).
    Download(DownloadArgs),
    /// Sign a document awaiting signature (Físico, Administrator).
    Sign { document: String },
    /// Release a signed document to the facility (Administrator, Admin, Físico).
    Release { document: String },
    /// Add a comment.
    Comment {
        document: String,
        #[arg(long)]
        text: Option<String>,
    },
    /// E-mail a released document (default: now, to the facility's active users).
    ScheduleEmail {
        document: String,
        /// A recipient (repeat for several).
        #[arg(long)]
        to: Vec<String>,
        /// When to send it, RFC 3339 (e.g. 2026-12-01T09:00:00-03:00).
        #[arg(long)]
        at: Option<String>,
    },
    /// Check that a local file is the one a document was signed over, with the server's public
    /// key. Exit 0 when it is, 4 when the file or the signed data was altered or it is unsigned.
    Verify(VerifyArgs),
    /// The server's public key that signatures are checked with (base64), for `verify --key`.
    SigningKey,
    /// Delete a document (it leaves every list; its files and the audit log keep it).
    Archive {
        document: String,
        #[arg(long, short)]
        yes: bool,
    },
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// A status or its slug: "Falta assinar" / falta-assinar, assinado, liberado, corrigir, em-andamento.
    #[arg(long, value_parser = parse_status)]
    status: Option<DocumentStatus>,
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// QC test _id.
    #[arg(long)]
    test: Option<String>,
    /// Dated from this day (YYYY-MM-DD).
    #[arg(long)]
    from: Option<String>,
    /// Dated before this day (YYYY-MM-DD).
    #[arg(long)]
    to: Option<String>,
    /// Text in the name.
    #[arg(long)]
    q: Option<String>,
    #[arg(long, default_value_t = 1)]
    page: u32,
    #[arg(long, default_value_t = 20)]
    page_size: u32,
    /// Every page.
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
pub struct UploadArgs {
    /// The PDF, PNG, JPEG or WebP file.
    file: PathBuf,
    /// Default at the terminal: the file's name without its extension.
    #[arg(long)]
    name: Option<String>,
    /// Facility: _id, cnpj or exact name (picked from a list when missing).
    #[arg(long)]
    facility: Option<String>,
    /// Equipment _id (of that facility).
    #[arg(long)]
    equipment: Option<String>,
    /// QC test _id (of that facility).
    #[arg(long)]
    test: Option<String>,
    /// The report's date, YYYY-MM-DD (default at the terminal: today).
    #[arg(long)]
    date: Option<String>,
    /// Valid until, YYYY-MM-DD, after --date.
    #[arg(long)]
    validity: Option<String>,
    #[arg(long)]
    conclusion: Option<String>,
    /// Start as "Em andamento" (work in progress) instead of "Falta assinar".
    #[arg(long)]
    draft: bool,
}

#[derive(Debug, Args)]
pub struct DownloadArgs {
    document: String,
    /// Where to write it ("-" for stdout); default: the stored file name in this folder.
    #[arg(long)]
    file: Option<PathBuf>,
    /// An older version of the file (see `document show`).
    #[arg(long)]
    version: Option<i64>,
    /// Overwrite an existing file.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The local file to check.
    file: PathBuf,
    /// The document's _id (its data is fetched from the server).
    #[arg(long, required_unless_present = "document_json")]
    document: Option<String>,
    /// The document's JSON as `document show -o json` printed it, for a check without the server.
    #[arg(long, conflicts_with = "document")]
    document_json: Option<PathBuf>,
    /// The server's public key (base64, as `GET /api/signing-key` gives it); default: fetched.
    #[arg(long)]
    key: Option<String>,
}

fn parse_status(s: &str) -> Result<DocumentStatus, String> {
    DocumentStatus::parse_value_or_slug(s)
        .ok_or_else(|| format!("must be one of: {}", DocumentStatus::allowed()))
}

pub async fn run(globals: &Globals, command: DocumentCommand) -> Result<(), Fail> {
    // A check with the document's JSON and the key at hand needs no server at all.
    if let DocumentCommand::Verify(a) = &command
        && a.document_json.is_some()
        && a.key.is_some()
    {
        return verify(None, globals.format, a).await;
    }
    let ctx = Ctx::new(globals)?;
    let ctx = &ctx;
    match command {
        DocumentCommand::List(a) => list(ctx, a).await,
        DocumentCommand::Show { document } => show(ctx.format, &get(ctx, &document).await?),
        DocumentCommand::Upload(a) => upload(ctx, a).await,
        DocumentCommand::Download(a) => download(ctx, a).await,
        DocumentCommand::Sign { document } => {
            let d = ctx.client.sign_document(&document).await?;
            output::note(format!(
                "Signed {} by {} at {}: authenticity code {}",
                d.name,
                d.signed_by.as_ref().map(|p| p.name.as_str()).unwrap_or("?"),
                d.signed_at.as_deref().unwrap_or("?"),
                d.code.as_deref().unwrap_or("?")
            ));
            show(ctx.format, &d)
        }
        DocumentCommand::Release { document } => {
            let d = ctx.client.release_document(&document).await?;
            output::note(format!("Released {} to {}", d.name, facility_name(&d)));
            show(ctx.format, &d)
        }
        DocumentCommand::Comment { document, text } => {
            let text = prompt::text_or_ask(text, ctx.interactive, "--text", "Comment")?;
            let d = ctx.client.comment_document(&document, &text).await?;
            output::note(format!(
                "Commented on {} ({} comments)",
                d.name,
                d.comments.len()
            ));
            show(ctx.format, &d)
        }
        DocumentCommand::ScheduleEmail { document, to, at } => {
            let d = ctx
                .client
                .schedule_document_email(&document, at.as_deref(), &to)
                .await?;
            if let Some(s) = &d.scheduled_email {
                output::note(format!(
                    "E-mail of {} scheduled for {} to {}",
                    d.name,
                    s.send_at,
                    s.to.join(", ")
                ));
            }
            show(ctx.format, &d)
        }
        DocumentCommand::Verify(a) => verify(Some(ctx), ctx.format, &a).await,
        DocumentCommand::SigningKey => {
            let k = ctx.client.signing_key().await?;
            match ctx.format {
                Format::Table => println!("{}", k.public_key),
                format => output::print_record(
                    format,
                    &k,
                    vec![
                        ("algorithm", k.algorithm.clone()),
                        ("publicKey", k.public_key.clone()),
                    ],
                )?,
            }
            Ok(())
        }
        DocumentCommand::Archive { document, yes } => {
            let d = get(ctx, &document).await?;
            if !prompt::confirm(
                ctx.interactive,
                yes,
                &format!("Delete document {} ({})?", d.name, d.status),
            )? {
                output::note("Not deleted.");
                return Ok(());
            }
            let m = ctx.client.archive_document(&d.id).await?;
            output::note(format!("{} {}", m.message, d.name));
            Ok(())
        }
    }
}

fn facility_name(d: &Document) -> &str {
    d.facility.name.as_deref().unwrap_or(&d.facility.id)
}

/// A document by `_id`, with a message naming it when there is none.
async fn get(ctx: &Ctx, id: &str) -> Result<Document, Fail> {
    match ctx.client.document(id).await {
        Ok(d) => Ok(d),
        Err(ClientError::NotFound(_)) => Err(Fail::NotFound(format!(
            "no document with _id `{id}` (or you may not see it)"
        ))),
        Err(e) => Err(e.into()),
    }
}

async fn list(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let mut filters = ListQuery::default();
    if let Some(s) = a.status {
        filters = filters.filter("status", s.slug());
    }
    if let Some(f) = a.facility {
        filters = filters.filter("facilityId", facility::resolve(ctx, &f).await?.id);
    }
    for (key, value) in [
        ("equipmentId", a.equipment),
        ("testId", a.test),
        ("dateGte", a.from),
        ("dateLt", a.to),
        ("q", a.q),
    ] {
        if let Some(v) = value {
            filters = filters.filter(key, v);
        }
    }
    let list: Vec<Document> = if a.all {
        ctx.client.all_pages("/documents", &filters).await?
    } else {
        let page = ctx
            .client
            .documents(&ListQuery {
                page_num: Some(a.page),
                page_size: Some(a.page_size.min(MAX_PAGE_SIZE)),
                ..filters
            })
            .await?;
        let shown = (i64::from(a.page) - 1) * page.paging.page_size + page.list.len() as i64;
        if shown < page.paging.total {
            output::note(format!(
                "{} of {} documents; next: --page {}, or --all",
                page.list.len(),
                page.paging.total,
                a.page + 1
            ));
        }
        page.list
    };
    print_list(ctx.format, &list)
}

fn print_list(format: Format, list: &[Document]) -> Result<(), Fail> {
    let cells = list
        .iter()
        .map(|d| {
            vec![
                d.id.clone(),
                d.name.clone(),
                facility_name(d).to_owned(),
                d.status.to_string(),
                d.date.clone(),
                d.validity.clone(),
                d.code.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id", "name", "facility", "status", "date", "validity", "code",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn show(format: Format, d: &Document) -> Result<(), Fail> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let person_at = |p: &Option<registry_core::document::Person>, at: &Option<String>| match p {
        Some(p) => format!("{} at {}", p.name, opt(at)),
        None => String::new(),
    };
    let comments = d
        .comments
        .iter()
        .map(|c| format!("{} ({}): {}", c.author.name, c.created_at, c.text))
        .collect::<Vec<_>>()
        .join("\n");
    let versions = d
        .versions
        .iter()
        .map(|v| {
            format!(
                "{}: {} ({} bytes) by {} at {}",
                v.version, v.file.name, v.file.size, v.uploaded_by.name, v.uploaded_at
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let email = match (&d.sent_email, &d.scheduled_email) {
        (Some(s), _) => format!("sent {} to {}", s.sent_at, s.to.join(", ")),
        (None, Some(s)) => format!("{} for {} to {}", s.status, s.send_at, s.to.join(", ")),
        (None, None) => String::new(),
    };
    output::print_record(
        format,
        d,
        vec![
            ("_id", d.id.clone()),
            ("name", d.name.clone()),
            ("facility", facility_name(d).to_owned()),
            (
                "equipment",
                d.equipment
                    .as_ref()
                    .map(|e| e.id.clone())
                    .unwrap_or_default(),
            ),
            (
                "test",
                d.test.as_ref().map(|t| t.id.clone()).unwrap_or_default(),
            ),
            ("status", d.status.to_string()),
            ("date", d.date.clone()),
            ("validity", d.validity.clone()),
            ("conclusion", opt(&d.conclusion)),
            (
                "file",
                format!(
                    "{} ({}, {} bytes)",
                    d.file.name, d.file.content_type, d.file.size
                ),
            ),
            ("sha256", d.file.sha256.clone()),
            (
                "uploaded",
                format!("{} at {}", d.uploaded_by.name, d.uploaded_at),
            ),
            ("signed", person_at(&d.signed_by, &d.signed_at)),
            ("code", opt(&d.code)),
            ("released", person_at(&d.liberated_by, &d.liberated_at)),
            ("email", email),
            ("comments", comments),
            ("versions", versions),
        ],
    )?;
    Ok(())
}

/// A byte-count progress bar on stderr, drawn only on a terminal.
fn byte_bar(len: Option<u64>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .expect("a valid template"),
    );
    bar
}

async fn upload(ctx: &Ctx, a: UploadArgs) -> Result<(), Fail> {
    match tokio::fs::metadata(&a.file).await {
        Ok(m) if m.is_file() => {}
        Ok(_) => {
            return Err(Fail::Usage(format!("{} is not a file", a.file.display())));
        }
        Err(e) => {
            return Err(Fail::Usage(format!(
                "cannot read {}: {e}",
                a.file.display()
            )));
        }
    }
    let f = facility::given_or_pick(ctx, a.facility, "--facility").await?;
    let stem = a
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = ask_with_default(ctx, a.name, "--name", "Document name", &stem)?;
    let today = local_date(chrono::Utc::now()).to_string();
    let date = ask_with_default(ctx, a.date, "--date", "Date (YYYY-MM-DD)", &today)?;
    let validity = prompt::text_or_ask(
        a.validity,
        ctx.interactive,
        "--validity",
        "Valid until (YYYY-MM-DD)",
    )?;
    let mut fields = Map::new();
    fields.insert("name".into(), json!(name));
    fields.insert("facility".into(), json!(f.id));
    fields.insert("date".into(), json!(date));
    fields.insert("validity".into(), json!(validity));
    if let Some(e) = a.equipment {
        let e = equipment::given_or_pick(ctx, Some(e), "--equipment").await?;
        fields.insert("equipment".into(), json!(e.id));
    }
    for (key, value) in [("test", a.test), ("conclusion", a.conclusion)] {
        if let Some(v) = value {
            fields.insert(key.into(), json!(v));
        }
    }
    if a.draft {
        fields.insert("draft".into(), json!(true));
    }
    // Checked before sending so a large file is not streamed only to be refused for a field.
    read_document(&fields, true).map_err(Fail::Invalid)?;
    let len = tokio::fs::metadata(&a.file).await?.len();
    let bar = byte_bar(Some(len));
    let shown = bar.clone();
    let d = ctx
        .client
        .upload_document(&Value::Object(fields), &a.file, move |sent| {
            shown.set_position(sent)
        })
        .await;
    bar.finish_and_clear();
    let d = d?;
    output::note(format!(
        "Uploaded {} ({} bytes) for {}: {} ({})",
        d.name,
        d.file.size,
        facility_name(&d),
        d.status,
        d.id
    ));
    show(ctx.format, &d)
}

/// The given value; else at the terminal a prompt offering `default`; else a usage error.
fn ask_with_default(
    ctx: &Ctx,
    given: Option<String>,
    flag: &str,
    label: &str,
    default: &str,
) -> Result<String, Fail> {
    match given {
        Some(v) => Ok(v),
        None if ctx.interactive => Ok(dialoguer::Input::<String>::with_theme(&prompt::theme())
            .with_prompt(label)
            .default(default.to_owned())
            .interact_text()?),
        None => Err(prompt::missing(flag)),
    }
}

async fn download(ctx: &Ctx, a: DownloadArgs) -> Result<(), Fail> {
    let d = get(ctx, &a.document).await?;
    let expected = match a.version {
        None => d.file.clone(),
        Some(v) => d
            .versions
            .iter()
            .find(|x| x.version == v)
            .map(|x| x.file.clone())
            .ok_or_else(|| {
                Fail::NotFound(format!(
                    "{} has no file version {v} (it has {})",
                    d.name,
                    d.versions
                        .iter()
                        .map(|x| x.version.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
    };
    let target = match a.file {
        Some(p) => p,
        // Only the last component of the stored name: a name is never a path to write through.
        None => PathBuf::from(
            Path::new(&expected.name)
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_else(|| format!("{}.bin", d.id).into()),
        ),
    };
    let to_stdout = target.as_os_str() == "-";
    if !to_stdout && !a.force && target.exists() {
        return Err(Fail::Usage(format!(
            "{} exists: pass --force to overwrite it, or --file PATH",
            target.display()
        )));
    }
    let mut stream = ctx.client.document_file(&d.id, a.version).await?;
    let bar = byte_bar(
        stream
            .content_length()
            .or(u64::try_from(expected.size).ok()),
    );
    // Written beside the target and renamed at the end, so an interrupted or corrupt download
    // never leaves a truncated file under the real name.
    let partial = partial_path(&target);
    let mut out: Box<dyn tokio::io::AsyncWrite + Unpin> = if to_stdout {
        Box::new(tokio::io::stdout())
    } else {
        Box::new(tokio::fs::File::create(&partial).await.map_err(|e| {
            Fail::Other(anyhow::anyhow!("cannot create {}: {e}", partial.display()))
        })?)
    };
    let mut hasher = Sha256::new();
    let mut written = 0u64;
    let result: Result<(), Fail> = async {
        while let Some(chunk) = stream.chunk().await? {
            out.write_all(&chunk).await?;
            hasher.update(&chunk);
            written += chunk.len() as u64;
            bar.set_position(written);
        }
        out.flush().await?;
        Ok(())
    }
    .await;
    bar.finish_and_clear();
    drop(out);
    let actual = hex::encode(hasher.finalize());
    let result = result.and_then(|()| {
        if actual.eq_ignore_ascii_case(&expected.sha256) {
            Ok(())
        } else {
            Err(Fail::Other(anyhow::anyhow!(
                "the downloaded file's SHA-256 is {actual}, but the document's is {}",
                expected.sha256
            )))
        }
    });
    if to_stdout {
        return result;
    }
    if let Err(e) = result {
        let _ = tokio::fs::remove_file(&partial).await;
        return Err(e);
    }
    tokio::fs::rename(&partial, &target).await?;
    output::note(format!(
        "Saved {} ({written} bytes, SHA-256 checked) to {}",
        d.name,
        target.display()
    ));
    Ok(())
}

fn partial_path(target: &Path) -> PathBuf {
    let mut name = target
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".part");
    target.with_file_name(name)
}

/// The file's SHA-256, read in pieces.
async fn sha256_of(path: &Path) -> Result<String, Fail> {
    let mut file = tokio::fs::File::open(path)
        .await
        .map_err(|e| Fail::Usage(format!("cannot read {}: {e}", path.display())))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

async fn verify(ctx: Option<&Ctx>, format: Format, a: &VerifyArgs) -> Result<(), Fail> {
    let actual = sha256_of(&a.file).await?;
    let document: Document = match (&a.document_json, &a.document, ctx) {
        (Some(path), _, _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Fail::Usage(format!("cannot read {}: {e}", path.display())))?;
            serde_json::from_str(&text).map_err(|e| {
                Fail::Usage(format!(
                    "--document-json {} is not a document's JSON: {e}",
                    path.display()
                ))
            })?
        }
        (None, Some(id), Some(ctx)) => get(ctx, id).await?,
        _ => return Err(prompt::missing("--document")),
    };
    let key_text = match (&a.key, ctx) {
        (Some(k), _) => k.clone(),
        (None, Some(ctx)) => ctx.client.signing_key().await?.public_key,
        (None, None) => return Err(prompt::missing("--key")),
    };
    let key = public_key_from_base64(&key_text).map_err(|e| Fail::Usage(format!("--key: {e}")))?;
    let outcome = verify_document_digest(&actual, &document, &key);
    let report = json!({
        "valid": outcome.is_ok(),
        "file": a.file.display().to_string(),
        "sha256": actual,
        "document": document.id,
        "name": document.name,
        "code": document.code,
        "signedBy": document.signed_by,
        "signedAt": document.signed_at,
        "error": outcome.as_ref().err().map(|e| e.to_string()),
    });
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        ),
        Format::Csv => output::print_record(
            Format::Csv,
            &report,
            vec![
                ("valid", outcome.is_ok().to_string()),
                ("file", a.file.display().to_string()),
                ("document", document.id.clone()),
                ("code", document.code.clone().unwrap_or_default()),
            ],
        )?,
        Format::Table => {
            if outcome.is_ok() {
                println!(
                    "OK: {} is the file of document {} ({}), signed by {} at {}, code {}",
                    a.file.display(),
                    document.name,
                    document.id,
                    document
                        .signed_by
                        .as_ref()
                        .map(|p| p.name.as_str())
                        .unwrap_or("?"),
                    document.signed_at.as_deref().unwrap_or("?"),
                    document.code.as_deref().unwrap_or("?")
                );
            }
        }
    }
    outcome.map_err(|e| {
        Fail::Rejected(format!(
            "{} does not verify against document {} ({}): {e}",
            a.file.display(),
            document.name,
            document.id
        ))
    })
}
