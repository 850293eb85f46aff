//! The scheduled e-mail worker: claims due schedules (each by exactly one instance), sends the
//! released document through the `Mailer`, and records the outcome, retrying with exponential
//! backoff.

use crate::config::DocumentSettings;
use crate::db::{Conn, timestamp};
use crate::mail::Refused;
use crate::state::AppState;
use crate::store::audit;
use crate::store::claims::{self, Queue};
use crate::store::documents::{self as store, ClaimedEmail};
use anyhow::Context;
use chrono::{DateTime, Utc};
use lettre::message::{Attachment, MultiPart, SinglePart, header::ContentType};
use registry_core::document::{FileLink, LINK_DAYS};
use std::time::Duration;

/// Files up to this size travel as attachments; larger ones only by link.
const MAX_ATTACHMENT: i64 = 10 * 1024 * 1024;
/// Rows claimed per round, in every queue.
const BATCH: i64 = 20;
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// Sends the scheduled document e-mails as they fall due, until the task is aborted (the server
/// runs it beside the notice digests, under one instance id).
pub async fn run(state: &AppState, instance: &str) {
    repeat_rounds(state, "e-mail worker", || run_once(state, instance)).await
}

/// Runs `round` again at once while it claims a full batch, else after the poll interval, until
/// the task is aborted; a failed round is logged and tried again at the next poll.
pub async fn repeat_rounds<F, R>(state: &AppState, what: &str, mut round: R)
where
    R: FnMut() -> F,
    F: Future<Output = anyhow::Result<usize>>,
{
    let poll = state.config.documents.email_poll_interval;
    loop {
        match round().await {
            // A full batch: more may be due right now.
            Ok(n) if n as i64 == BATCH => continue,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = format!("{e:#}"), "{what} round failed"),
        }
        tokio::time::sleep(poll).await;
    }
}

/// One round: claim what is due, send each, record each outcome. Returns how many were claimed.
pub async fn run_once(state: &AppState, instance: &str) -> anyhow::Result<usize> {
    send_round::<ClaimedEmail>(state, instance, Utc::now()).await
}

/// A row of an e-mail queue: claimed by one instance, sent, its outcome recorded.
pub trait Outgoing: Sized + Sync {
    /// Claims the rows that `lease` names.
    fn claim(
        conn: &mut Conn,
        lease: &Lease<'_>,
    ) -> impl Future<Output = Result<Vec<Self>, sqlx::Error>> + Send;

    /// Sends the message: the recipients the mail server refused while others took it.
    fn send(&self, state: &AppState) -> impl Future<Output = anyhow::Result<Vec<Refused>>> + Send;

    /// What the outcome of sending is recorded against.
    fn attempt(&self) -> Attempt<'_>;
}

/// What a round claims: up to `limit` rows due at `now`, for `instance` until `until`.
pub struct Lease<'a> {
    pub instance: &'a str,
    pub now: &'a str,
    pub until: &'a str,
    pub limit: i64,
}

/// One round of `J`'s queue at `now`: claim up to a batch of what is due (one transaction), send
/// each, record each outcome. Returns how many were claimed.
pub async fn send_round<J: Outgoing>(
    state: &AppState,
    instance: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let lease = chrono::Duration::from_std(state.config.documents.email_claim_lease)?;
    let mut tx = state.db.begin().await?;
    let deadline = now + lease;
    let (now, until) = (timestamp(now), timestamp(deadline));
    let lease = Lease {
        instance,
        now: &now,
        until: &until,
        limit: BATCH,
    };
    let claimed = J::claim(&mut tx, &lease).await?;
    if claimed.is_empty() {
        // Nothing written: no commit, so the read caches stay warm.
        return Ok(0);
    }
    tx.commit().await?;
    let timeout = state.config.documents.email_send_timeout;
    let send_timeout = chrono::Duration::from_std(timeout)?;
    for (sent, job) in claimed.iter().enumerate() {
        // A message is sent only while the claim surely outlasts it: once the claim lapses
        // another instance may take the row, and both would send it. The rows left are taken
        // again when their claim lapses.
        if Utc::now() + send_timeout >= deadline {
            let left = claimed.len() - sent;
            tracing::warn!(
                left,
                "claim too close to its end; the rest waits for it to lapse"
            );
            break;
        }
        let outcome = match tokio::time::timeout(timeout, job.send(state)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(anyhow::anyhow!(
                "the mail server did not answer within {} seconds",
                timeout.as_secs_f64()
            )),
        };
        record_outcome(state, instance, job.attempt(), outcome).await?;
    }
    Ok(claimed.len())
}

