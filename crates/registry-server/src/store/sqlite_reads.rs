//! The hot reads on SQLite — facilities by id, the facility lists and searches, the token's user —
//! through rusqlite, in place or on the reader threads ([`crate::sqlite_readers`]). They run the SQL texts of
//! the SQLite backend (`sql/facility_reads.rs`, `sql/facility_ranks.rs`, `sql/users.rs`) and
//! decode with the same functions ([`Columns`]), so the answer is the one sqlx's path gives; the
//! API suite checks it on every SQLite test, as every facility read of a request goes here.

use super::model::facilities::FacilityFilter;
use super::model::users::UserRow;
use super::sqlite::facility_reads::{
    ListPlan, facility_from_row, filtered_page_sql, in_order, ranked_page, ranked_page_sql,
    ranked_row, views_query,
};
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
            let only_q = filter.is_search_alone();
            readers
                .run(move |conn| {
                    let (rare, rarest) = rare_trigrams(conn, &stats, &q)?;
                    let plan = ListPlan::new(&filter, &rare);
                    match plan {
                        ListPlan::Filtered { matching, binds } if only_q => {
                            common_search(conn, &q, rarest, &matching, &binds, limit, offset)
                        }
                        plan => read_list(conn, plan, limit, offset),
                    }
                })
                .await
        }
    }
}

/// How many live facilities a search may read in list order for its page (see [`common_search`]).
const SCAN_FOR_PAGE: i64 = 4_000;

/// A search by its term alone. A term whose every trigram is common (a city: one facility in
/// eight) matches many facilities: through the index, each match was checked, then all of them
/// sorted for the page (60 ms at 100,000 facilities for "são paulo", docs/benchmarks.md, "twelfth
/// round"). Counted through the index, the page is then read in list order, newest first, from
/// the facilities themselves: with one facility in eight matching, 20 matches are 160 rows.
/// Used when the matches are dense enough that the page lies within [`SCAN_FOR_PAGE`] rows of the
/// list (judged from the exact total), and with that many rows read at most; otherwise, or when
/// the matches lie elsewhere in the list, the page is read through the index as any search.
fn common_search(
    conn: &Connection,
    q: &str,
    rarest: i64,
    matching: &str,
    binds: &[String],
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let live: i64 = conn
        .prepare_cached(ListPlan::total_sql(None))
        .and_then(|mut s| s.query_row([], |r| r.get::<_, Option<i64>>(0)))
        .map_err(driver_error)?
        .unwrap_or(0);
    // The rarest trigram bounds the matches: too few for a short scan, read as any search.
    if rarest.saturating_mul(SCAN_FOR_PAGE) < live.saturating_mul(offset + limit) {
        return filtered(conn, matching, binds, limit, offset);
    }
    let total: i64 = conn
        .prepare_cached(&ListPlan::count_sql(matching))
        .and_then(|mut s| s.query_row(params_from_iter(texts(binds)), |r| r.get(0)))
        .map_err(driver_error)?;
    let wanted = limit.min(total - offset);
    if wanted <= 0 {
        return Ok((Vec::new(), total));
    }
    if total.saturating_mul(SCAN_FOR_PAGE) >= live.saturating_mul(offset + limit) {
        let params = [
            Value::Integer(SCAN_FOR_PAGE),
            Value::Text(crate::db::contains_pattern(q)),
            Value::Integer(limit),
            Value::Integer(offset),
        ];
        let ids = rows(conn, COMMON_SEARCH_PAGE, params, |r| r.text("id"))?;
        if ids.len() as i64 == wanted {
            return Ok((views_on(conn, &ids)?, total));
        }
    }
    filtered(conn, matching, binds, limit, offset)
}

/// The page of a common term's matches among the newest `$1` live facilities (see [`common_search`]).
const COMMON_SEARCH_PAGE: &str = "SELECT id FROM ( \
       SELECT id, search_text FROM facilities WHERE archived_at IS NULL ORDER BY id DESC LIMIT $1) f \
     WHERE f.search_text LIKE $2 ESCAPE '\\' ORDER BY f.id DESC LIMIT $3 OFFSET $4";

fn read_list(
    conn: &Connection,
    plan: ListPlan,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    match plan {
        ListPlan::Ranked { department } => ranked(conn, department, limit, offset),
        ListPlan::Filtered { matching, binds } => filtered(conn, &matching, &binds, limit, offset),
    }
}

fn ranked(
    conn: &Connection,
    department: Option<String>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let sql = ranked_page_sql(department.as_deref());
    let department = department.map_or(Value::Null, Value::Text);
    let params = [department, Value::Integer(offset), Value::Integer(limit)];
    Ok(ranked_page(rows(conn, &sql, params, |r| ranked_row(r))?))
}

