//! Equipment of the facilities. Archived equipment stays in the database with its QC tests.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::row::{archive_row, decode, exists, fetch_by, json, page, reference, ts};
use super::{Connection, DbRow};
use crate::store::model::equipment::EquipmentFilter;
use crate::store::types::{JsonText, Param, Ts};
use registry_core::equipment::Equipment;
use sqlx::Row;

const COLUMNS: &str = "e.id, e.facility_id, f.name AS facility_name, e.equipment_type_id, et.name AS equipment_type_name, \
     e.manufacturer, e.model, e.serial_number, e.patrimonial_number, e.localization, e.attributes, e.active, \
     e.created_at, e.updated_at \
     FROM equipment e JOIN facilities f ON f.id = e.facility_id JOIN equipment_types et ON et.id = e.equipment_type_id";

/// Live equipment of live facilities.
const LIVE: &str = "e.archived_at IS NULL AND f.archived_at IS NULL";

fn from_row(r: &DbRow) -> Result<Equipment, sqlx::Error> {
    let attributes = json(r, "attributes")?;
    Ok(Equipment {
        id: r.try_get("id")?,
        facility: reference(r, "facility")?,
        type_of_equipment: reference(r, "equipment_type")?,
        manufacturer: r.try_get("manufacturer")?,
        model: r.try_get("model")?,
        serial_number: r.try_get("serial_number")?,
        patrimonial_number: r.try_get("patrimonial_number")?,
        localization: r.try_get("localization")?,
        attributes: serde_json::from_str(&attributes)
            .map_err(|e| decode("equipment attributes", e))?,
        active: r.try_get("active")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

/// Live equipment, or `None`.
pub async fn get(conn: &mut Connection, id: &str) -> Result<Option<Equipment>, sqlx::Error> {
    let sql = format!("SELECT {COLUMNS} WHERE e.id = $1 AND {LIVE}");
    fetch_by(conn, sql, id, from_row).await
}

/// A page of a facility's live equipment, newest first, filtered by `typeOfEquipment`, `active`
/// (`true`/`false`) and `q` (manufacturer, model, serial or patrimonial number, localization).
pub async fn list_for_facility(
    conn: &mut Connection,
    facility_id: &str,
    filter: &EquipmentFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Equipment>, i64), sqlx::Error> {
    let mut clauses = vec![LIVE.to_owned(), "e.facility_id = $1".to_owned()];
    let mut binds = vec![Param::text(facility_id)];
    match filter.active {
        Some(true) => clauses.push("e.active = TRUE".into()),
        Some(false) => clauses.push("e.active = FALSE".into()),
        None => {}
    }
    let mut add = |clause: &str, value: String| {
        binds.push(Param::Text(Some(value)));
        clauses.push(clause.replace("$?", &format!("${}", binds.len())));
    };
    if let Some(t) = &filter.equipment_type_id {
        add("e.equipment_type_id = $?", t.clone());
    }
    if let Some(q) = &filter.q {
        add(
            "e.search_text LIKE $? ESCAPE '\\'",
            crate::db::contains_pattern(q),
        );
    }
    let filter = clauses.join(" AND ");
    page(
        conn,
        format!("SELECT COUNT(*) FROM equipment e JOIN facilities f ON f.id = e.facility_id WHERE {filter}"),
        format!("SELECT {COLUMNS} WHERE {filter} ORDER BY e.id DESC"),
        binds,
        limit,
        offset,
        from_row,
    )
    .await
}

/// What the `q` filter searches: the equipment's texts, each folded (`text::search_text`).
pub(crate) fn search_text(parts: [Option<&str>; 5]) -> String {
    registry_core::text::search_text(parts.into_iter().map(|p| p.unwrap_or("")))
}

fn search_text_of(e: &Equipment) -> String {
    search_text([
        e.manufacturer.as_deref(),
        e.model.as_deref(),
        e.serial_number.as_deref(),
        e.patrimonial_number.as_deref(),
        e.localization.as_deref(),
    ])
}

pub async fn save(conn: &mut Connection, e: &Equipment, insert: bool) -> Result<(), sqlx::Error> {
    let sql = if insert {
        "INSERT INTO equipment (id, facility_id, equipment_type_id, manufacturer, model, serial_number, patrimonial_number, \
         localization, attributes, active, created_at, updated_at, search_text) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
    } else {
        "UPDATE equipment SET facility_id = $2, equipment_type_id = $3, manufacturer = $4, model = $5, serial_number = $6, \
         patrimonial_number = $7, localization = $8, attributes = $9, active = $10, created_at = $11, updated_at = $12, \
         search_text = $13 WHERE id = $1"
    };
    sqlx::query(sql)
        .bind(&e.id)
        .bind(&e.facility.id)
        .bind(&e.type_of_equipment.id)
        .bind(&e.manufacturer)
        .bind(&e.model)
        .bind(&e.serial_number)
        .bind(&e.patrimonial_number)
        .bind(&e.localization)
        .bind(JsonText(&e.attributes.to_string()))
        .bind(e.active)
        .bind(Ts(&e.created_at))
        .bind(Ts(&e.updated_at))
        .bind(search_text_of(e))
        .execute(&mut *conn)
        .await?;
    if insert {
        return Ok(());
    }
    super::qc_tests::refresh_listed_equipment(conn, &e.id).await
}

pub async fn archive(conn: &mut Connection, id: &str, at: &str) -> Result<(), sqlx::Error> {
    archive_row(&mut *conn, "equipment", id, at).await?;
    super::qc_tests::refresh_listed_equipment(conn, id).await
}

/// Whether QC tests (archived ones too) were recorded on the equipment.
pub async fn has_tests(conn: &mut Connection, id: &str) -> Result<bool, sqlx::Error> {
    exists(
        conn,
        "SELECT COUNT(*) FROM (SELECT 1 FROM qc_tests WHERE equipment_id = $1 LIMIT 1) x",
        &[Param::text(id)],
    )
    .await
}
