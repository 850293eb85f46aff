//! The hot reads on SQLite — facilities by id, the facility lists and searches, the token's user —
//! through rusqlite, in place or on the reader threads ([`crate::sqlite_readers`]). They run the SQL texts of
//! the SQLite backend (`sql/facility_reads.rs`, `sql/facility_ranks.rs`, `sql/users.rs`) and
//! decode with the same functions ([`Columns`]), so the answer is the one sqlx's path gives; the
//! API suite checks it on every SQLite test, as every facility read of a request goes here.

use super::model::facilities::FacilityFilter;
use super::model::users::UserRow;
use super::sqlite::facility_ranks::{page_ids_sql, rank_range};
use super::sqlite::facility_reads::{ListPlan, facility_from_row, in_order, views_query};
use super::sqlite::users::{by_id_sql, user_from_row};
use super::types::Columns;
use crate::sqlite_readers::{SqliteReaders, Statistics, driver_error};
use registry_core::api::Facility;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params_from_iter};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A row with its statement's column names, read once per statement: rusqlite's look-up by name
/// asks SQLite for every column's name on each call (a tenth of a page's CPU, docs/benchmarks.md).
struct Named<'a> {
    row: &'a Row<'a>,
    names: &'a [String],
}

impl Named<'_> {
    fn get<T: rusqlite::types::FromSql>(&self, col: &str) -> Result<T, sqlx::Error> {
        let index = self.names.iter().position(|n| n == col);
        let index = index.ok_or_else(|| rusqlite::Error::InvalidColumnName(col.to_owned()));
        index.and_then(|i| self.row.get(i)).map_err(driver_error)
    }
}

impl Columns for Named<'_> {
    fn text(&self, col: &str) -> Result<String, sqlx::Error> {
        self.get(col)
    }

    fn text_opt(&self, col: &str) -> Result<Option<String>, sqlx::Error> {
        self.get(col)
    }

    fn int(&self, col: &str) -> Result<i64, sqlx::Error> {
        self.get(col)
    }

    fn boolean(&self, col: &str) -> Result<bool, sqlx::Error> {
        self.get(col)
    }

    // SQLite keeps timestamps, dates and JSON as text in the registry's forms (`types.rs`).
    fn stamp(&self, col: &str) -> Result<String, sqlx::Error> {
        self.text(col)
    }

    fn day_opt(&self, col: &str) -> Result<Option<String>, sqlx::Error> {
        self.text_opt(col)
    }

    fn json(&self, col: &str) -> Result<String, sqlx::Error> {
        self.text(col)
    }
}

/// Every row `sql` selects with `params`, each read by `from_row`.
fn rows<T>(
    conn: &Connection,
    sql: &str,
    params: impl IntoIterator<Item = Value>,
    from_row: impl Fn(&Named<'_>) -> Result<T, sqlx::Error>,
) -> Result<Vec<T>, sqlx::Error> {
    let mut stmt = conn.prepare_cached(sql).map_err(driver_error)?;
    let names: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
    let mut rows = stmt.query(params_from_iter(params)).map_err(driver_error)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(driver_error)? {
        out.push(from_row(&Named { row, names: &names })?);
    }
    Ok(out)
}

fn texts(values: &[String]) -> impl Iterator<Item = Value> + '_ {
    values.iter().map(|v| Value::Text(v.clone()))
}

fn views_on(conn: &Connection, ids: &[String]) -> Result<Vec<Facility>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let (sql, binds) = views_query(ids);
    let found = rows(conn, &sql, texts(&binds), |r| facility_from_row(r))?;
    Ok(in_order(ids, found))
}

/// `store::facilities::views` on SQLite (in place when a connection is idle).
pub async fn views(readers: &SqliteReaders, ids: &[String]) -> Result<Vec<Facility>, sqlx::Error> {
    let ids = ids.to_vec();
    readers.run_short(move |conn| views_on(conn, &ids)).await
}

/// `store::facilities::list` on SQLite: the steps of its [`ListPlan`], as sqlx's path runs them,
/// on one connection: in place for the whole and per-department lists (a range of kept ranks),
/// on the reader threads for filtered lists and searches, whose cost grows with their hits.
pub async fn list(
    readers: &SqliteReaders,
    filter: &FacilityFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let plan = ListPlan::new(filter, &[]);
    match (&plan, &filter.q) {
        (ListPlan::Ranked { .. }, _) => {
            readers
                .run_short(move |conn| read_list(conn, plan, limit, offset))
                .await
        }
        (ListPlan::Filtered { .. }, None) => {
            readers
                .run(move |conn| read_list(conn, plan, limit, offset))
                .await
        }
        // A search is planned again on the thread, with the term's rarest trigrams.
        (ListPlan::Filtered { .. }, Some(q)) => {
            let (filter, q) = (filter.clone(), q.clone());
            let stats = readers.statistics.clone();
            readers
                .run(move |conn| {
                    let rare = rare_trigrams(conn, &stats, &q)?;
                    read_list(conn, ListPlan::new(&filter, &rare), limit, offset)
                })
                .await
        }
    }
}

fn read_list(
    conn: &Connection,
    plan: ListPlan,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    match plan {
        ListPlan::Ranked { department } => ranked(conn, department, limit, offset),
        ListPlan::Filtered { filter, binds } => filtered(conn, &filter, &binds, limit, offset),
    }
}

