//! Plain named catalogues: the queries of every `id, name, name_key, description, created_at,
//! updated_at` table (`store::catalogue`). `table` is always a name written in the code, never
//! a request's text.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::row::{exists, fetch_by, page, ts};
use super::{Connection, DbRow};
use crate::db::{like_anywhere, name_key};
use crate::store::model::catalogue::NamedRow;
use crate::store::types::{Param, Ts};
use sqlx::{AssertSqlSafe, Row};

const COLUMNS: &str = "id, name, description, created_at, updated_at";

/// The `LIKE` pattern of the list's `q` (everything without one), matched against `name_key`.
pub(crate) fn name_pattern(q: Option<&str>) -> String {
    q.map(|q| like_anywhere(&name_key(q.trim())))
        .unwrap_or_else(|| "%".into())
}

fn from_row(r: &DbRow) -> Result<NamedRow, sqlx::Error> {
    Ok(NamedRow {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        description: r.try_get("description")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

pub async fn get_row(
    conn: &mut Connection,
    table: &'static str,
    id: &str,
) -> Result<Option<NamedRow>, sqlx::Error> {
    let sql = format!("SELECT {COLUMNS} FROM {table} WHERE id = $1");
    fetch_by(conn, sql, id, from_row).await
}

/// Records newest first (product.md §1), filtered by `q`.
pub async fn list_rows(
    conn: &mut Connection,
    table: &'static str,
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<NamedRow>, i64), sqlx::Error> {
    let filter = "name_key LIKE $1 ESCAPE '\\'";
    page(
        conn,
        format!("SELECT COUNT(*) FROM {table} WHERE {filter}"),
        format!("SELECT {COLUMNS} FROM {table} WHERE {filter} ORDER BY created_at DESC, id DESC"),
        vec![Param::text(&name_pattern(q))],
        limit,
        offset,
        from_row,
    )
    .await
}

/// Whether another record of `table` has this name (case- and accent-insensitive).
pub async fn name_taken_in(
    conn: &mut Connection,
    table: &'static str,
    name: &str,
    except_id: &str,
) -> Result<bool, sqlx::Error> {
    let sql = format!("SELECT COUNT(*) FROM {table} WHERE name_key = $1 AND id <> $2");
    let binds = [Param::text(&name_key(name)), Param::text(except_id)];
    exists(conn, &sql, &binds).await
}

pub async fn save_row(
    conn: &mut Connection,
    table: &'static str,
    row: &NamedRow,
    insert: bool,
) -> Result<(), sqlx::Error> {
    let sql = if insert {
        format!(
            "INSERT INTO {table} (id, name, name_key, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)"
        )
    } else {
        format!(
            "UPDATE {table} SET name = $2, name_key = $3, description = $4, created_at = $5, updated_at = $6 WHERE id = $1"
        )
    };
    sqlx::query(AssertSqlSafe(sql))
        .bind(&row.id)
        .bind(&row.name)
        .bind(name_key(&row.name))
        .bind(&row.description)
        .bind(Ts(&row.created_at))
        .bind(Ts(&row.updated_at))
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn delete_row(
    conn: &mut Connection,
    table: &'static str,
    id: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(AssertSqlSafe(format!("DELETE FROM {table} WHERE id = $1")))
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
