//! Waste packages in decay storage: stored, edited until released, released once, listed.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::material::{Filter, reference};
use super::row::decode;
use super::row::{day, json, ts, ts_opt};
use super::{Connection, DbRow};
use crate::store::model::material::*;
use crate::store::types::{Day, JsonText, Ts};
use registry_core::equipment::Reference;
use registry_core::waste::{WasteContent, WasteForm, WastePackage, WasteRelease};
use sqlx::{AssertSqlSafe, Row};

pub(super) const WASTE_COLUMNS: &str = "w.id, w.facility_id, f.name AS facility_name, w.form, w.contents, w.mass, w.closed_at, \
     w.location, w.description, w.release_date, w.released_at, w.released_by, rb.name AS releaser_name, w.dose_rate, \
     w.release_notes, w.created_by, u.name AS creator_name, w.created_at, w.updated_at";
pub(super) const WASTE_FROM: &str = "FROM waste_packages w JOIN facilities f ON f.id = w.facility_id \
     JOIN users u ON u.id = w.created_by LEFT JOIN users rb ON rb.id = w.released_by";

pub(super) fn waste_from_row(r: &DbRow, today: &str) -> Result<WastePackage, sqlx::Error> {
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
    limit: i64,
    offset: i64,
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
    let select = (WASTE_COLUMNS, WASTE_FROM, "w.id DESC");
    filter
        .page(conn, select, limit, offset, |r| waste_from_row(r, today))
        .await
}
