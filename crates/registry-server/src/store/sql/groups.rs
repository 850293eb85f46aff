//! Groups of facilities.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::row::ts;
use super::{Connection, DbRow};
use crate::db::search_key;
use crate::extract::ListParams;
use crate::store::types::Ts;
use registry_core::Department;
use registry_core::api::{FacilitySummary, Group};
use sqlx::Row;

fn from_row(r: &DbRow) -> Result<Group, sqlx::Error> {
    Ok(Group {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        description: r.try_get("description")?,
        facilities: None,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

pub async fn get(conn: &mut Connection, id: &str) -> Result<Option<Group>, sqlx::Error> {
    sqlx::query(
        "SELECT id, name, description, created_at, updated_at FROM facility_groups WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(conn)
    .await?
    .as_ref()
    .map(from_row)
    .transpose()
}

/// Groups by name.
pub async fn list(
    conn: &mut Connection,
    params: &ListParams,
) -> Result<(Vec<Group>, i64), sqlx::Error> {
    let pattern = params
        .text("q")
        .map(|q| crate::db::contains_pattern(&q))
        .unwrap_or_else(|| "%".into());
    let total: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM facility_groups WHERE name_key LIKE $1 ESCAPE '\\'",
    )
    .bind(&pattern)
    .fetch_one(&mut *conn)
    .await?;
    let rows = sqlx::query(
        "SELECT id, name, description, created_at, updated_at FROM facility_groups WHERE name_key LIKE $1 ESCAPE '\\' \
         ORDER BY name_key, id LIMIT $2 OFFSET $3",
    )
    .bind(&pattern)
    .bind(params.page_size)
    .bind(params.offset())
    .fetch_all(conn)
    .await?;
    Ok((rows.iter().map(from_row).collect::<Result<_, _>>()?, total))
}

/// Whether another group already has this name (case- and accent-insensitive).
pub async fn name_taken(
    conn: &mut Connection,
    name: &str,
    except_id: &str,
) -> Result<bool, sqlx::Error> {
    let n: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM facility_groups WHERE name_key = $1 AND id <> $2")
            .bind(search_key(name))
            .bind(except_id)
            .fetch_one(conn)
            .await?;
    Ok(n > 0)
}

pub async fn save(conn: &mut Connection, g: &Group, insert: bool) -> Result<(), sqlx::Error> {
    let sql = if insert {
        "INSERT INTO facility_groups (id, name, name_key, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)"
    } else {
        "UPDATE facility_groups SET name = $2, name_key = $3, description = $4, created_at = $5, updated_at = $6 WHERE id = $1"
    };
    sqlx::query(sql)
        .bind(&g.id)
        .bind(&g.name)
        .bind(search_key(&g.name))
        .bind(&g.description)
        .bind(Ts(&g.created_at))
        .bind(Ts(&g.updated_at))
        .execute(conn)
        .await?;
    Ok(())
}

/// Live facilities of the group (only those `member` is linked to, for a `Cliente`).
pub async fn facilities(
    conn: &mut Connection,
    id: &str,
    member: Option<&str>,
) -> Result<Vec<FacilitySummary>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT f.id, f.name, f.cnpj, f.department FROM facilities f WHERE f.group_id = $1 AND f.archived_at IS NULL \
         AND ($2 IS NULL OR EXISTS (SELECT 1 FROM facility_users m WHERE m.facility_id = f.id AND m.user_id = $2)) ORDER BY f.name",
    )
    .bind(id)
    .bind(member)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            let d: String = r.try_get("department")?;
            Ok(FacilitySummary {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                cnpj: r.try_get("cnpj")?,
                department: Department::parse(&d)
                    .ok_or_else(|| sqlx::Error::Decode(format!("unknown department {d}").into()))?,
            })
        })
        .collect()
}

/// Deletes the group; archived facilities that still name it are detached.
pub async fn delete(conn: &mut Connection, id: &str) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE facilities SET group_id = NULL WHERE group_id = $1 AND archived_at IS NOT NULL",
    )
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM facility_groups WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