impl Outgoing for ClaimedEmail {
    async fn claim(conn: &mut Conn, l: &Lease<'_>) -> Result<Vec<Self>, sqlx::Error> {
        store::claim_due(conn, l.instance, l.now, l.until, l.limit).await
    }

    /// The document, attached when small enough, and always its download link.
    async fn send(&self, state: &AppState) -> anyhow::Result<Vec<Refused>> {
        let doc = {
            let mut conn = state.db.read().await?;
            store::state(&mut conn, &self.document_id)
                .await?
                .context("the document was deleted, or its facility archived")?
        };
        // The link carries its own permission (signed, for LINK_DAYS): the recipients named in
        // `to` often have no account, and a file too large to attach reaches them only this way.
        let expires = Utc::now().timestamp() + LINK_DAYS * 86_400;
        let permission = FileLink {
            id: &self.document_id,
            version: doc.file_version,
            expires,
        }
        .query(&state.signing_key);
        let link = format!(
            "{}/api/document/{}/file?{permission}",
            state.config.public_url.trim_end_matches('/'),
            self.document_id
        );
        let attach = doc.size <= MAX_ATTACHMENT;
        let text = format!(
            "{name}\nInstalação: {facility}\nSituação: {status}\n\n{note}\n\
             Download (link válido por {LINK_DAYS} dias): {link}\n",
            name = doc.name,
            facility = doc.facility_name,
            status = doc.status,
            note = if attach {
                "O documento segue em anexo."
            } else {
                "O arquivo é grande demais para anexo; baixe-o pelo link."
            },
        );
        if self.recipients.is_empty() {
            anyhow::bail!("the facility has no active users to send to");
        }
        let mut builder = state
            .mailer
            .message()
            .subject(format!("{} — {}", doc.name, doc.facility_name));
        for to in &self.recipients {
            builder = builder.to(to
                .parse()
                .with_context(|| format!("invalid recipient {to}"))?);
        }
        let body = SinglePart::plain(text);
        let message = if attach {
            let file = {
                let mut conn = state.db.read().await?;
                store::file(&mut conn, &self.document_id, None)
                    .await?
                    .context("the document has no file")?
            };
            let bytes = state
                .objects
                .read(&file.sha256)
                .await
                .context("the document's file could not be read")?;
            let kind = ContentType::parse(&file.content_type).unwrap_or(ContentType::TEXT_PLAIN);
            builder.multipart(
                MultiPart::mixed()
                    .singlepart(body)
                    .singlepart(Attachment::new(attachment_name(&file.name)).body(bytes, kind)),
            )
        } else {
            builder.singlepart(body)
        }
        .context("cannot build the message")?;
        state.mailer.deliver(message).await
    }

    fn attempt(&self) -> Attempt<'_> {
        Attempt {
            queue: Queue::EmailSchedules,
            id: &self.id,
            attempts: self.attempts,
            kind: "email",
            entity: "document",
            entity_id: &self.document_id,
            detail: serde_json::json!({"to": self.recipients}),
        }
    }
}

/// The file name an attachment carries: the stored name with a quote or backslash replaced, as
/// the download's `Content-Disposition` does (lettre writes them percent-encoded, and encodes
/// that again in the RFC 2231 form of a name with accents: `a"b` arrived as `a%22b`).
fn attachment_name(name: &str) -> String {
    name.replace(['"', '\\'], "_")
}

/// After attempt number `attempts + 1` ended with `outcome` at `now`: the error to record and,
/// while attempts remain, when to try again (exponential backoff from the base delay, at most an
/// hour apart). Shared by every e-mail queue (scheduled documents, notice digests). The recorded
/// error is the outermost context only (what failed, as `Mailer::deliver` and the file read say
/// it), since whoever reads the document sees it; the whole chain, with paths, hosts and the
/// mail server's text, goes to the log.
pub fn next_attempt(
    settings: &DocumentSettings,
    attempts: i64,
    failure: Option<&anyhow::Error>,
    now: DateTime<Utc>,
) -> (Option<String>, Option<String>) {
    let Some(e) = failure else {
        return (None, None);
    };
    let attempt = attempts + 1;
    let retry = (attempt < settings.email_max_attempts).then(|| {
        let factor = 2u32.saturating_pow((attempt - 1).clamp(0, 20) as u32);
        let delay = settings
            .email_retry_base
            .saturating_mul(factor)
            .min(MAX_BACKOFF);
        timestamp(now + chrono::Duration::from_std(delay).unwrap_or_default())
    });
    tracing::warn!(
        error = format!("{e:#}"),
        attempt,
        "an e-mail attempt failed"
    );
    let shown = match e.downcast_ref::<sqlx::Error>() {
        // A database error with no context of ours: its text is the driver's.
        Some(db) if db.to_string() == e.to_string() => "the database could not be read".to_owned(),
        _ => e.to_string(),
    };
    (Some(shown), retry)
}

