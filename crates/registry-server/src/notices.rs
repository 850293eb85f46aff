//! Notices and the daily digest worker. `gather` finds what needs a facility's responsible people;
//! once a day (from the configured hour, Brasília time) one instance plans a digest per facility
//! (`notice_runs` has one row per day, so only the instance that inserts it plans), and every
//! digest is then claimed, sent and recorded like the scheduled e-mails: exactly once across
//! instances, retried with backoff, its outcome kept in `notice_digests` and the audit log.

use crate::config::NoticeSettings;
use crate::db::Conn;
use crate::db::{new_id, timestamp};
use crate::email_worker::{Attempt, Lease, Outgoing, repeat_rounds, send_round};
use crate::mail::Refused;
use crate::state::AppState;
use crate::store::claims::Queue;
use crate::store::material::{self as store, Digest, Scope};
use anyhow::Context;
use chrono::{DateTime, Days, NaiveDate, Timelike, Utc};
use lettre::message::header::ContentType;
use registry_core::equipment::Reference;
use registry_core::material::{IsoWeek, brasilia, exceeds, nano};
use registry_core::notice::{Notice, NoticeKind, digest};

/// Everything that needs attention on `today` in the facilities of `scope`, by facility and kind.
pub async fn gather(
    conn: &mut Conn,
    scope: &Scope,
    today: NaiveDate,
    settings: &NoticeSettings,
) -> anyhow::Result<Vec<Notice>> {
    let day = today.to_string();
    let qc_limit = (today + Days::new(settings.qc_lead_days)).to_string();
    let validity_limit = (today + Days::new(settings.validity_lead_days)).to_string();
    let mut notices = Vec::new();
    for (facility, equipment, test, due) in store::qc_due_by(conn, scope, &qc_limit).await? {
        notices.push(Notice {
            kind: if due < day {
                NoticeKind::QcOverdue
            } else {
                NoticeKind::QcDueSoon
            },
            record: equipment.id.clone(),
            facility,
            equipment: Some(equipment),
            subject: test,
            date: due,
        });
    }
    for l in store::licences_ending_by(conn, scope, &validity_limit).await? {
        let state = if l.validity < day { "vencida" } else { "vence" };
        let number = l.number.map(|n| format!(" nº {n}")).unwrap_or_default();
        notices.push(Notice {
            kind: NoticeKind::LicenceExpiring,
            facility: l.facility,
            equipment: None,
            subject: format!("Licença {}{number} de {} ({state})", l.kind, l.user.name),
            date: l.validity,
            record: l.user.id,
        });
    }
    for (facility, equipment, document, validity) in
        store::documents_ending_between(conn, scope, &day, &validity_limit).await?
    {
        notices.push(Notice {
            kind: NoticeKind::DocumentExpiring,
            facility,
            equipment,
            subject: document.name,
            date: validity,
            record: document.id,
        });
    }
    for w in store::releasable_waste(conn, scope, &day).await? {
        let isotopes: Vec<&str> = w.contents.iter().map(|c| c.radioisotope.as_str()).collect();
        notices.push(Notice {
            kind: NoticeKind::WasteReleasable,
            facility: w.facility,
            equipment: None,
            subject: format!(
                "Pacote {} ({}) em {}",
                w.form.as_str().to_lowercase(),
                isotopes.join(", "),
                w.location
            ),
            date: w.release_date,
            record: w.id,
        });
    }
    let this_week = IsoWeek::of_day(today);
    let weeks = [this_week.previous().to_string(), this_week.to_string()];
    // Judged as the usage endpoint judges it: the week's total against today's authorisation.
    for (facility, isotope, week, total, quantity) in store::weekly_totals(conn, scope, &weeks)
        .await?
        .into_iter()
        .filter(|(_, _, _, total, quantity)| exceeds(*quantity, *total))
    {
        let monday = IsoWeek::parse(&week)
            .map(|w| w.monday().to_string())
            .unwrap_or_default();
        let authorised = quantity
            .map(|q| format!("autorizado {} mCi", nano(q)))
            .unwrap_or_else(|| "não autorizado".into());
        notices.push(Notice {
            kind: NoticeKind::QuantityExceeded,
            record: facility.id.clone(),
            facility,
            equipment: None,
            subject: format!(
                "{isotope}: {} mCi recebidos na semana {week} ({authorised})",
                nano(total)
            ),
            date: monday,
        });
    }
    // By name as a reader sorts it (`alfa` and `Álfa` beside `Ana`, not after `Zeta`), each
    // facility's together (two of one name: the older first), then kind, then date.
    notices.sort_by_cached_key(|n| {
        (
            registry_core::text::search_key(&n.facility.name),
            n.facility.name.clone(),
            n.facility.id.clone(),
            n.kind,
            n.date.clone(),
        )
    });
    Ok(notices)
}

