//! Data upgrades that need the server's own rules, which a migration's SQL cannot apply: a
//! migration records each in `pending_upgrades`, and [`run_pending`] runs it at start, in the
//! transaction that deletes its row, so an upgrade is done once and whole.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::Connection;
use crate::db::search_key;
use sqlx::{AssertSqlSafe, Row};
use std::collections::HashMap;

/// Runs every upgrade still recorded, within the caller's transaction.
pub async fn run_pending(conn: &mut Connection) -> anyhow::Result<()> {
    let pending: Vec<String> = sqlx::query_scalar("SELECT name FROM pending_upgrades ORDER BY name")
        .fetch_all(&mut *conn)
        .await?;
    for name in pending {
        match name.as_str() {
            "separated_search_text" => separate_search_texts(conn).await?,
            "equipment_search_text" => equipment_search_texts(conn).await?,
            "folded_white_space" => fold_white_space(conn).await?,
            other => anyhow::bail!("unknown data upgrade {other:?}: is this server older than the database?"),
        }
        sqlx::query("DELETE FROM pending_upgrades WHERE name = $1")
            .bind(&name)
            .execute(&mut *conn)
            .await?;
        tracing::info!(upgrade = %name, "data upgrade done");
    }
    Ok(())
}

/// Writes every search text again with its parts apart (`text::search_text`).
async fn separate_search_texts(conn: &mut Connection) -> Result<(), sqlx::Error> {
    let mut cities: HashMap<String, Vec<String>> = HashMap::new();
    let rows = sqlx::query("SELECT facility_id, city FROM facility_addresses ORDER BY facility_id, position")
        .fetch_all(&mut *conn)
        .await?;
    for r in rows {
        cities.entry(r.try_get("facility_id")?).or_default().push(r.try_get("city")?);
    }
    let facilities = sqlx::query("SELECT id, name, company_name, cnpj FROM facilities")
        .fetch_all(&mut *conn)
        .await?;
    for r in facilities {
        let id: String = r.try_get("id")?;
        let own = cities.remove(&id).unwrap_or_default();
        let text = super::facilities::search_text_of(
            r.try_get("name")?,
            r.try_get("company_name")?,
            r.try_get("cnpj")?,
            own.iter().map(String::as_str),
        );
        set(conn, "facilities", &id, text).await?;
    }
    let users = sqlx::query("SELECT id, name, email FROM users").fetch_all(&mut *conn).await?;
    for r in users {
        let text = super::users::search_text(r.try_get("name")?, r.try_get("email")?);
        set(conn, "users", r.try_get("id")?, text).await?;
    }
    let documents = sqlx::query("SELECT id, name, conclusion, code FROM documents")
        .fetch_all(&mut *conn)
        .await?;
    for r in documents {
        let text = super::documents::search_text(
            r.try_get("name")?,
            r.try_get("conclusion")?,
            r.try_get("code")?,
        );
        set(conn, "documents", r.try_get("id")?, text).await?;
    }
    Ok(())
}

/// Writes the search text of every equipment (migration 0008 on PostgreSQL, 0013 on SQLite).
async fn equipment_search_texts(conn: &mut Connection) -> Result<(), sqlx::Error> {
    let rows = sqlx::query(
        "SELECT id, manufacturer, model, serial_number, patrimonial_number, localization FROM equipment",
    )
    .fetch_all(&mut *conn)
    .await?;
    for r in rows {
        let part = |column: &str| r.try_get::<Option<String>, _>(column);
        let text = super::equipment::search_text([
            part("manufacturer")?.as_deref(),
            part("model")?.as_deref(),
            part("serial_number")?.as_deref(),
            part("patrimonial_number")?.as_deref(),
            part("localization")?.as_deref(),
        ]);
        set(conn, "equipment", r.try_get("id")?, text).await?;
    }
    Ok(())
}

/// Writes again every text the server folds with `text::search_key`, now that a run of white
/// space is one space in it: the search texts and the address keys (`city`, `state` filters).
async fn fold_white_space(conn: &mut Connection) -> Result<(), sqlx::Error> {
    separate_search_texts(conn).await?;
    equipment_search_texts(conn).await?;
    let addresses =
        sqlx::query("SELECT facility_id, position, city, state FROM facility_addresses")
            .fetch_all(&mut *conn)
            .await?;
    for r in addresses {
        sqlx::query(
            "UPDATE facility_addresses SET city_key = $3, state_key = $4 \
             WHERE facility_id = $1 AND position = $2 AND (city_key <> $3 OR state_key <> $4)",
        )
        .bind(r.try_get::<String, _>("facility_id")?)
        .bind(r.try_get::<i64, _>("position")?)
        .bind(search_key(r.try_get("city")?))
        .bind(search_key(r.try_get("state")?))
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Sets the search text of record `id` of `table` (a name written in the code).
async fn set(
    conn: &mut Connection,
    table: &'static str,
    id: &str,
    text: String,
) -> Result<(), sqlx::Error> {
    let sql = format!("UPDATE {table} SET search_text = $2 WHERE id = $1 AND search_text <> $2");
    sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .bind(text)
        .execute(conn)
        .await?;
    Ok(())
}
