//! Receipts of radioactive material, waste packages in decay storage, what the notices read, and
//! the daily digests (planned once per day, claimed by exactly one instance each).
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::row::{bind, day, day_opt, json, ts, ts_opt};
use super::{Connection, DbRow};
use crate::extract::ListParams;
use crate::store::claims::Queue;
use crate::store::material::*;
use crate::store::types::{Day, JsonText, Param, Ts};
use registry_core::Radioisotope;
use registry_core::equipment::Reference;
use registry_core::material::Receipt;
use registry_core::waste::{WasteContent, WasteForm, WastePackage, WasteRelease};
use sqlx::{AssertSqlSafe, Row};

fn decode(what: &str, e: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::Decode(format!("{what}: {e}").into())
}

/// `{_id, name}` from two columns.
fn reference(r: &DbRow, id: &str, name: &str) -> Result<Reference, sqlx::Error> {
    Ok(Reference {
        id: r.try_get(id)?,
        name: r.try_get(name)?,
    })
}

fn radioisotope(r: &DbRow, col: &str) -> Result<Radioisotope, sqlx::Error> {
    let s: String = r.try_get(col)?;
    Radioisotope::parse(&s).ok_or_else(|| decode("radioisotope", &s))
}

/// A `WHERE` clause being built with its text binds (`$?` stands for the next placeholder).
struct Filter {
    clauses: Vec<String>,
    binds: Vec<Param>,
}

impl Filter {
    fn new(scope: &Scope, alias: &str) -> Filter {
        let mut f = Filter {
            clauses: vec!["f.archived_at IS NULL".into()],
            binds: Vec::new(),
        };
        if let Some(id) = &scope.facility_id {
            f.add(&format!("{alias}.facility_id = $?"), id);
        }
        if let Some(user) = &scope.member {
            f.add(
                &format!("EXISTS (SELECT 1 FROM facility_users m WHERE m.facility_id = {alias}.facility_id AND m.user_id = $?)"),
                user,
            );
        }
        f
    }

    fn add(&mut self, clause: &str, value: &str) {
        self.push(clause, Param::text(value));
    }

    /// A clause on a date column.
    fn add_day(&mut self, clause: &str, value: &str) {
        self.push(clause, Param::Day(value.to_owned()));
    }

    fn push(&mut self, clause: &str, value: Param) {
        self.binds.push(value);
        self.clauses
            .push(clause.replace("$?", &format!("${}", self.binds.len())));
    }

    fn sql(&self) -> String {
        self.clauses.join(" AND ")
    }

    /// Every row of `sql` (whose `WHERE` is this filter's), with the binds.
    async fn fetch(&self, conn: &mut Connection, sql: String) -> Result<Vec<DbRow>, sqlx::Error> {
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for b in self.binds.iter().cloned() {
            q = bind(q, b);
        }
        q.fetch_all(conn).await
    }