/// Runs the digest rounds until the task is aborted (inside the e-mail worker's task, see
/// the server's mail worker); returns at once when the digest is turned off.
pub async fn run(state: &AppState, instance: &str) {
    if state.config.notices.digest_hour.is_none() {
        return;
    }
    repeat_rounds(state, "notice digest", || {
        run_once(state, instance, Utc::now())
    })
    .await
}

/// One round at `now`: plans the day's digests if the hour has come and no instance planned them
/// yet, then claims what is due, sends each and records each outcome. Returns how many digests
/// were claimed.
pub async fn run_once(
    state: &AppState,
    instance: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let settings = &state.config.notices;
    let local = now.with_timezone(&brasilia());
    if settings.digest_hour.is_some_and(|h| local.hour() >= h) {
        plan(state, instance, local.date_naive(), now).await?;
    }
    send_round::<Digest>(state, instance, now).await
}

/// Plans `day`'s digests in one transaction with the row that marks the day as planned: either
/// every digest of the day is stored, or none and the day is still open.
async fn plan(
    state: &AppState,
    instance: &str,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    if store::day_planned(&mut state.db.read().await?, &day.to_string()).await? {
        return Ok(());
    }
    let at = timestamp(now);
    let mut tx = state.db.begin().await?;
    if !store::claim_day(&mut tx, &day.to_string(), instance, &at).await? {
        return Ok(());
    }
    let notices = gather(&mut tx, &Scope::default(), day, &state.config.notices).await?;
    let mut planned = 0;
    for group in notices.chunk_by(|a, b| a.facility.id == b.facility.id) {
        let facility: &Reference = &group[0].facility;
        let recipients = store::responsible_emails(&mut tx, &facility.id).await?;
        if recipients.is_empty() {
            tracing::warn!(facility = %facility.id, "notices but no active Titular, RT or Supervisor to send them to");
            continue;
        }
        let Some((subject, body)) = digest(&facility.name, &day.to_string(), group) else {
            continue;
        };
        let d = Digest {
            id: new_id(),
            day: day.to_string(),
            facility_id: facility.id.clone(),
            recipients,
            subject,
            body,
            item_count: group.len() as i64,
            attempts: 0,
        };
        store::insert_digest(&mut tx, &d, &at).await?;
        planned += 1;
    }
    tx.commit().await?;
    tracing::info!(%day, digests = planned, "planned the day's notice digests");
    Ok(())
}

impl Outgoing for Digest {
    async fn claim(conn: &mut Conn, l: &Lease<'_>) -> Result<Vec<Self>, sqlx::Error> {
        store::claim_digests(conn, l.instance, l.now, l.until, l.limit).await
    }

    async fn send(&self, state: &AppState) -> anyhow::Result<Vec<Refused>> {
        let mut builder = state
            .mailer
            .message()
            .subject(self.subject.clone())
            .header(ContentType::TEXT_PLAIN);
        for to in &self.recipients {
            builder = builder.to(to
                .parse()
                .with_context(|| format!("invalid recipient {to}"))?);
        }
        let message = builder
            .body(self.body.clone())
            .context("cannot build the message")?;
        state.mailer.deliver(message).await
    }

    fn attempt(&self) -> Attempt<'_> {
        Attempt {
            queue: Queue::NoticeDigests,
            id: &self.id,
            attempts: self.attempts,
            kind: "digest",
            entity: "facility",
            entity_id: &self.facility_id,
            detail: serde_json::json!({"day": self.day, "to": self.recipients, "items": self.item_count}),
        }
    }
}
