//! The scheduled e-mail worker: claims due schedules (each by exactly one instance), sends the
//! released document through the `Mailer`, and records the outcome, retrying with exponential
//! backoff.

use crate::app::AppState;
use crate::db::{new_id, timestamp};
use crate::store::audit;
use crate::store::documents::{self as store, ClaimedEmail};
use anyhow::Context;
use chrono::Utc;
use lettre::Message;
use lettre::message::{Attachment, MultiPart, SinglePart, header::ContentType};
use std::time::Duration;

/// Files up to this size travel as attachments; larger ones only by link.
const MAX_ATTACHMENT: i64 = 10 * 1024 * 1024;
/// Schedules claimed per round.
const BATCH: i64 = 20;
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// Runs the worker until the task is aborted.
pub fn spawn(state: AppState) -> tokio::task::JoinHandle<()> {
    let instance = new_id();
    tokio::spawn(async move {
        let poll = state.config.documents.email_poll_interval;
        loop {
            match run_once(&state, &instance).await {
                // A full batch: more may be due right now.
                Ok(n) if n as i64 == BATCH => continue,
                Ok(_) => {}
                Err(e) => tracing::warn!(error = format!("{e:#}"), "e-mail worker round failed"),
            }
            tokio::time::sleep(poll).await;
        }
    })
}

/// One round: claim what is due, send each, record each outcome. Returns how many were claimed.
pub async fn run_once(state: &AppState, instance: &str) -> anyhow::Result<usize> {
    let settings = &state.config.documents;
    let started = Utc::now();
    let lease = chrono::Duration::from_std(settings.email_claim_lease)?;
    let mut tx = state.db.begin().await?;
    let claimed = store::claim_due(
        &mut tx,
        state.db.backend,
        instance,
        &timestamp(started),
        &timestamp(started + lease),
        BATCH,
    )
    .await?;
    tx.commit().await?;
    for job in &claimed {
        let outcome = send(state, job).await;
        let now = Utc::now();
        let (error, retry_at) = match &outcome {
            Ok(()) => (None, None),
            Err(e) => {
                let attempt = job.attempts + 1;
                let retry = (attempt < settings.email_max_attempts).then(|| {
                    let factor = 2u32.saturating_pow((attempt - 1).clamp(0, 20) as u32);
                    let delay = settings
                        .email_retry_base
                        .saturating_mul(factor)
                        .min(MAX_BACKOFF);
                    timestamp(now + chrono::Duration::from_std(delay).unwrap_or_default())
                });
                (Some(format!("{e:#}")), retry)
            }
        };
        let mut tx = state.db.begin().await?;
        let held = store::record_attempt(
            &mut tx,
            &job.id,
            instance,
            error.as_deref(),
            retry_at.as_deref(),
            &timestamp(now),
        )
        .await?;
        if !held {
            tracing::warn!(schedule = %job.id, "e-mail claim lapsed before its outcome was recorded");
            continue;
        }
        let action = match (&error, &retry_at) {
            (None, _) => "email_sent",
            (Some(_), Some(_)) => "email_retry",
            (Some(_), None) => "email_failed",
        };
        let detail = serde_json::json!({
            "_id": job.id, "to": job.recipients, "attempt": job.attempts + 1,
            "error": error, "nextAttemptAt": retry_at,
        });
        audit::record(
            &mut tx,
            audit::Change {
                entity: "document",
                entity_id: &job.document_id,
                action,
                actor: None,
                before: None,
                after: Some(&detail),
                role_changes: &[],
            },
        )
        .await?;
        tx.commit().await?;
        match &error {
            None => tracing::info!(schedule = %job.id, "scheduled e-mail sent"),
            Some(e) => {
                tracing::warn!(schedule = %job.id, error = %e, retry = ?retry_at, "scheduled e-mail not sent")
            }
        }
    }
    Ok(claimed.len())
}

async fn send(state: &AppState, job: &ClaimedEmail) -> anyhow::Result<()> {
    let doc = {
        let mut conn = state.db.read().await?;
        store::state(&mut conn, &job.document_id)
            .await?
            .context("the document was deleted")?
    };
    let link = format!(
        "{}/api/document/{}/file",
        state.config.public_url.trim_end_matches('/'),
        job.document_id
    );
    let attach = doc.size <= MAX_ATTACHMENT;
    let text = format!(
        "{name}\nInstalação: {facility}\nSituação: {status}\n\n{note}\nDownload: {link}\n",
        name = doc.name,
        facility = doc.facility_name,
        status = doc.status,
        note = if attach {
            "O documento segue em anexo."
        } else {
            "O arquivo é grande demais para anexo; baixe-o pelo link."
        },
    );
    let mut builder = Message::builder()
        .from(state.mailer.from().clone())
        .subject(format!("{} — {}", doc.name, doc.facility_name));
    for to in &job.recipients {
        builder = builder.to(to
            .parse()
            .with_context(|| format!("invalid recipient {to}"))?);
    }
    let body = SinglePart::plain(text);
    let message = if attach {
        let file = {
            let mut conn = state.db.read().await?;
            store::file(&mut conn, &job.document_id, None)
                .await?
                .context("the document has no file")?
        };
        let bytes = state.objects.read(&file.sha256).await?;
        let kind = ContentType::parse(&file.content_type).unwrap_or(ContentType::TEXT_PLAIN);
        builder.multipart(
            MultiPart::mixed()
                .singlepart(body)
                .singlepart(Attachment::new(file.name).body(bytes, kind)),
        )
    } else {
        builder.singlepart(body)
    }
    .context("cannot build the message")?;
    state.mailer.deliver(message).await
}