fn filtered(
    conn: &Connection,
    matching: &str,
    binds: &[String],
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let params = texts(binds).chain([Value::Integer(limit), Value::Integer(offset)]);
    let sql = filtered_page_sql(matching, binds.len());
    let page = rows(conn, &sql, params, |r| ranked_row(r))?;
    // An empty first page is a total of 0 by the same reading (a count read after it could see
    // a write committed in between: a total of 1 over an empty list).
    if page.is_empty() && offset == 0 {
        return Ok((Vec::new(), 0));
    }
    if page.is_empty() {
        let total = conn
            .prepare_cached(&ListPlan::count_sql(matching))
            .and_then(|mut s| s.query_row(params_from_iter(texts(binds)), |r| r.get(0)))
            .map_err(driver_error)?;
        return Ok((Vec::new(), total));
    }
    Ok(ranked_page(page))
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
/// checks the text as it reads, costs less. With them, how many facilities hold the rarest (an
/// upper bound of the matches; unbounded for a term shorter than a trigram).
fn rare_trigrams(
    conn: &Connection,
    stats: &Statistics,
    q: &str,
) -> Result<(Vec<String>, i64), sqlx::Error> {
    let chars: Vec<char> = crate::db::search_key(q.trim()).chars().collect();
    let mut trigrams: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
    trigrams.sort();
    trigrams.dedup();
    if trigrams.is_empty() {
        // Shorter than a trigram: any number of facilities may match.
        return Ok((Vec::new(), i64::MAX));
    }
    let mut counts = Vec::with_capacity(trigrams.len());
    for t in trigrams {
        counts.push((trigram_count(conn, stats, &t)?, t));
    }
    counts.sort();
    let (rarest, commonest) = (counts[0].0, counts[counts.len() - 1].0);
    if counts.len() < 3 || commonest <= 2 * rarest.max(1) {
        return Ok((Vec::new(), rarest));
    }
    Ok((counts.into_iter().take(2).map(|(_, t)| t).collect(), rarest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    /// A search's statements are prepared once per connection: binding another term does not
    /// make SQLite prepare them again (which it does for a bound `LIKE` pattern unless the
    /// readers hold the query planner stability guarantee).
    #[tokio::test]
    async fn searches_are_not_prepared_again_per_term() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&Db::default_url(dir.path())).await.unwrap();
        let conn = db.read().await.unwrap();
        let reprepared = conn
            .sqlite_readers()
            .unwrap()
            .run(move |conn| {
                let filter = FacilityFilter {
                    q: Some("clinica 3944".to_owned()),
                    ..FacilityFilter::default()
                };
                let ListPlan::Filtered { matching, .. } =
                    ListPlan::new(&filter, &["394".to_owned(), "944".to_owned()])
                else {
                    unreachable!("a search is a filtered list")
                };
                let sql = ListPlan::page_sql(&matching, 2);
                let mut statement = conn.prepare_cached(&sql).map_err(driver_error)?;
                for term in ["3944", "1234", "5678"] {
                    let params = rusqlite::params![
                        format!("\"{}\"", &term[..3]),
                        format!("%clinica {term}%"),
                        20,
                        0
                    ];
                    statement
                        .query(params)
                        .map_err(driver_error)?
                        .next()
                        .map_err(driver_error)?;
                }
                Ok(statement.get_status(rusqlite::StatementStatus::RePrepare))
            })
            .await
            .unwrap();
        assert_eq!(reprepared, 0);
    }

    /// A facility's child lists are built in their keys' order (`facility_lists`, which the
    /// triggers of migration 0011 read to rebuild a list): SQLite sorts nothing per facility (no
    /// sorter, no temporary B-tree), which made a read by id three times as slow when the views
    /// built them (docs/benchmarks.md, "eleventh round"). The views then read the kept lists:
    /// no sorter, and no temporary B-tree but the one of the id list.
    #[tokio::test]
    async fn the_facility_view_sorts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&Db::default_url(dir.path())).await.unwrap();
        let (sql, binds) = views_query(&["f1".to_owned(), "f2".to_owned()]);
        let conn = db.read().await.unwrap();
        let explain = |sql: String, binds: Vec<String>| {
            conn.sqlite_readers().unwrap().run(move |conn| {
                rows(conn, &format!("EXPLAIN {sql}"), texts(&binds), |r| {
                    r.text("opcode")
                })
            })
        };
        let count = |opcodes: &[String], op: &str| opcodes.iter().filter(|o| *o == op).count();
        let lists = "SELECT address_json, users_json, isotopes_json, practices_json, image_kinds \
                     FROM facility_lists WHERE id = 'f1'";
        let built = explain(lists.to_owned(), Vec::new()).await.unwrap();
        assert!(count(&built, "OpenRead") >= 6, "{built:?}");
        assert_eq!(
            count(&built, "SorterOpen") + count(&built, "OpenEphemeral"),
            0,
            "{built:?}"
        );
        let read = explain(sql, binds).await.unwrap();
        assert_eq!(count(&read, "SorterOpen"), 0, "{read:?}");
        assert_eq!(count(&read, "OpenEphemeral"), 1, "{read:?}");
    }
}