/// The audit action of an attempt's outcome: `{kind}_sent`, `{kind}_retry` or `{kind}_failed`.
fn outcome_action(kind: &str, outcome: &claims::Outcome<'_>) -> String {
    let what = match outcome.status() {
        "pending" => "retry",
        status => status,
    };
    format!("{kind}_{what}")
}

/// One attempt at a queued e-mail, and what its outcome is recorded against.
pub struct Attempt<'a> {
    pub queue: Queue,
    pub id: &'a str,
    /// Attempts before this one.
    pub attempts: i64,
    /// Prefix of the audit action (`email_sent`, `digest_retry`, …).
    pub kind: &'a str,
    /// The record whose audit log gets the outcome.
    pub entity: &'a str,
    pub entity_id: &'a str,
    /// Fields of the audit detail besides `_id`, `attempt`, `error` and `nextAttemptAt`.
    pub detail: serde_json::Value,
}

/// Records an attempt's outcome (sent, retry at a later time, or failed) in its queue and in the
/// audit log, in one transaction, if this instance still holds the claim. A message sent while
/// the mail server refused some of its recipients is sent, and its `lastError` (and the audit
/// event's `refused`) names those.
pub async fn record_outcome(
    state: &AppState,
    instance: &str,
    attempt: Attempt<'_>,
    outcome: anyhow::Result<Vec<Refused>>,
) -> anyhow::Result<()> {
    let now = Utc::now();
    let settings = &state.config.documents;
    let (error, retry_at) = next_attempt(settings, attempt.attempts, outcome.as_ref().err(), now);
    let refused = outcome.unwrap_or_default();
    let not_delivered = (!refused.is_empty()).then(|| {
        let each: Vec<String> = refused
            .iter()
            .map(|r| format!("{}: {}", r.to, r.why))
            .collect();
        format!("not delivered to {}", each.join("; "))
    });
    let recorded = claims::Outcome {
        error: error.as_deref(),
        not_delivered: not_delivered.as_deref(),
        retry_at: retry_at.as_deref(),
    };
    let mut tx = state.db.begin().await?;
    let held = claims::record_attempt(
        &mut tx,
        attempt.queue,
        attempt.id,
        instance,
        recorded,
        &timestamp(now),
    )
    .await?;
    if !held {
        tracing::warn!(id = %attempt.id, kind = attempt.kind, "claim lapsed before the outcome was recorded");
        return Ok(());
    }
    let action = outcome_action(attempt.kind, &recorded);
    let mut detail = attempt.detail;
    if let Some(d) = detail.as_object_mut() {
        d.insert("_id".into(), attempt.id.into());
        d.insert("attempt".into(), (attempt.attempts + 1).into());
        d.insert("error".into(), error.clone().into());
        d.insert("nextAttemptAt".into(), retry_at.clone().into());
        if !refused.is_empty() {
            let each = refused
                .iter()
                .map(|r| serde_json::json!({"to": r.to, "error": r.why}));
            d.insert("refused".into(), each.collect());
        }
    }
    audit::record(
        &mut tx,
        audit::Change {
            entity: attempt.entity,
            entity_id: attempt.entity_id,
            action: &action,
            actor: None,
            before: None,
            after: Some(&detail),
            role_changes: &[],
        },
    )
    .await?;
    tx.commit().await?;
    match &error {
        None => tracing::info!(id = %attempt.id, kind = attempt.kind, "e-mail sent"),
        Some(e) => {
            tracing::warn!(id = %attempt.id, kind = attempt.kind, error = %e, retry = ?retry_at, "e-mail not sent")
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_attachment_name_keeps_its_accents_and_loses_its_quotes() {
        assert_eq!(
            super::attachment_name(r#"relatório "ação" \ final.pdf"#),
            "relatório _ação_ _ final.pdf"
        );
    }
}
