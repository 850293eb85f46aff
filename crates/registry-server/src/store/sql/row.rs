//! Reading columns whose stored form differs per backend (see [`crate::store::types`]): each
//! comes back in the registry's text form; and binding a [`Param`].
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::{Connection, Db, DbRow};
use crate::store::types::{Columns, Day, DayText, JsonString, JsonText, Param, Stamp, Ts};
use registry_core::equipment::Reference;
use sqlx::query::Query;
use sqlx::{AssertSqlSafe, Row};

/// Binds one run-time parameter in the backend's type for it.
pub(crate) fn bind<'q>(
    q: Query<'q, Db, <Db as sqlx::Database>::Arguments>,
    value: Param,
) -> Query<'q, Db, <Db as sqlx::Database>::Arguments> {
    match value {
        Param::Text(t) => q.bind(t),
        Param::Int(i) => q.bind(i),
        Param::Real(f) => q.bind(f),
        Param::Bool(b) => q.bind(b),
        Param::Ts(t) => q.bind(Ts(t)),
        Param::Day(d) => q.bind(Day(d)),
        Param::Json(j) => q.bind(JsonText(j)),
    }
}

/// Every row that `sql` selects, its placeholders bound to `binds` in order.
pub(crate) async fn fetch_all(
    conn: &mut Connection,
    sql: String,
    binds: &[Param],
) -> Result<Vec<DbRow>, sqlx::Error> {
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for b in binds.iter().cloned() {
        query = bind(query, b);
    }
    query.fetch_all(conn).await
}

/// The number that `sql` (a `SELECT COUNT(*) …`) counts, its placeholders bound to `binds`.
pub(crate) async fn count(
    conn: &mut Connection,
    sql: String,
    binds: &[Param],
) -> Result<i64, sqlx::Error> {
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for b in binds.iter().cloned() {
        query = bind(query, b);
    }
    query.fetch_one(conn).await?.try_get(0)
}

/// Whether `sql` (a `SELECT COUNT(*) …`) counts any row, its placeholders bound to `binds`.
pub(crate) async fn exists(
    conn: &mut Connection,
    sql: &str,
    binds: &[Param],
) -> Result<bool, sqlx::Error> {
    Ok(count(conn, sql.to_owned(), binds).await? > 0)
}

/// The error of a stored value that does not read as `what`.
pub(crate) fn decode(what: &str, e: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::Decode(format!("{what}: {e}").into())
}

/// One page (`limit` rows from `offset`) of the rows that `select` (ordered, without `LIMIT`)
/// selects, and how many `count_sql` (a `SELECT COUNT(*)` with the same `WHERE`) counts in all;
/// both are bound to `binds`. A page past the end is not read.
pub(crate) async fn page_rows(
    conn: &mut Connection,
    count_sql: String,
    select: String,
    mut binds: Vec<Param>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<DbRow>, i64), sqlx::Error> {
    let total = count(&mut *conn, count_sql, &binds).await?;
    if offset >= total {
        return Ok((Vec::new(), total));
    }
    let n = binds.len();
    let sql = format!("{select} LIMIT ${} OFFSET ${}", n + 1, n + 2);
    binds.extend([Param::Int(limit), Param::Int(offset)]);
    Ok((fetch_all(conn, sql, &binds).await?, total))
}

/// [`page_rows`], each row read by `from_row`.
pub(crate) async fn page<T>(
    conn: &mut Connection,
    count_sql: String,
    select: String,
    binds: Vec<Param>,
    limit: i64,
    offset: i64,
    from_row: impl Fn(&DbRow) -> Result<T, sqlx::Error>,
) -> Result<(Vec<T>, i64), sqlx::Error> {
    let (rows, total) = page_rows(conn, count_sql, select, binds, limit, offset).await?;
    Ok((rows.iter().map(from_row).collect::<Result<_, _>>()?, total))
}

/// The one row that `sql` selects by its single parameter `key` (an id, an e-mail), read by
/// `from_row`; `None` when there is none.
pub(crate) async fn fetch_by<T>(
    conn: &mut Connection,
    sql: String,
    key: &str,
    from_row: fn(&DbRow) -> Result<T, sqlx::Error>,
) -> Result<Option<T>, sqlx::Error> {
    sqlx::query(AssertSqlSafe(sql))
        .bind(key)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
}

/// Archives (soft-deletes) the row `id` of `table` (a constant, never input) at `at`.
pub(crate) async fn archive_row(
    conn: &mut Connection,
    table: &'static str,
    id: &str,
    at: &str,
) -> Result<(), sqlx::Error> {
    let sql = format!("UPDATE {table} SET archived_at = $2, updated_at = $2 WHERE id = $1");
    sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .bind(Ts(at))
        .execute(conn)
        .await?;
    Ok(())
}

/// A reference read from the columns `{prefix}_id` and `{prefix}_name`.
pub(crate) fn reference(row: &DbRow, prefix: &str) -> Result<Reference, sqlx::Error> {
    Ok(Reference {
        id: row.try_get(format!("{prefix}_id").as_str())?,
        name: row.try_get(format!("{prefix}_name").as_str())?,
    })
}

/// An optional text column.
pub(crate) fn opt(row: &DbRow, col: &str) -> Result<Option<String>, sqlx::Error> {
    row.try_get(col)
}

/// A timestamp column, as RFC 3339 UTC text.
pub(crate) fn ts(row: &DbRow, col: &str) -> Result<String, sqlx::Error> {
    Ok(row.try_get::<Stamp, _>(col)?.0)
}

pub(crate) fn ts_opt(row: &DbRow, col: &str) -> Result<Option<String>, sqlx::Error> {
    Ok(row.try_get::<Option<Stamp>, _>(col)?.map(|s| s.0))
}

/// A date column, as `YYYY-MM-DD`.
pub(crate) fn day(row: &DbRow, col: &str) -> Result<String, sqlx::Error> {
    Ok(row.try_get::<DayText, _>(col)?.0)
}

pub(crate) fn day_opt(row: &DbRow, col: &str) -> Result<Option<String>, sqlx::Error> {
    Ok(row.try_get::<Option<DayText>, _>(col)?.map(|d| d.0))
}

/// A JSON column, as text.
pub(crate) fn json(row: &DbRow, col: &str) -> Result<String, sqlx::Error> {
    Ok(row.try_get::<JsonString, _>(col)?.0)
}

pub(crate) fn json_opt(row: &DbRow, col: &str) -> Result<Option<String>, sqlx::Error> {
    Ok(row.try_get::<Option<JsonString>, _>(col)?.map(|j| j.0))
}

impl Columns for DbRow {
    fn text(&self, col: &str) -> Result<String, sqlx::Error> {
        self.try_get(col)
    }

    fn text_opt(&self, col: &str) -> Result<Option<String>, sqlx::Error> {
        opt(self, col)
    }

    fn int(&self, col: &str) -> Result<i64, sqlx::Error> {
        self.try_get(col)
    }

    fn boolean(&self, col: &str) -> Result<bool, sqlx::Error> {
        self.try_get(col)
    }

    fn stamp(&self, col: &str) -> Result<String, sqlx::Error> {
        ts(self, col)
    }

    fn day_opt(&self, col: &str) -> Result<Option<String>, sqlx::Error> {
        day_opt(self, col)
    }

    fn json(&self, col: &str) -> Result<String, sqlx::Error> {
        json(self, col)
    }
}