    /// Counts the rows of `from` that match, then reads one page of `columns`, newest first.
    async fn page(
        &self,
        conn: &mut Connection,
        columns: &str,
        from: &str,
        order: &str,
        params: &ListParams,
    ) -> Result<(Vec<DbRow>, i64), sqlx::Error> {
        let filter = self.sql();
        let mut count = sqlx::query(AssertSqlSafe(format!(
            "SELECT COUNT(*) {from} WHERE {filter}"
        )));
        for b in self.binds.iter().cloned() {
            count = bind(count, b);
        }
        let total: i64 = count.fetch_one(&mut *conn).await?.try_get(0)?;
        if params.offset() >= total {
            return Ok((Vec::new(), total));
        }
        let n = self.binds.len();
        let sql = format!(
            "SELECT {columns} {from} WHERE {filter} ORDER BY {order} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        );
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for b in self.binds.iter().cloned() {
            q = bind(q, b);
        }
        let rows = q
            .bind(params.page_size)
            .bind(params.offset())
            .fetch_all(conn)
            .await?;
        Ok((rows, total))
    }
}

// ---------------------------------------------------------------------------------------------
// Receipts

const RECEIPT_COLUMNS: &str = "r.id, r.facility_id, f.name AS facility_name, r.radioisotope, r.activity, \
     r.activity_reference_at, r.activity_at_receipt, r.supplier, r.lot, r.received_by, r.received_at, r.week, \
     r.over_quantity, r.notes, r.created_by, u.name AS creator_name, r.created_at, r.updated_at";
const RECEIPT_FROM: &str = "FROM material_receipts r JOIN facilities f ON f.id = r.facility_id \
     JOIN users u ON u.id = r.created_by";

fn receipt_from_row(r: &DbRow) -> Result<Receipt, sqlx::Error> {
    Ok(Receipt {
        id: r.try_get("id")?,
        facility: reference(r, "facility_id", "facility_name")?,
        radioisotope: radioisotope(r, "radioisotope")?,
        activity: r.try_get("activity")?,
        activity_reference_time: ts(r, "activity_reference_at")?,
        activity_at_receipt: r.try_get("activity_at_receipt")?,
        supplier: r.try_get("supplier")?,
        lot: r.try_get("lot")?,
        received_by: r.try_get("received_by")?,
        received_at: ts(r, "received_at")?,
        week: r.try_get("week")?,
        over_quantity: r.try_get("over_quantity")?,
        notes: r.try_get("notes")?,
        created_by: reference(r, "created_by", "creator_name")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

/// Holds the facility's row until the transaction ends, so that two receipts of one week are
/// summed one after the other (SQLite has a single writer already).
pub async fn lock_facility(conn: &mut Connection, facility_id: &str) -> Result<(), sqlx::Error> {
    super::dialect::lock_row(conn, "facilities", facility_id).await
}

/// The facility's authorised radioisotopes and weekly quantities, in the facility's order.
pub async fn authorised(
    conn: &mut Connection,
    facility_id: &str,
) -> Result<Vec<(Radioisotope, f64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT name, quantity FROM facility_radioisotopes WHERE facility_id = $1 ORDER BY position",
    )
    .bind(facility_id)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| Ok((radioisotope(r, "name")?, r.try_get("quantity")?)))
        .collect()
}

/// Per isotope, the week's total activity at receipt and the number of receipts.
pub async fn week_totals(
    conn: &mut Connection,
    facility_id: &str,
    week: &str,
) -> Result<Vec<(Radioisotope, f64, i64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT radioisotope, SUM(activity_at_receipt) AS total, COUNT(*) AS n FROM material_receipts \
         WHERE facility_id = $1 AND week = $2 GROUP BY radioisotope ORDER BY radioisotope",
    )
    .bind(facility_id)
    .bind(week)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok((
                radioisotope(r, "radioisotope")?,
                r.try_get("total")?,
                r.try_get("n")?,
            ))
        })
        .collect()
}

pub async fn insert_receipt(conn: &mut Connection, r: &Receipt) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO material_receipts (id, facility_id, radioisotope, activity, activity_reference_at, activity_at_receipt, \
         supplier, lot, received_by, received_at, week, over_quantity, notes, created_by, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    )
    .bind(&r.id)
    .bind(&r.facility.id)
    .bind(r.radioisotope.as_str())
    .bind(r.activity)
    .bind(Ts(&r.activity_reference_time))
    .bind(r.activity_at_receipt)
    .bind(&r.supplier)
    .bind(&r.lot)
    .bind(&r.received_by)
    .bind(Ts(&r.received_at))
    .bind(&r.week)
    .bind(r.over_quantity)
    .bind(&r.notes)
    .bind(&r.created_by.id)
    .bind(Ts(&r.created_at))
    .bind(Ts(&r.updated_at))
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn receipt(conn: &mut Connection, id: &str) -> Result<Option<Receipt>, sqlx::Error> {
    let sql = format!(
        "SELECT {RECEIPT_COLUMNS} {RECEIPT_FROM} WHERE r.id = $1 AND f.archived_at IS NULL"
    );
    sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(receipt_from_row)
        .transpose()
}

