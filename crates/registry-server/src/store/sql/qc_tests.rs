//! QC test records, and when each test type falls due on each equipment (computed in SQL).
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::row::{archive_row, bind, day, day_opt, decode, fetch_by, json_opt, reference, ts};
use super::{Connection, DbRow};
use crate::store::model::qc_tests::*;
use crate::store::types::{Day, JsonText, Param, Ts};
use chrono::NaiveDate;
use registry_core::equipment::{
    Conclusion, DueState, DueTest, EquipmentSummary, QcTest, Reference, due_soon_limit,
};
use sqlx::{AssertSqlSafe, Row};

const COLUMNS: &str = "q.id, q.equipment_id, q.facility_id, f.name AS facility_name, q.test_type_id, t.name AS test_type_name, \
     q.date, q.performed_by, u.name AS performer_name, q.conclusion, q.measurements, q.figures, q.notes, q.document_id, \
     q.created_at, q.updated_at \
     FROM qc_tests q JOIN facilities f ON f.id = q.facility_id JOIN test_types t ON t.id = q.test_type_id \
     JOIN users u ON u.id = q.performed_by";

fn from_row(r: &DbRow) -> Result<QcTest, sqlx::Error> {
    let conclusion: String = r.try_get("conclusion")?;
    let measurements = json_opt(r, "measurements")?;
    let figures = json_opt(r, "figures")?;
    Ok(QcTest {
        id: r.try_get("id")?,
        equipment: r.try_get("equipment_id")?,
        facility: reference(r, "facility")?,
        type_of_test: reference(r, "test_type")?,
        date: day(r, "date")?,
        performed_by: Reference {
            id: r.try_get("performed_by")?,
            name: r.try_get("performer_name")?,
        },
        conclusion: Conclusion::parse(&conclusion)
            .ok_or_else(|| decode("conclusion", &conclusion))?,
        measurements: measurements
            .map(|m| serde_json::from_str(&m))
            .transpose()
            .map_err(|e| decode("measurements", e))?,
        figures: figures
            .map(|m| serde_json::from_str(&m))
            .transpose()
            .map_err(|e| decode("figures", e))?,
        notes: r.try_get("notes")?,
        document: r.try_get("document_id")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

/// A live record on live equipment, or `None`.
pub async fn get(conn: &mut Connection, id: &str) -> Result<Option<QcTest>, sqlx::Error> {
    let sql = format!(
        "SELECT {COLUMNS} JOIN equipment e ON e.id = q.equipment_id \
         WHERE q.id = $1 AND q.archived_at IS NULL AND e.archived_at IS NULL AND f.archived_at IS NULL"
    );
    fetch_by(conn, sql, id, from_row).await
}

/// The records of one test type on one equipment, newest first, optionally within
/// `[date_gte, date_lt)`.
pub async fn history(
    conn: &mut Connection,
    equipment_id: &str,
    test_type_id: &str,
    date_gte: Option<NaiveDate>,
    date_lt: Option<NaiveDate>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<QcTest>, i64), sqlx::Error> {
    let filter = "q.equipment_id = $1 AND q.test_type_id = $2 AND q.archived_at IS NULL \
                  AND ($3 IS NULL OR q.date >= $3) AND ($4 IS NULL OR q.date < $4)";
    let (gte, lt) = (
        date_gte.map(|d| d.to_string()),
        date_lt.map(|d| d.to_string()),
    );
    let total: i64 = sqlx::query_scalar(AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM qc_tests q WHERE {filter}"
    )))
    .bind(equipment_id)
    .bind(test_type_id)
    .bind(gte.as_deref().map(Day))
    .bind(lt.as_deref().map(Day))
    .fetch_one(&mut *conn)
    .await?;
    let sql = format!(
        "SELECT {COLUMNS} WHERE {filter} ORDER BY q.date DESC, q.id DESC LIMIT $5 OFFSET $6"
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(equipment_id)
        .bind(test_type_id)
        .bind(gte.as_deref().map(Day))
        .bind(lt.as_deref().map(Day))
        .bind(limit)
        .bind(offset)
        .fetch_all(conn)
        .await?;
    Ok((rows.iter().map(from_row).collect::<Result<_, _>>()?, total))
}

pub async fn save(conn: &mut Connection, t: &QcTest, insert: bool) -> Result<(), sqlx::Error> {
    let previous = if insert {
        None
    } else {
        pair_of(conn, &t.id).await?
    };
    let sql = if insert {
        "INSERT INTO qc_tests (id, equipment_id, test_type_id, facility_id, date, performed_by, conclusion, measurements, \
         notes, document_id, created_at, updated_at, figures) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
    } else {
        "UPDATE qc_tests SET equipment_id = $2, test_type_id = $3, facility_id = $4, date = $5, performed_by = $6, \
         conclusion = $7, measurements = $8, notes = $9, document_id = $10, created_at = $11, updated_at = $12, \
         figures = $13 WHERE id = $1"
    };
    sqlx::query(sql)
        .bind(&t.id)
        .bind(&t.equipment)
        .bind(&t.type_of_test.id)
        .bind(&t.facility.id)
        .bind(Day(&t.date))
        .bind(&t.performed_by.id)
        .bind(t.conclusion.as_str())
        .bind(t.measurements.as_ref().map(|m| JsonText(m.to_string())))
        .bind(&t.notes)
        .bind(&t.document)
        .bind(Ts(&t.created_at))
        .bind(Ts(&t.updated_at))
        .bind(t.figures.as_ref().map(|m| JsonText(m.to_string())))
        .execute(&mut *conn)
        .await?;
    if let Some((equipment, test_type)) = previous {
        refresh_last(conn, Some(&equipment), Some(&test_type)).await?;
    }
    refresh_last(conn, Some(&t.equipment), Some(&t.type_of_test.id)).await
}

pub async fn archive(conn: &mut Connection, id: &str, at: &str) -> Result<(), sqlx::Error> {
    archive_row(&mut *conn, "qc_tests", id, at).await?;
    if let Some((equipment, test_type)) = pair_of(conn, id).await? {
        refresh_last(conn, Some(&equipment), Some(&test_type)).await?;
    }
    Ok(())
}

async fn pair_of(conn: &mut Connection, id: &str) -> Result<Option<(String, String)>, sqlx::Error> {
    let row = sqlx::query("SELECT equipment_id, test_type_id FROM qc_tests WHERE id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.map(|r| Ok((r.try_get("equipment_id")?, r.try_get("test_type_id")?)))
        .transpose()
}

/// Recomputes `qc_last` for the pairs matching the given equipment and/or test type (all pairs
/// when both are `None`): the latest live test's date and the next due date.
pub async fn refresh_last(
    conn: &mut Connection,
    equipment: Option<&str>,
    test_type: Option<&str>,
) -> Result<(), sqlx::Error> {
    let filter = "($1 IS NULL OR equipment_id = $1) AND ($2 IS NULL OR test_type_id = $2)";
    let delete = format!("DELETE FROM qc_last WHERE {filter}");
    let insert = format!(
        "INSERT INTO qc_last (equipment_id, test_type_id, last_date, next_due) \
         SELECT p.equipment_id, p.test_type_id, p.last_date, {next_due} FROM ( \
           SELECT q.equipment_id, q.test_type_id, MAX(q.date) AS last_date, MAX(t.expiration_in_days) AS days \
           FROM qc_tests q JOIN test_types t ON t.id = q.test_type_id \
           WHERE q.archived_at IS NULL AND ($1 IS NULL OR q.equipment_id = $1) AND ($2 IS NULL OR q.test_type_id = $2) \
           GROUP BY q.equipment_id, q.test_type_id) p",
        next_due = super::dialect::NEXT_DUE
    );
    // The latest live test's conclusion (same-day tests: the last recorded).
    let conclusion = format!(
        "UPDATE qc_last SET last_conclusion = ( \
           SELECT q.conclusion FROM qc_tests q \
           WHERE q.equipment_id = qc_last.equipment_id AND q.test_type_id = qc_last.test_type_id \
             AND q.archived_at IS NULL \
           ORDER BY q.date DESC, q.created_at DESC, q.id DESC LIMIT 1) \
         WHERE {filter}"
    );
    for sql in [delete, insert, conclusion] {
        sqlx::query(AssertSqlSafe(sql))
            .bind(equipment)
            .bind(test_type)
            .execute(&mut *conn)
            .await?;
    }
    set_listed(conn, filter, equipment, test_type).await
}

/// Recomputes `qc_last.listed` (the pair belongs in the registry-wide due lists: live, active
/// equipment of a live facility, and a test type of the equipment's type) for the pairs `filter`
/// selects, with `$1` and `$2` bound to `a` and `b`.
async fn set_listed(
    conn: &mut Connection,
    filter: &str,
    a: Option<&str>,
    b: Option<&str>,
) -> Result<(), sqlx::Error> {
    let sql = format!(
        "UPDATE qc_last SET listed = EXISTS ( \
           SELECT 1 FROM equipment e \
           JOIN facilities f ON f.id = e.facility_id \
           JOIN test_types t ON t.id = qc_last.test_type_id \
           WHERE e.id = qc_last.equipment_id AND e.archived_at IS NULL AND e.active = TRUE \
             AND f.archived_at IS NULL AND t.equipment_type_id = e.equipment_type_id) \
         WHERE {filter}"
    );
    sqlx::query(AssertSqlSafe(sql))
        .bind(a)
        .bind(b)
        .execute(conn)
        .await?;
    Ok(())
}

/// After an equipment's facility, type, `active` flag or archiving changed: whether its pairs
/// belong in the due lists.
pub async fn refresh_listed_equipment(
    conn: &mut Connection,
    equipment_id: &str,
) -> Result<(), sqlx::Error> {
    set_listed(conn, "equipment_id = $1 AND $2 IS NULL", Some(equipment_id), None).await
}

/// After a facility was archived: its equipment's pairs leave the due lists.
pub async fn refresh_listed_facility(
    conn: &mut Connection,
    facility_id: &str,
) -> Result<(), sqlx::Error> {
    set_listed(
        conn,
        "equipment_id IN (SELECT id FROM equipment WHERE facility_id = $1) AND $2 IS NULL",
        Some(facility_id),
        None,
    )
    .await
}

/// Fills `qc_last` once for a database whose tests predate it (or were bulk-loaded).
pub async fn ensure_last_filled(conn: &mut Connection) -> Result<(), sqlx::Error> {
    let filled: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM (SELECT 1 FROM qc_last LIMIT 1) x")
        .fetch_one(&mut *conn)
        .await?;
    let tests: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT 1 FROM qc_tests WHERE archived_at IS NULL LIMIT 1) x",
    )
    .fetch_one(&mut *conn)
    .await?;
    if filled == 0 && tests > 0 {
        refresh_last(conn, None, None).await?;
    }
    Ok(())
}

/// Every test type of each selected equipment's type, with its last live record (one index
/// lookup per pair), next due date and state, most urgent first: never done, then by due date.
/// The pairs are MATERIALIZED so that PostgreSQL looks each last date up once, instead of
/// inlining the lookup into the state filter, the sort key and the output.
/// Returns the page and the total number of matching pairs.
pub async fn due(
    conn: &mut Connection,
    query: &DueQuery,
) -> Result<(Vec<DueTest>, i64), sqlx::Error> {
    // The two days and the page's bounds are written into the SQL, not bound. With any of them
    // bound, PostgreSQL planned every page again (2–3 ms, against 0.3 ms to run it): its
    // generic plan, not knowing how many pairs fall before a day or how far the page reaches,
    // always looked dearer than a plan for the values at hand (docs/benchmarks.md, "thirteenth
    // round"). Written in, a statement that binds nothing is planned once per connection. The
    // days change once a day; a page other than the first is not kept by the connection, so
    // that paging through a list does not push the statements it keeps out.
    let today = super::dialect::day_literal(query.today);
    let soon = super::dialect::day_literal(due_soon_limit(query.today));
    let page = format!("LIMIT {} OFFSET {}", query.limit, query.offset);
    let page_query = |sql: String, binds: &[Param]| {
        let q = sqlx::query(AssertSqlSafe(sql)).persistent(query.offset == 0);
        binds.iter().cloned().fold(q, bind)
    };
    let mut binds: Vec<Param> = Vec::new();
    // Live equipment of a live facility; active too, unless one equipment is named.
    let live = match query.equipment_id {
        None => "e.archived_at IS NULL AND f.archived_at IS NULL AND e.active = TRUE",
        Some(_) => "e.archived_at IS NULL AND f.archived_at IS NULL",
    };
    let mut clauses = Vec::new();
    let mut add = |clause: &str, value: &str| {
        binds.push(Param::text(value));
        clauses.push(clause.replace("$?", &format!("${}", binds.len())));
    };
    if let Some(id) = &query.equipment_id {
        add("e.id = $?", id);
    }
    if let Some(member) = &query.member {
        add(
            "EXISTS (SELECT 1 FROM facility_users m WHERE m.facility_id = e.facility_id AND m.user_id = $?)",
            member,
        );
    }
    if let Some(facility) = &query.facility_id {
        add("e.facility_id = $?", facility);
    }
    if let Some(t) = &query.equipment_type_id {
        add("e.equipment_type_id = $?", t);
    }
    if query.failing {
        add(
            "l.last_conclusion = $?",
            Conclusion::Unsatisfactory.as_str(),
        );
    }
    let columns = "e.id AS equipment_id, e.manufacturer, e.model, e.serial_number, e.localization, \
        f.id AS facility_id, f.name AS facility_name, et.id AS equipment_type_id, et.name AS equipment_type_name, \
        t.id AS test_type_id, t.name AS test_type_name, t.expiration_in_days AS days, l.last_date, l.next_due, \
        l.last_conclusion";
    let needs_never_done = query.states.is_empty() || query.states.contains(&DueState::NeverDone);
    let (rows, total) = if needs_never_done {
        // Every pair of each equipment's type is judged, those never tested included.
        clauses.push(live.to_owned());
        let mut state_filter = "1 = 1".to_owned();
        if !query.states.is_empty() {
            let first = binds.len() + 1;
            binds.extend(query.states.iter().map(|s| Param::text(s.as_str())));
            state_filter = format!(
                "j.state IN ({})",
                crate::db::placeholders(first, query.states.len())
            );
        }
        let sql = format!(
            "WITH pairs AS MATERIALIZED ( \
               SELECT {columns} \
               FROM equipment e \
               JOIN facilities f ON f.id = e.facility_id \
               JOIN equipment_types et ON et.id = e.equipment_type_id \
               JOIN test_types t ON t.equipment_type_id = e.equipment_type_id \
               LEFT JOIN qc_last l ON l.equipment_id = e.id AND l.test_type_id = t.id \
               WHERE {clauses} \
             ), judged AS ( \
               SELECT p.*, CASE WHEN p.last_date IS NULL THEN 'never_done' WHEN p.next_due < {today} THEN 'overdue' \
                                WHEN p.next_due <= {soon} THEN 'due_soon' ELSE 'ok' END AS state \
               FROM pairs p \
             ) \
             SELECT j.*, COUNT(*) OVER () AS total FROM judged j WHERE {state_filter} \
             ORDER BY CASE WHEN j.next_due IS NULL THEN 0 ELSE 1 END, j.next_due, j.equipment_id, j.test_type_name, j.test_type_id \
             {page}",
            clauses = clauses.join(" AND "),
        );
        let rows = page_query(sql, &binds).fetch_all(&mut *conn).await?;
        let mut total = match rows.first() {
            Some(r) => r.try_get::<i64, _>("total")?,
            None => 0,
        };
        if rows.is_empty() && query.offset > 0 {
            // Past the last page the window count has no row to ride on; count without paging.
            let probe = DueQuery {
                limit: 1,
                offset: 0,
                ..query.clone()
            };
            total = Box::pin(due(conn, &probe)).await?.1;
        }
        (rows, total)
    } else {
        // Only pairs with a latest test can match: read them from `qc_last` through its index on
        // next_due (the page stops after `limit` rows), and count them with a narrow query.
        let ranges: Vec<String> = query
            .states
            .iter()
            .map(|s| match s {
                DueState::Overdue => format!("l.next_due < {today}"),
                DueState::DueSoon => format!("(l.next_due >= {today} AND l.next_due <= {soon})"),
                _ => format!("l.next_due > {soon}"),
            })
            .collect();
        let ranges = format!("({})", ranges.join(" OR "));
        // Without one equipment named, only pairs in the registry-wide lists (`listed`, which
        // implies the live/active/type conditions): read through the (listed, next_due) index,
        // and counted without the joins when no other filter applies. The live conditions are
        // then left out: on `equipment` alone, they made SQLite's planner expect lookups there to
        // miss and scan the whole table into a Bloom filter before each page (docs/benchmarks.md,
        // "twelfth round").
        let listed = query.equipment_id.is_none();
        let only_listed = listed
            && query.member.is_none()
            && query.facility_id.is_none()
            && query.equipment_type_id.is_none()
            && !query.failing;
        clauses.push(if listed { "l.listed = TRUE" } else { live }.to_owned());
        clauses.push(ranges.clone());
        // CROSS JOIN fixes SQLite's join order (qc_last first, through its next_due index);
        // PostgreSQL plans it as the inner join it is.
        clauses.push(
            "e.id = l.equipment_id AND t.id = l.test_type_id AND t.equipment_type_id = e.equipment_type_id \
             AND f.id = e.facility_id AND et.id = e.equipment_type_id"
                .to_owned(),
        );
        let from = "FROM qc_last l CROSS JOIN equipment e CROSS JOIN test_types t CROSS JOIN facilities f \
             CROSS JOIN equipment_types et";
        let filter = clauses.join(" AND ");
        let count_sql = if only_listed {
            super::dialect::listed_due_count(&ranges)
        } else {
            format!("SELECT COUNT(*) {from} WHERE {filter}")
        };
        let count = binds.iter().cloned().fold(sqlx::query(AssertSqlSafe(count_sql)), bind);
        let total: i64 = count.fetch_one(&mut *conn).await?.try_get(0)?;
        let sql = format!(
            "SELECT {columns}, CASE WHEN l.next_due < {today} THEN 'overdue' WHEN l.next_due <= {soon} THEN 'due_soon' ELSE 'ok' END AS state \
             {from} WHERE {filter} ORDER BY l.next_due, e.id, t.name, t.id {page}"
        );
        (page_query(sql, &binds).fetch_all(&mut *conn).await?, total)
    };
    let list = rows
        .iter()
        .map(|r| {
            let state: String = r.try_get("state")?;
            Ok(DueTest {
                equipment: EquipmentSummary {
                    id: r.try_get("equipment_id")?,
                    manufacturer: r.try_get("manufacturer")?,
                    model: r.try_get("model")?,
                    serial_number: r.try_get("serial_number")?,
                    localization: r.try_get("localization")?,
                },
                facility: reference(r, "facility")?,
                type_of_equipment: reference(r, "equipment_type")?,
                type_of_test: reference(r, "test_type")?,
                expiration_in_days: r.try_get("days")?,
                last_date: day_opt(r, "last_date")?,
                next_due: day_opt(r, "next_due")?,
                state: DueState::parse(&state).ok_or_else(|| decode("due state", &state))?,
                last_conclusion: r
                    .try_get::<Option<String>, _>("last_conclusion")?
                    .map(|c| Conclusion::parse(&c).ok_or_else(|| decode("conclusion", &c)))
                    .transpose()?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok((list, total))
}
