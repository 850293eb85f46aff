//! What the notices read (QC tests falling due, licences and documents ending, waste to release,
//! weeks over the authorised quantity, whom to tell), and the daily digests (planned once per
//! day, claimed by exactly one instance each).
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::claims::Claimed;
use super::material::{Filter, radioisotope, reference};
use super::row::{day, day_opt, exists, json};
use super::waste::{WASTE_COLUMNS, WASTE_FROM, waste_from_row};
use super::{Connection, DbRow};
use crate::store::model::claims::Queue;
use crate::store::model::material::*;
use crate::store::types::{Day, JsonText, Param, Ts};
use registry_core::Radioisotope;
use registry_core::equipment::Reference;
use registry_core::waste::WastePackage;
use sqlx::Row;

/// The text columns among `cols` that are not null, in their order.
fn present_texts(r: &DbRow, cols: &[&str]) -> Result<Vec<String>, sqlx::Error> {
    Ok(cols
        .iter()
        .map(|c| r.try_get::<Option<String>, _>(*c))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect())
}

/// A QC test due on or before `limit` on active equipment: `(facility, equipment, test name, next due)`.
pub async fn qc_due_by(
    conn: &mut Connection,
    scope: &Scope,
    limit: &str,
) -> Result<Vec<(Reference, Reference, String, String)>, sqlx::Error> {
    let mut filter = Filter::new(scope, "e");
    filter.clauses.push(
        "e.archived_at IS NULL AND e.active = TRUE AND t.equipment_type_id = e.equipment_type_id"
            .into(),
    );
    filter.add_day("l.next_due <= $?", limit);
    let sql = format!(
        "SELECT f.id AS facility_id, f.name AS facility_name, e.id AS equipment_id, e.manufacturer, e.model, \
         e.serial_number, et.name AS equipment_type_name, t.name AS test_name, l.next_due \
         FROM qc_last l JOIN equipment e ON e.id = l.equipment_id JOIN test_types t ON t.id = l.test_type_id \
         JOIN facilities f ON f.id = e.facility_id JOIN equipment_types et ON et.id = e.equipment_type_id \
         WHERE {} ORDER BY l.next_due, e.id, t.name",
        filter.sql()
    );
    let rows = filter.fetch(conn, sql).await?;
    rows.iter()
        .map(|r| {
            let parts = present_texts(r, &["manufacturer", "model"])?;
            let mut name = if parts.is_empty() {
                r.try_get::<String, _>("equipment_type_name")?
            } else {
                parts.join(" ")
            };
            if let Some(serial) = r.try_get::<Option<String>, _>("serial_number")? {
                name.push_str(&format!(" (série {serial})"));
            }
            Ok((
                reference(r, "facility_id", "facility_name")?,
                Reference {
                    id: r.try_get("equipment_id")?,
                    name,
                },
                r.try_get("test_name")?,
                day(r, "next_due")?,
            ))
        })
        .collect()
}

pub async fn licences_ending_by(
    conn: &mut Connection,
    scope: &Scope,
    limit: &str,
) -> Result<Vec<LicenceEnd>, sqlx::Error> {
    let mut filter = Filter::new(scope, "fu");
    filter.clauses.push("u.active = TRUE".into());
    filter.add_day(
        "((u.an_license_validity IS NOT NULL AND u.an_license_validity <= $?) OR (u.fm_license_validity IS NOT NULL AND u.fm_license_validity <= $?))",
        limit,
    );
    let sql = format!(
        "SELECT f.id AS facility_id, f.name AS facility_name, u.id AS user_id, u.name AS user_name, \
         u.an_license_number, u.an_license_validity, u.fm_license_number, u.fm_license_validity \
         FROM facility_users fu JOIN facilities f ON f.id = fu.facility_id JOIN users u ON u.id = fu.user_id \
         WHERE {} ORDER BY f.name, f.id, u.name, u.id",
        filter.sql()
    );
    let mut out = Vec::new();
    for r in filter.fetch(conn, sql).await? {
        for (kind, number, validity) in [
            ("AN", "an_license_number", "an_license_validity"),
            ("FM", "fm_license_number", "fm_license_validity"),
        ] {
            let Some(v) = day_opt(&r, validity)? else {
                continue;
            };
            if v.as_str() > limit {
                continue;
            }
            out.push(LicenceEnd {
                facility: reference(&r, "facility_id", "facility_name")?,
                user: reference(&r, "user_id", "user_name")?,
                kind,
                number: r.try_get(number)?,
                validity: v,
            });
        }
    }
    Ok(out)
}

/// Live documents whose validity ends within `[from, to]`: `(facility, equipment, document, validity)`.
pub async fn documents_ending_between(
    conn: &mut Connection,
    scope: &Scope,
    from: &str,
    to: &str,
) -> Result<Vec<(Reference, Option<Reference>, Reference, String)>, sqlx::Error> {
    let mut filter = Filter::new(scope, "d");
    filter.clauses.push("d.archived_at IS NULL".into());
    filter.add_day("d.validity >= $?", from);
    filter.add_day("d.validity <= $?", to);
    let sql = format!(
        "SELECT f.id AS facility_id, f.name AS facility_name, d.id, d.name, d.validity, d.equipment_id, \
         e.manufacturer, e.model, e.serial_number \
         FROM documents d JOIN facilities f ON f.id = d.facility_id LEFT JOIN equipment e ON e.id = d.equipment_id \
         WHERE {} ORDER BY d.validity, d.id",
        filter.sql()
    );
    let rows = filter.fetch(conn, sql).await?;
    rows.iter()
        .map(|r| {
            let equipment = match r.try_get::<Option<String>, _>("equipment_id")? {
                Some(id) => {
                    let name = present_texts(r, &["manufacturer", "model", "serial_number"])?;
                    Some(Reference {
                        id,
                        name: name.join(" "),
                    })
                }
                None => None,
            };
            Ok((
                reference(r, "facility_id", "facility_name")?,
                equipment,
                reference(r, "id", "name")?,
                day(r, "validity")?,
            ))
        })
        .collect()
}