/// A page of receipts, newest first (by the time received), filtered by `week`, `radioisotope`
/// and `overQuantity` (`true`/`false`).
pub async fn receipts(
    conn: &mut Connection,
    scope: &Scope,
    week: Option<&str>,
    radioisotope: Option<Radioisotope>,
    over_quantity: Option<bool>,
    params: &ListParams,
) -> Result<(Vec<Receipt>, i64), sqlx::Error> {
    let mut filter = Filter::new(scope, "r");
    if let Some(w) = week {
        filter.add("r.week = $?", w);
    }
    if let Some(r) = radioisotope {
        filter.add("r.radioisotope = $?", r.as_str());
    }
    match over_quantity {
        Some(true) => filter.clauses.push("r.over_quantity = TRUE".into()),
        Some(false) => filter.clauses.push("r.over_quantity = FALSE".into()),
        None => {}
    }
    let (rows, total) = filter
        .page(
            conn,
            RECEIPT_COLUMNS,
            RECEIPT_FROM,
            "r.received_at DESC, r.id DESC",
            params,
        )
        .await?;
    Ok((
        rows.iter()
            .map(receipt_from_row)
            .collect::<Result<_, _>>()?,
        total,
    ))
}

// ---------------------------------------------------------------------------------------------
// Waste

const WASTE_COLUMNS: &str = "w.id, w.facility_id, f.name AS facility_name, w.form, w.contents, w.mass, w.closed_at, \
     w.location, w.description, w.release_date, w.released_at, w.released_by, rb.name AS releaser_name, w.dose_rate, \
     w.release_notes, w.created_by, u.name AS creator_name, w.created_at, w.updated_at";
const WASTE_FROM: &str = "FROM waste_packages w JOIN facilities f ON f.id = w.facility_id \
     JOIN users u ON u.id = w.created_by LEFT JOIN users rb ON rb.id = w.released_by";

