//! `registry document …`: list, show, upload and download (streamed, with a progress bar on a
//! terminal), sign, release, comment, schedule the e-mail, archive, and verify a signed file; one
//! file per command.

mod archive;
mod comment;
mod download;
mod list;
mod release;
mod review;
mod schedule_email;
mod show;
mod sign;
mod signing_key;
mod upload;
mod verify;
mod view;

use super::context::{Ctx, Fail, Globals};
use super::prompt::Confirmation;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum DocumentCommand {
    /// List documents, newest first (one page, or all with --all).
    List(list::ListArgs),
    /// Show one document with its signature, comments and file versions.
    Show {
        /// The document's _id.
        document: String,
    },
    /// Upload a PDF or image report (streamed from disk).
    Upload(upload::UploadArgs),
    /// Download a document's file (streamed to disk, checked against its SHA-256).
    Download(download::DownloadArgs),
    /// Sign a document awaiting signature (Físico, Administrator).
    Sign {
        /// The document's _id.
        document: String,
    },
    /// Hand a draft ("Em andamento") or a document to correct ("Corrigir") in for signing
    /// ("Falta assinar").
    Submit {
        /// The document's _id.
        document: String,
    },
    /// Send a document awaiting signature back for correction ("Corrigir"), with a comment on
    /// what to correct (Físico, Administrator).
    Return {
        /// The document's _id.
        document: String,
        /// What to correct, kept as a comment (prompted when missing).
        #[arg(long)]
        text: Option<String>,
    },
    /// Release a signed document to the facility (Administrator, Admin, Físico).
    Release {
        /// The document's _id.
        document: String,
    },
    /// Add a comment.
    Comment {
        /// The document's _id.
        document: String,
        /// The comment (prompted when missing).
        #[arg(long)]
        text: Option<String>,
    },
    /// E-mail a released document (default: now, to the facility's active users).
    ScheduleEmail {
        /// The document's _id.
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
    #[command(after_help = crate::cli::examples::DOCUMENT_VERIFY)]
    Verify(verify::VerifyArgs),
    /// The server's public key that signatures are checked with (base64), for `verify --key`.
    SigningKey,
    /// Delete a document (it leaves every list; its files and the audit log keep it).
    Archive {
        /// The document's _id.
        document: String,
        #[command(flatten)]
        confirmation: Confirmation,
    },
}

pub async fn run(globals: &Globals, command: DocumentCommand) -> Result<(), Fail> {
    // Which document a file is checked against is said before anything else.
    if let DocumentCommand::Verify(a) = &command
        && a.document.is_none()
        && a.document_json.is_none()
    {
        return Err(verify::neither_document());
    }
    // A check with the document's JSON and the key at hand needs no server at all.
    if let DocumentCommand::Verify(a) = &command
        && a.document_json.is_some()
        && a.key.is_some()
    {
        return verify::run(None, globals.format, a).await;
    }
    let ctx = Ctx::new(globals)?;
    let ctx = &ctx;
    match command {
        DocumentCommand::List(a) => list::run(ctx, a).await,
        DocumentCommand::Show { document } => show::run(ctx, &document).await,
        DocumentCommand::Upload(a) => upload::run(ctx, a).await,
        DocumentCommand::Download(a) => download::run(ctx, a).await,
        DocumentCommand::Sign { document } => sign::run(ctx, &document).await,
        DocumentCommand::Submit { document } => review::submit(ctx, &document).await,
        DocumentCommand::Return { document, text } => review::send_back(ctx, &document, text).await,
        DocumentCommand::Release { document } => release::run(ctx, &document).await,
        DocumentCommand::Comment { document, text } => comment::run(ctx, &document, text).await,
        DocumentCommand::ScheduleEmail { document, to, at } => {
            schedule_email::run(ctx, &document, &to, at.as_deref()).await
        }
        DocumentCommand::Verify(a) => verify::run(Some(ctx), ctx.format, &a).await,
        DocumentCommand::SigningKey => signing_key::run(ctx).await,
        DocumentCommand::Archive {
            document,
            confirmation,
        } => archive::run(ctx, &document, confirmation.yes).await,
    }
}
