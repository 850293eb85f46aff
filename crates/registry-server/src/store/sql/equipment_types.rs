//! Equipment types and the QC test types of each.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::catalogue::name_pattern;
use crate::store::model::catalogue::CatalogueFilter;
use super::row::{decode, exists, fetch_by, json_opt, page, reference, ts};
use super::{Connection, DbRow};
use crate::db::name_key;
use crate::store::types::{JsonText, Param, Ts};
use registry_core::equipment::{Reference, TestType};
use registry_core::qc::TestKind;
use sqlx::Row;

/// What still refers to an equipment type: `(equipment, test types)`. Archived equipment counts,
/// since it keeps its history.
pub async fn type_users(conn: &mut Connection, id: &str) -> Result<(i64, i64), sqlx::Error> {
    let equipment: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM equipment WHERE equipment_type_id = $1")
            .bind(id)
            .fetch_one(&mut *conn)
            .await?;
    let tests: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM test_types WHERE equipment_type_id = $1")
            .bind(id)
            .fetch_one(conn)
            .await?;
    Ok((equipment, tests))
}

const TEST_TYPE_COLUMNS: &str = "t.id, t.name, t.equipment_type_id, et.name AS equipment_type_name, \
     t.expiration_in_days, t.description, t.kind, t.tolerances, t.created_at, t.updated_at \
     FROM test_types t JOIN equipment_types et ON et.id = t.equipment_type_id";

fn test_type_from_row(r: &DbRow) -> Result<TestType, sqlx::Error> {
    let kind: Option<String> = r.try_get("kind")?;
    let tolerances = json_opt(r, "tolerances")?;
    Ok(TestType {
        kind: kind
            .map(|k| TestKind::parse(&k).ok_or_else(|| decode("test kind", &k)))
            .transpose()?,
        tolerances: tolerances
            .map(|t| serde_json::from_str(&t))
            .transpose()
            .map_err(|e| decode("tolerances", e))?,
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        type_of_equipment: reference(r, "equipment_type")?,
        expiration_in_days: r.try_get("expiration_in_days")?,
        description: r.try_get("description")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
    })
}

pub async fn get_test_type(
    conn: &mut Connection,
    id: &str,
) -> Result<Option<TestType>, sqlx::Error> {
    let sql = format!("SELECT {TEST_TYPE_COLUMNS} WHERE t.id = $1");
    fetch_by(conn, sql, id, test_type_from_row).await
}

/// Test types by equipment type and name, optionally of one equipment type only.
pub async fn list_test_types(
    conn: &mut Connection,
    filter: &CatalogueFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<TestType>, i64), sqlx::Error> {
    let binds = vec![
        Param::Text(filter.equipment_type_id.clone()),
        Param::text(&name_pattern(filter.q.as_deref())),
    ];
    let filter = "($1 IS NULL OR t.equipment_type_id = $1) AND t.name_key LIKE $2 ESCAPE '\\'";
    page(
        conn,
        format!("SELECT COUNT(*) FROM test_types t WHERE {filter}"),
        format!("SELECT {TEST_TYPE_COLUMNS} WHERE {filter} ORDER BY t.created_at DESC, t.id DESC"),
        binds,
        limit,
        offset,
        test_type_from_row,
    )
    .await
}

/// Whether another test type of this equipment type has this name.
pub async fn test_type_name_taken(
    conn: &mut Connection,
    equipment_type_id: &str,
    name: &str,
    except_id: &str,
) -> Result<bool, sqlx::Error> {
    let binds = [
        Param::text(equipment_type_id),
        Param::text(&name_key(name)),
        Param::text(except_id),
    ];
    exists(
        conn,
        "SELECT COUNT(*) FROM test_types WHERE equipment_type_id = $1 AND name_key = $2 AND id <> $3",
        &binds,
    )
    .await
}

pub async fn save_test_type(
    conn: &mut Connection,
    t: &TestType,
    insert: bool,
) -> Result<(), sqlx::Error> {
    let tolerances = t
        .tolerances
        .as_ref()
        .map(|v| serde_json::to_string(v).expect("tolerances serialize"));
    let sql = if insert {
        "INSERT INTO test_types (id, name, name_key, equipment_type_id, expiration_in_days, description, created_at, updated_at, \
         kind, tolerances) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    } else {
        "UPDATE test_types SET name = $2, name_key = $3, equipment_type_id = $4, expiration_in_days = $5, description = $6, \
         created_at = $7, updated_at = $8, kind = $9, tolerances = $10 WHERE id = $1"
    };
    sqlx::query(sql)
        .bind(&t.id)
        .bind(&t.name)
        .bind(name_key(&t.name))
        .bind(&t.type_of_equipment.id)
        .bind(t.expiration_in_days)
        .bind(&t.description)
        .bind(Ts(&t.created_at))
        .bind(Ts(&t.updated_at))
        .bind(t.kind.map(|k| k.as_str()))
        .bind(tolerances.as_deref().map(JsonText))
        .execute(&mut *conn)
        .await?;
    if !insert {
        // The period may have changed: the next due dates of this type follow it.
        super::qc_tests::refresh_last(conn, None, Some(&t.id)).await?;
    }
    Ok(())
}

/// QC test records (archived ones too) of this test type.
pub async fn test_type_records(conn: &mut Connection, id: &str) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM qc_tests WHERE test_type_id = $1")
        .bind(id)
        .fetch_one(conn)
        .await
}

pub async fn delete_test_type(conn: &mut Connection, id: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM test_types WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Seeds the QC test catalogue (`registry_core::qc::catalogue`) once per database: a test type
/// whose id or name is already taken on its equipment type is left as it is.
pub async fn seed_catalogue(conn: &mut Connection) -> Result<(), sqlx::Error> {
    let at = crate::db::now();
    let claimed = sqlx::query(
        "INSERT INTO catalogue_seeds (name, seeded_at) VALUES ('qc', $1) ON CONFLICT (name) DO NOTHING",
    )
    .bind(Ts(&at))
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if claimed == 0 {
        return Ok(());
    }
    let mut seeded = 0;
    for entry in registry_core::qc::catalogue() {
        let taken: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM test_types WHERE id = $1 OR (equipment_type_id = $2 AND name_key = $3)",
        )
        .bind(entry.id)
        .bind(entry.equipment_type_id)
        .bind(name_key(entry.name))
        .fetch_one(&mut *conn)
        .await?;
        let equipment_type: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM equipment_types WHERE id = $1")
                .bind(entry.equipment_type_id)
                .fetch_one(&mut *conn)
                .await?;
        if taken > 0 || equipment_type == 0 {
            continue;
        }
        let t = TestType {
            id: entry.id.into(),
            name: entry.name.into(),
            type_of_equipment: Reference {
                id: entry.equipment_type_id.into(),
                name: String::new(),
            },
            expiration_in_days: entry.expiration_in_days,
            description: Some(entry.description.into()),
            kind: Some(entry.kind),
            tolerances: Some(entry.tolerances),
            created_at: at.clone(),
            updated_at: at.clone(),
        };
        save_test_type(conn, &t, true).await?;
        seeded += 1;
    }
    tracing::info!(test_types = seeded, "seeded the QC test catalogue");
    Ok(())
}