fn ranked(
    conn: &Connection,
    department: Option<String>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let total: i64 = conn
        .prepare_cached(ListPlan::total_sql(department.as_deref()))
        .and_then(|mut s| {
            s.query_row(params_from_iter(department.iter()), |r| {
                r.get::<_, Option<i64>>(0)
            })
            .optional()
        })
        .map_err(driver_error)?
        .flatten()
        .unwrap_or(0);
    if offset >= total {
        return Ok((Vec::new(), total));
    }
    let (low, high) = rank_range(total, limit, offset);
    let sql = page_ids_sql(department.as_deref());
    let department = department.map_or(Value::Null, Value::Text);
    let params = [department, Value::Integer(low), Value::Integer(high)];
    let ids = rows(conn, &sql, params, |r| r.text("id"))?;
    Ok((views_on(conn, &ids)?, total))
}

fn filtered(
    conn: &Connection,
    filter: &str,
    binds: &[String],
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let params = texts(binds).chain([Value::Integer(limit), Value::Integer(offset)]);
    let page = rows(
        conn,
        &ListPlan::page_sql(filter, binds.len()),
        params,
        |r| Ok((r.text("id")?, r.int("total")?)),
    )?;
    let Some(&(_, total)) = page.first() else {
        let total = conn
            .prepare_cached(&ListPlan::count_sql(filter))
            .and_then(|mut s| s.query_row(params_from_iter(texts(binds)), |r| r.get(0)))
            .map_err(driver_error)?;
        return Ok((Vec::new(), total));
    };
    let ids: Vec<String> = page.into_iter().map(|(id, _)| id).collect();
    Ok((views_on(conn, &ids)?, total))
}

/// `store::users::by_id` on SQLite, in place when a connection is idle (the token's user, read on
/// every request).
pub async fn user(readers: &SqliteReaders, id: &str) -> Result<Option<UserRow>, sqlx::Error> {
    let id = id.to_owned();
    readers
        .run_short(move |conn| {
            let mut found = rows(conn, &by_id_sql(), [Value::Text(id)], |r| user_from_row(r))?;
            Ok(found.pop())
        })
        .await
}

/// The counts of [`Statistics::trigrams`]: how many facilities hold each trigram, as last read
/// from the index's vocabulary (`facility_search_vocab`). Planner statistics, not answers: they
/// only choose which trigrams of a term are looked up, and every candidate's text is checked, so
/// a count grown stale changes the cost of a search, never its result. Forgotten after
/// [`TRIGRAM_COUNTS_FOR`]; only trigrams the index holds are kept (at most as many as it holds).
fn trigram_counts<T>(
    stats: &Statistics,
    use_counts: impl FnOnce(&mut HashMap<String, i64>) -> T,
) -> T {
    let mut guard = stats.trigrams.lock().unwrap_or_else(|p| p.into_inner());
    let counts = match &mut *guard {
        Some((read, counts)) if read.elapsed() < TRIGRAM_COUNTS_FOR => counts,
        slot => &mut slot.insert((Instant::now(), HashMap::new())).1,
    };
    use_counts(counts)
}

const TRIGRAM_COUNTS_FOR: Duration = Duration::from_secs(600);

/// How many facilities hold the trigram `t`.
fn trigram_count(conn: &Connection, stats: &Statistics, t: &str) -> Result<i64, sqlx::Error> {
    if let Some(n) = trigram_counts(stats, |counts| counts.get(t).copied()) {
        return Ok(n);
    }
    let n = conn
        .prepare_cached("SELECT doc FROM facility_search_vocab WHERE term = ?1")
        .and_then(|mut s| s.query_row([t], |r| r.get(0)).optional())
        .map_err(driver_error)?
        .unwrap_or(0);
    if n > 0 {
        trigram_counts(stats, |counts| counts.insert(t.to_owned(), n));
    }
    Ok(n)
}

/// The two rarest trigrams of the search term `q`, when the term has some much rarer than
/// others (`clinica 3944`: `394` and `944`, against `cli` in every name); empty when its
/// trigrams are about as common as each other (`recife`), where the index's own `LIKE`, which
/// checks the text as it reads, costs less.
fn rare_trigrams(
    conn: &Connection,
    stats: &Statistics,
    q: &str,
) -> Result<Vec<String>, sqlx::Error> {
    let chars: Vec<char> = crate::db::search_key(q.trim()).chars().collect();
    let mut trigrams: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
    trigrams.sort();
    trigrams.dedup();
    if trigrams.len() < 3 {
        return Ok(Vec::new());
    }
    let mut counts = Vec::with_capacity(trigrams.len());
    for t in trigrams {
        counts.push((trigram_count(conn, stats, &t)?, t));
    }
    counts.sort();
    let (rarest, commonest) = (counts[0].0, counts[counts.len() - 1].0);
    if commonest <= 2 * rarest.max(1) {
        return Ok(Vec::new());
    }
    Ok(counts.into_iter().take(2).map(|(_, t)| t).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    /// The facility view reads each child list in its key's order: SQLite sorts nothing per
    /// facility (no sorter, and no temporary B-tree but the one of the id list), which made a read
    /// by id three times as slow (docs/benchmarks.md, "eleventh round").
    #[tokio::test]
    async fn the_facility_view_sorts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&Db::default_url(dir.path())).await.unwrap();
        let (sql, binds) = views_query(&["f1".to_owned(), "f2".to_owned()]);
        let conn = db.read().await.unwrap();
        let opcodes = conn
            .sqlite_readers()
            .unwrap()
            .run(move |conn| {
                let explain = format!("EXPLAIN {sql}");
                rows(conn, &explain, texts(&binds), |r| r.text("opcode"))
            })
            .await
            .unwrap();
        let count = |op: &str| opcodes.iter().filter(|o| *o == op).count();
        assert!(count("OpenRead") >= 6, "{opcodes:?}");
        assert_eq!(count("SorterOpen"), 0, "{opcodes:?}");
        assert_eq!(count("OpenEphemeral"), 1, "{opcodes:?}");
    }
}
