//! Groups of facilities.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::Connection;
use registry_core::Department;
use registry_core::api::FacilitySummary;
use sqlx::Row;

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

/// Unsets the group of the archived facilities that still name it, before it is deleted.
pub async fn detach_archived_facilities(
    conn: &mut Connection,
    id: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(
        "UPDATE facilities SET group_id = NULL WHERE group_id = $1 AND archived_at IS NOT NULL \
         RETURNING id",
    )
    .bind(id)
    .fetch_all(conn)
    .await
}
