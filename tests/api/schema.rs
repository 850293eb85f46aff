//! The stored schema of each backend: PostgreSQL's native column types and CHECK constraints,
//! SQLite's STRICT tables. What a DBA would look at first, held by a test.

use crate::helpers::{Backend, TestApp};
use sqlx::Row;

/// A server on PostgreSQL and a connection to its database outside it, or `None` when
/// PostgreSQL is not available here.
async fn postgres() -> Option<(TestApp, sqlx::AnyConnection)> {
    let app = TestApp::spawn(Backend::Postgres).await?;
    let conn = app.outside_connection().await;
    Some((app, conn))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_columns_have_native_types() {
    let Some((_app, mut conn)) = postgres().await else {
        return;
    };
    let rows = sqlx::query(
        "SELECT table_name || '.' || column_name AS col, data_type FROM information_schema.columns \
         WHERE table_schema = current_schema()",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let types: std::collections::HashMap<String, String> = rows
        .iter()
        .map(|r| (r.get::<String, _>("col"), r.get::<String, _>("data_type")))
        .collect();
    for (col, expected) in [
        ("facilities.created_at", "timestamp with time zone"),
        ("facilities.archived_at", "timestamp with time zone"),
        ("audit_events.at", "timestamp with time zone"),
        (
            "email_schedules.next_attempt_at",
            "timestamp with time zone",
        ),
        ("qc_tests.date", "date"),
        ("qc_last.next_due", "date"),
        ("documents.validity", "date"),
        ("users.an_license_validity", "date"),
        ("users.roles", "jsonb"),
        ("facility_users.responsibilities", "jsonb"),
        ("audit_events.after_json", "jsonb"),
        ("qc_tests.measurements", "jsonb"),
        ("users.active", "boolean"),
        ("equipment.active", "boolean"),
        ("material_receipts.over_quantity", "boolean"),
    ] {
        assert_eq!(types.get(col).map(String::as_str), Some(expected), "{col}");
    }
    // No timestamp, date or JSON column is left as text.
    let text_like: Vec<&String> = types
        .iter()
        .filter(|(col, ty)| {
            ty.as_str() == "text"
                && (col.ends_with("_at") || col.ends_with("_json") || col.ends_with(".date"))
        })
        .map(|(col, _)| col)
        .collect();
    assert!(text_like.is_empty(), "{text_like:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_checks_hold_enums_to_their_wire_values() {
    let Some((_app, mut conn)) = postgres().await else {
        return;
    };
    let refused = sqlx::query(
        "INSERT INTO facilities (id, name, company_name, cnpj, telephone, department, search_text, version, created_at, updated_at) \
         VALUES ('x', 'n', 'c', '1', '1', 'Cardiologia', 's', 1, now(), now())",
    )
    .execute(&mut conn)
    .await;
    let err = refused.expect_err("an unknown department is refused by the database");
    assert!(err.to_string().contains("check constraint"), "{err}");
    let refused =
        sqlx::query("INSERT INTO facility_counts (department, live) VALUES ('Oncologia', 0)")
            .execute(&mut conn)
            .await;
    assert!(
        refused.is_err(),
        "facility_counts.department is checked too"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Every table but the full-text index (a virtual table, and the tables FTS5 keeps for it).
async fn sqlite_tables_are_strict() {
    let app = TestApp::spawn(Backend::Sqlite).await.expect("SQLite app");
    let mut conn = app.outside_connection().await;
    let tables: Vec<(String, String)> = sqlx::query_as(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' \
         AND name NOT LIKE 'sqlite%' \
         AND name NOT IN (SELECT name || suffix FROM sqlite_master, \
           (SELECT '' AS suffix UNION ALL SELECT '_data' UNION ALL SELECT '_idx' UNION ALL SELECT '_docsize' \
            UNION ALL SELECT '_content' UNION ALL SELECT '_config') \
           WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%')",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert!(tables.len() > 20, "{tables:?}");
    for (name, sql) in tables {
        let options = sql.rsplit(')').next().unwrap_or_default();
        assert!(
            options.split(',').any(|o| o.trim() == "STRICT"),
            "{name} is not STRICT"
        );
    }
}
