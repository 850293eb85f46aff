//! `registry document verify`: check that a local file is the one a document was signed over,
//! with the server's public key.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format, or_empty};
use crate::cli::{prompt, resolve};
use clap::Args;
use registry_core::document::{Document, public_key_from_base64, verify_document_digest};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tokio::io::AsyncReadExt;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The local file to check.
    file: PathBuf,
    /// The document's _id (its data is fetched from the server); this or --document-json.
    #[arg(long)]
    pub document: Option<String>,
    /// The document's JSON as `document show -o json` printed it, for a check without the
    /// server; this or --document.
    #[arg(long, conflicts_with = "document")]
    pub document_json: Option<PathBuf>,
    /// The server's public key (base64, as `GET /api/signing-key` gives it); default: fetched.
    #[arg(long)]
    pub key: Option<String>,
}

/// The usage error of a `verify` given neither `--document` nor `--document-json` (exit 2).
pub fn neither_document() -> Fail {
    Fail::Usage(
        "one of --document ID (the document's data read from the server) and --document-json \
         FILE (its JSON saved with `document show -o json`, to check offline) is required"
            .into(),
    )
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

pub async fn run(ctx: Option<&Ctx>, format: Format, a: &VerifyArgs) -> Result<(), Fail> {
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
        (None, Some(id), Some(ctx)) => resolve::document(ctx, id).await?,
        _ => return Err(neither_document()),
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
    // The verdict outranks a failed print (stdout's reader gone): exit 4 stays exit 4.
    let printed: Result<(), Fail> = match format {
        Format::Json => output::print_json(&report).map_err(Fail::from),
        Format::Csv => output::print_record(
            Format::Csv,
            &report,
            vec![
                ("valid", outcome.is_ok().to_string()),
                ("file", a.file.display().to_string()),
                ("document", document.id.clone()),
                ("code", or_empty(&document.code)),
            ],
        )
        .map_err(Fail::from),
        Format::Table if outcome.is_ok() => {
            let signer = document.signed_by.as_ref();
            let at = document
                .signed_at
                .as_deref()
                .map_or("?".into(), output::brasilia);
            let code = document.code.as_deref().unwrap_or("?");
            match &a.document_json {
                // The signature covers the _ids, the time and the code, not the names a JSON
                // file holds: offline, only what it covers is said as checked.
                Some(path) => {
                    output::print_line(format_args!(
                        "OK: {} is the file of document {}, signed by user {} at {at}, code {code}",
                        a.file.display(),
                        document.id,
                        signer.map_or("?", |p| p.id.as_str()),
                    ))?;
                    output::note(format!(
                        "note: the names in {} (document {:?}, signer {:?}) are not covered by the \
                         signature: check them with `registry document show {}`",
                        path.display(),
                        document.name,
                        signer.map_or("?", |p| p.name.as_str()),
                        document.id
                    ));
                    Ok(())
                }
                None => output::print_line(format_args!(
                    "OK: {} is the file of document {} ({}), signed by {} at {at}, code {code}",
                    a.file.display(),
                    document.name,
                    document.id,
                    signer.map_or("?", |p| p.name.as_str()),
                ))
                .map_err(Fail::from),
            }
        }
        Format::Table => Ok(()),
    };
    // Offline the document is named by its _id alone: the name a JSON file holds is not signed.
    let named = match &a.document_json {
        Some(_) => document.id.clone(),
        None => format!("{} ({})", document.name, document.id),
    };
    outcome.map_err(|e| {
        Fail::Rejected(format!(
            "{} does not verify against document {named}: {e}",
            a.file.display(),
        ))
    })?;
    printed
}
