//! Receipts of radioactive material, and what the queries of this resource share: the scope
//! filter of their lists and the readers of common columns. Waste packages are in `waste.rs`,
//! what the notices read and the daily digests in `notices.rs`.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::row::{decode, fetch_all, fetch_by, page, ts};
use super::{Connection, DbRow};
use crate::store::model::material::*;
use crate::store::types::{Param, Ts};
use registry_core::Radioisotope;
use registry_core::equipment::Reference;
use registry_core::material::Receipt;
use sqlx::Row;

/// `{_id, name}` from two columns.
pub(super) fn reference(r: &DbRow, id: &str, name: &str) -> Result<Reference, sqlx::Error> {
    Ok(Reference {
        id: r.try_get(id)?,
        name: r.try_get(name)?,
    })
}

pub(super) fn radioisotope(r: &DbRow, col: &str) -> Result<Radioisotope, sqlx::Error> {
    let s: String = r.try_get(col)?;
    Radioisotope::parse(&s).ok_or_else(|| decode("radioisotope", &s))
}

/// A `WHERE` clause being built with its text binds (`$?` stands for the next placeholder).
pub(super) struct Filter {
    pub(super) clauses: Vec<String>,
    pub(super) binds: Vec<Param>,
}

impl Filter {
    pub(super) fn new(scope: &Scope, alias: &str) -> Filter {
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

    pub(super) fn add(&mut self, clause: &str, value: &str) {
        self.push(clause, Param::text(value));
    }

    /// A clause on a date column.
    pub(super) fn add_day(&mut self, clause: &str, value: &str) {
        self.push(clause, Param::Day(value.to_owned()));
    }

    fn push(&mut self, clause: &str, value: Param) {
        self.binds.push(value);
        self.clauses
            .push(clause.replace("$?", &format!("${}", self.binds.len())));
    }

    pub(super) fn sql(&self) -> String {
        self.clauses.join(" AND ")
    }

    /// Every row of `sql` (whose `WHERE` is this filter's), with the binds.
    pub(super) async fn fetch(&self, conn: &mut Connection, sql: String) -> Result<Vec<DbRow>, sqlx::Error> {
        fetch_all(conn, sql, &self.binds).await
    }

    /// Counts the rows of `from` that match, then reads one page of `columns` in `order`, each
    /// row read by `from_row`.
    pub(super) async fn page<T>(
        &self,
        conn: &mut Connection,
        (columns, from, order): (&str, &str, &str),
        limit: i64,
        offset: i64,
        from_row: impl Fn(&DbRow) -> Result<T, sqlx::Error>,
    ) -> Result<(Vec<T>, i64), sqlx::Error> {
        let filter = self.sql();
        page(
            conn,
            format!("SELECT COUNT(*) {from} WHERE {filter}"),
            format!("SELECT {columns} {from} WHERE {filter} ORDER BY {order}"),
            self.binds.clone(),
            limit,
            offset,
            from_row,
        )
        .await
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
    super::dialect::lock_row(conn, "facilities", facility_id, false).await
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
    fetch_by(conn, sql, id, receipt_from_row).await
}

/// A page of receipts, newest first (by the time received), filtered by `week`, `radioisotope`
/// and `overQuantity` (`true`/`false`).
pub async fn receipts(
    conn: &mut Connection,
    scope: &Scope,
    week: Option<&str>,
    radioisotope: Option<Radioisotope>,
    over_quantity: Option<bool>,
    limit: i64,
    offset: i64,
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
    let select = (RECEIPT_COLUMNS, RECEIPT_FROM, "r.received_at DESC, r.id DESC");
    filter
        .page(conn, select, limit, offset, receipt_from_row)
        .await
}