/// Stored packages whose release date is on or before `today`.
pub async fn releasable_waste(
    conn: &mut Connection,
    scope: &Scope,
    today: &str,
) -> Result<Vec<WastePackage>, sqlx::Error> {
    let mut filter = Filter::new(scope, "w");
    filter.add_day("w.released_at IS NULL AND w.release_date <= $?", today);
    let sql = format!(
        "SELECT {WASTE_COLUMNS} {WASTE_FROM} WHERE {} ORDER BY w.release_date, w.id",
        filter.sql()
    );
    let rows = filter.fetch(conn, sql).await?;
    rows.iter().map(|r| waste_from_row(r, today)).collect()
}

/// `(facility, isotope, week, total, authorised)` for each isotope received in each week among
/// `weeks`, with the facility's authorised quantity today.
pub async fn weekly_totals(
    conn: &mut Connection,
    scope: &Scope,
    weeks: &[String],
) -> Result<Vec<(Reference, Radioisotope, String, f64, Option<f64>)>, sqlx::Error> {
    let mut filter = Filter::new(scope, "r");
    let first = filter.binds.len() + 1;
    filter.binds.extend(weeks.iter().map(|w| Param::text(w)));
    filter.clauses.push(format!(
        "r.week IN ({})",
        crate::db::placeholders(first, weeks.len())
    ));
    let sql = format!(
        "SELECT f.id AS facility_id, f.name AS facility_name, r.radioisotope, r.week, SUM(r.activity_at_receipt) AS total, \
         MAX(fr.quantity) AS quantity \
         FROM material_receipts r JOIN facilities f ON f.id = r.facility_id \
         LEFT JOIN facility_radioisotopes fr ON fr.facility_id = r.facility_id AND fr.name = r.radioisotope \
         WHERE {} GROUP BY f.id, f.name, r.radioisotope, r.week \
         ORDER BY r.week, f.name, r.radioisotope",
        filter.sql()
    );
    let rows = filter.fetch(conn, sql).await?;
    rows.iter()
        .map(|r| {
            Ok((
                reference(r, "facility_id", "facility_name")?,
                radioisotope(r, "radioisotope")?,
                r.try_get("week")?,
                r.try_get("total")?,
                r.try_get("quantity")?,
            ))
        })
        .collect()
}

/// The e-mail addresses of the active Titular, Responsável Técnico and Supervisor of a facility.
pub async fn responsible_emails(
    conn: &mut Connection,
    facility_id: &str,
) -> Result<Vec<String>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT u.email, fu.responsibilities FROM facility_users fu JOIN users u ON u.id = fu.user_id \
         WHERE fu.facility_id = $1 AND u.active = TRUE ORDER BY fu.position",
    )
    .bind(facility_id)
    .fetch_all(conn)
    .await?;
    let mut emails = Vec::new();
    for r in rows {
        let held: Vec<String> =
            serde_json::from_str(&json(&r, "responsibilities")?).unwrap_or_default();
        let responsible = held
            .iter()
            .any(|h| matches!(h.as_str(), "Titular" | "Responsável Técnico" | "Supervisor"));
        let email: String = r.try_get("email")?;
        if responsible && !emails.contains(&email) {
            emails.push(email);
        }
    }
    Ok(emails)
}

// ---------------------------------------------------------------------------------------------
// Digests

/// Whether some instance planned `day` already (a read, so that polls after the hour do not take
/// the writer).
pub async fn day_planned(conn: &mut Connection, day: &str) -> Result<bool, sqlx::Error> {
    let sql = "SELECT COUNT(*) FROM notice_runs WHERE day = $1";
    exists(conn, sql, &[Param::Day(day.to_owned())]).await
}

/// Marks `day` as planned by `instance`; `false` when another instance planned it already.
pub async fn claim_day(
    conn: &mut Connection,
    day: &str,
    instance: &str,
    now: &str,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO notice_runs (day, planned_by, created_at) VALUES ($1, $2, $3) ON CONFLICT (day) DO NOTHING",
    )
    .bind(Day(day))
    .bind(instance)
    .bind(Ts(now))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn insert_digest(
    conn: &mut Connection,
    d: &Digest,
    now: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO notice_digests (id, day, facility_id, recipients, subject, body, item_count, status, attempts, \
         next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, $8, $8)",
    )
    .bind(&d.id)
    .bind(Day(&d.day))
    .bind(&d.facility_id)
    .bind(JsonText(serde_json::to_string(&d.recipients).unwrap_or_default()))
    .bind(&d.subject)
    .bind(&d.body)
    .bind(d.item_count)
    .bind(Ts(now))
    .execute(conn)
    .await?;
    Ok(())
}

/// Claims due digests for `instance` until `until` (see `claims::claim`).
pub(crate) use super::claims::claim as claim_digests;

impl Claimed for Digest {
    const QUEUE: Queue = Queue::NoticeDigests;
    const COLUMNS: &'static str = "day, facility_id, recipients, subject, body, item_count, attempts";

    fn from_row(r: &DbRow) -> Result<Self, sqlx::Error> {
        Ok(Digest {
            id: r.try_get("id")?,
            day: day(r, "day")?,
            facility_id: r.try_get("facility_id")?,
            recipients: serde_json::from_str(&json(r, "recipients")?).unwrap_or_default(),
            subject: r.try_get("subject")?,
            body: r.try_get("body")?,
            item_count: r.try_get("item_count")?,
            attempts: r.try_get("attempts")?,
        })
    }
}