fn waste_from_row(r: &DbRow, today: &str) -> Result<WastePackage, sqlx::Error> {
    let form: String = r.try_get("form")?;
    let contents = json(r, "contents")?;
    let release_date = day(r, "release_date")?;
    let released_at = ts_opt(r, "released_at")?;
    let release = match &released_at {
        Some(at) => Some(WasteRelease {
            released_by: Reference {
                id: r
                    .try_get::<Option<String>, _>("released_by")?
                    .unwrap_or_default(),
                name: r
                    .try_get::<Option<String>, _>("releaser_name")?
                    .unwrap_or_default(),
            },
            released_at: at.clone(),
            dose_rate: r
                .try_get::<Option<f64>, _>("dose_rate")?
                .unwrap_or_default(),
            notes: r.try_get("release_notes")?,
        }),
        None => None,
    };
    Ok(WastePackage {
        id: r.try_get("id")?,
        facility: reference(r, "facility_id", "facility_name")?,
        form: WasteForm::parse(&form).ok_or_else(|| decode("waste form", &form))?,
        contents: serde_json::from_str::<Vec<WasteContent>>(&contents)
            .map_err(|e| decode("waste contents", e))?,
        mass: r.try_get("mass")?,
        closed_at: ts(r, "closed_at")?,
        location: r.try_get("location")?,
        description: r.try_get("description")?,
        releasable: release.is_none() && release_date.as_str() <= today,
        release_date,
        release,
        created_by: reference(r, "created_by", "creator_name")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

pub async fn save_waste(
    conn: &mut Connection,
    w: &WastePackage,
    insert: bool,
) -> Result<(), sqlx::Error> {
    let sql = if insert {
        "INSERT INTO waste_packages (id, facility_id, form, contents, mass, closed_at, location, description, release_date, \
         created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
    } else {
        "UPDATE waste_packages SET facility_id = $2, form = $3, contents = $4, mass = $5, closed_at = $6, location = $7, \
         description = $8, release_date = $9, created_by = $10, created_at = $11, updated_at = $12 \
         WHERE id = $1 AND released_at IS NULL"
    };
    sqlx::query(sql)
        .bind(&w.id)
        .bind(&w.facility.id)
        .bind(w.form.as_str())
        .bind(JsonText(
            serde_json::to_string(&w.contents).map_err(|e| decode("waste contents", e))?,
        ))
        .bind(w.mass)
        .bind(Ts(&w.closed_at))
        .bind(&w.location)
        .bind(&w.description)
        .bind(Day(&w.release_date))
        .bind(&w.created_by.id)
        .bind(Ts(&w.created_at))
        .bind(Ts(&w.updated_at))
        .execute(conn)
        .await?;
    Ok(())
}

/// Records the release of a stored package; `false` when it was released meanwhile.
pub async fn release_waste(
    conn: &mut Connection,
    id: &str,
    release: &WasteRelease,
    at: &str,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE waste_packages SET released_at = $2, released_by = $3, dose_rate = $4, release_notes = $5, updated_at = $6 \
         WHERE id = $1 AND released_at IS NULL",
    )
    .bind(id)
    .bind(Ts(&release.released_at))
    .bind(&release.released_by.id)
    .bind(release.dose_rate)
    .bind(&release.notes)
    .bind(Ts(at))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn waste(
    conn: &mut Connection,
    id: &str,
    today: &str,
) -> Result<Option<WastePackage>, sqlx::Error> {
    let sql =
        format!("SELECT {WASTE_COLUMNS} {WASTE_FROM} WHERE w.id = $1 AND f.archived_at IS NULL");
    sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(|r| waste_from_row(r, today))
        .transpose()
}

/// A page of packages, newest first.
pub async fn waste_list(
    conn: &mut Connection,
    scope: &Scope,
    query: &WasteQuery,
    today: &str,
    params: &ListParams,
) -> Result<(Vec<WastePackage>, i64), sqlx::Error> {
    let mut filter = Filter::new(scope, "w");
    match query.releasable {
        Some(true) => filter.add_day("w.released_at IS NULL AND w.release_date <= $?", today),
        Some(false) => filter.add_day("(w.released_at IS NOT NULL OR w.release_date > $?)", today),
        None => {}
    }
    match query.released {
        Some(true) => filter.clauses.push("w.released_at IS NOT NULL".into()),
        Some(false) => filter.clauses.push("w.released_at IS NULL".into()),
        None => {}
    }
    if let Some(r) = query.radioisotope {
        // The contents are JSON text; an isotope's name is quoted there exactly once.
        filter.add(
            "CAST(w.contents AS TEXT) LIKE $?",
            &format!("%\"{}\"%", r.as_str()),
        );
    }
    let (rows, total) = filter
        .page(conn, WASTE_COLUMNS, WASTE_FROM, "w.id DESC", params)
        .await?;
    Ok((
        rows.iter()
            .map(|r| waste_from_row(r, today))
            .collect::<Result<_, _>>()?,
        total,
    ))
}

// ---------------------------------------------------------------------------------------------
// What the notices read

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
            let parts: Vec<String> = ["manufacturer", "model"]
                .iter()
                .map(|c| r.try_get::<Option<String>, _>(*c))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .flatten()
                .collect();
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
                    let name: Vec<String> = ["manufacturer", "model", "serial_number"]
                        .iter()
                        .map(|c| r.try_get::<Option<String>, _>(*c))
                        .collect::<Result<Vec<_>, _>>()?
                        .into_iter()
                        .flatten()
                        .collect();
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

/// `(facility, isotope, week, total, authorised)` for each week among `weeks` in which an
/// isotope's receipts went over the authorised quantity.
pub async fn exceeded_weeks(
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
         WHERE {} GROUP BY f.id, f.name, r.radioisotope, r.week HAVING MAX(CASE WHEN r.over_quantity THEN 1 ELSE 0 END) = 1 \
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
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notice_runs WHERE day = $1")
        .bind(Day(day))
        .fetch_one(conn)
        .await?;
    Ok(n > 0)
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
pub async fn claim_digests(
    conn: &mut Connection,
    instance: &str,
    now: &str,
    until: &str,
    limit: i64,
) -> Result<Vec<Digest>, sqlx::Error> {
    let rows = super::claims::claim(
        conn,
        Queue::NoticeDigests,
        "day, facility_id, recipients, subject, body, item_count, attempts",
        instance,
        now,
        until,
        limit,
    )
    .await?;
    rows.iter()
        .map(|r| {
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
        })
        .collect()
}
