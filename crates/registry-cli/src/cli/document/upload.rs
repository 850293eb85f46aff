//! `registry document upload`: a PDF or image report, streamed from disk.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::payload::{insert_given, object};
use crate::cli::{output, prompt, resolve, rules};
use clap::Args;
use registry_core::document::read_document;
use registry_core::equipment::local_date;
use serde_json::{Value, json};
use std::path::PathBuf;

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
    /// The report's conclusion, free text (e.g. Conforme).
    #[arg(long)]
    conclusion: Option<String>,
    /// Start as "Em andamento" (work in progress) instead of "Falta assinar".
    #[arg(long)]
    draft: bool,
}

pub async fn run(ctx: &Ctx, a: UploadArgs) -> Result<(), Fail> {
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
    prompt::require(
        ctx.interactive,
        &[
            ("--name", a.name.is_some()),
            ("--facility", a.facility.is_some()),
            ("--date", a.date.is_some()),
            ("--validity", a.validity.is_some()),
        ],
    )?;
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let stem = a
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = prompt::text_or_default(ctx, a.name, "--name", "Document name", &stem)?;
    let today = local_date(chrono::Utc::now()).to_string();
    let mut fields = object([("name", json!(name)), ("facility", json!(f.id))]);
    // Each date is checked as it is answered (the validity after the date), as the server will.
    for (key, given, flag, label, default) in [
        (
            "date",
            a.date,
            "--date",
            "Date (YYYY-MM-DD)",
            Some(today.as_str()),
        ),
        (
            "validity",
            a.validity,
            "--validity",
            "Valid until (YYYY-MM-DD)",
            None,
        ),
    ] {
        let so_far = fields.clone();
        let check = move |s: &str| rules::document_field(&so_far, key, s);
        let value = prompt::checked(given, ctx.interactive, flag, label, default, Some(&check))?;
        fields.insert(key.into(), json!(value));
    }
    if let Some(e) = a.equipment {
        let e = resolve::equipment_or_pick(ctx, Some(e), "--equipment").await?;
        fields.insert("equipment".into(), json!(e.id));
    }
    insert_given(
        &mut fields,
        [("test", a.test), ("conclusion", a.conclusion)],
    );
    if a.draft {
        fields.insert("draft".into(), json!(true));
    }
    // Checked before sending so a large file is not streamed only to be refused for a field.
    read_document(&fields, true).map_err(Fail::Invalid)?;
    let len = tokio::fs::metadata(&a.file).await?.len();
    let bar = output::byte_bar(Some(len));
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
        view::facility_name(&d),
        d.status,
        d.id
    ));
    view::show(ctx.format, &d)
}
