//! SQLite migrations that rebuild tables keep every row: a database written at the version before
//! the migrations is upgraded and read again.

use super::SQLITE_MIGRATIONS;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{Row, SqlitePool, ValueRef};

const CHILDREN: [&str; 3] = [
    "facility_addresses",
    "facility_users",
    "facility_radioisotopes",
];

/// A new database file at `path` with the migrations up to `version`, on one connection.
async fn migrated_to(version: i64, path: &std::path::Path, foreign_keys: bool) -> SqlitePool {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .foreign_keys(foreign_keys);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .unwrap();
    SQLITE_MIGRATIONS.run_to(version, &pool).await.unwrap();
    pool
}

/// A database at `path` written at `version` by `rows` (SQL), then opened by the server: the
/// remaining migrations and the data upgrades they record run.
/// SQL of one user (`u1`: name, search text) and one facility (`f1`: name, search text) with one
/// address (city, state and their keys), as a database at an older migration held them: every
/// text exactly as given.
fn user_and_facility(at: &str, user: [&str; 2], facility: [&str; 2], address: [&str; 4]) -> String {
    let ([name, user_search], [facility_name, search]) = (user, facility);
    let [city, state, city_key, state_key] = address;
    format!(
        "INSERT INTO users (id, name, email, roles, password_hash, search_text, created_at, updated_at)
             VALUES ('u1', '{name}', 'ana@example.com', '[\"Físico\"]', 'x', '{user_search}', '{at}', '{at}');
         INSERT INTO facilities (id, name, company_name, cnpj, telephone, department, search_text,
                                 version, created_at, updated_at)
             VALUES ('f1', '{facility_name}', 'Sol Ltda', '11222333000181', '1', 'Medicina Nuclear',
                     '{search}', 1, '{at}', '{at}');
         INSERT INTO facility_addresses (facility_id, position, street, city, state, city_key, state_key)
             VALUES ('f1', 0, 'Rua A, 1', '{city}', '{state}', '{city_key}', '{state_key}');"
    )
}

async fn upgraded(version: i64, path: &std::path::Path, rows: String) -> super::Db {
    let pool = migrated_to(version, path, true).await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(rows))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let db = super::Db::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    crate::store::upkeep::run(&db).await.unwrap();
    db
}

/// Every row of `table` as text, sorted.
async fn dump(pool: &SqlitePool, table: &str) -> Vec<String> {
    let sql = format!("SELECT * FROM {table}");
    let mut rows: Vec<String> = sqlx::query(sqlx::AssertSqlSafe(sql))
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| {
            (0..r.len())
                .map(|i| {
                    if r.try_get_raw(i).unwrap().is_null() {
                        return "NULL".to_owned();
                    }
                    let int = || r.try_get::<i64, _>(i).ok().map(|n| n.to_string());
                    let real = || r.try_get::<f64, _>(i).ok().map(|x| x.to_string());
                    let text = r.try_get::<String, _>(i).ok();
                    text.or_else(int).or_else(real).unwrap()
                })
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    rows.sort();
    rows
}

#[tokio::test]
async fn rebuilding_the_facility_children_keeps_their_rows_indexes_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let pool = migrated_to(5, &dir.path().join("upgrade.db"), true).await;
    let at = "2026-11-26T10:00:00.000000Z";
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "INSERT INTO users (id, name, email, roles, password_hash, search_text, created_at, updated_at)
             VALUES ('u1', 'Ana', 'ana@example.com', '[\"Físico\"]', 'x', 'ana', '{at}', '{at}'),
                    ('u2', 'Bia', 'bia@example.com', '[\"Cliente\"]', 'x', 'bia', '{at}', '{at}');
         INSERT INTO facilities (id, name, company_name, cnpj, telephone, department, search_text,
                                 version, created_at, updated_at)
             VALUES ('f1', 'Clínica', 'Clínica Ltda', '11222333000181', '1', 'Medicina Nuclear',
                     'clinica', 1, '{at}', '{at}'),
                    ('f2', 'Hospital', 'Hospital SA', '11444777000161', '2', 'Radiodiagnóstico',
                     'hospital', 1, '{at}', '{at}');
         INSERT INTO facility_addresses VALUES
             ('f1', 0, 'Rua A, 1', 'Recife', 'PE', NULL, '50000-000', 'recife', 'pe'),
             ('f1', 1, 'Rua B, 2', 'Olinda', 'PE', 'sala 3', NULL, 'olinda', 'pe'),
             ('f2', 0, 'Av. C, 3', 'São Paulo', 'SP', NULL, NULL, 'sao paulo', 'sp');
         INSERT INTO facility_users VALUES
             ('f1', 'u2', 1, '[\"Substituto\"]'), ('f1', 'u1', 0, '[\"Titular\",\"RT\"]'),
             ('f2', 'u1', 0, '[\"Supervisor\"]');
         INSERT INTO facility_radioisotopes VALUES
             ('f1', 'Tc-99m', 0, 2500.5), ('f1', 'I-131', 1, 0.1), ('f2', 'F-18', 0, 300);"
    )))
    .execute(&pool)
    .await
    .unwrap();
    let mut before = Vec::new();
    for table in CHILDREN {
        before.push(dump(&pool, table).await);
    }

    SQLITE_MIGRATIONS.run(&pool).await.unwrap();

    for (table, rows) in CHILDREN.iter().zip(before) {
        assert_eq!(dump(&pool, table).await, rows, "{table}");
        let sql: String = sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE name = $1")
            .bind(table)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert!(sql.contains("WITHOUT ROWID"), "{sql}");
    }
    let indexes: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN
             ('facility_addresses', 'facility_users', 'facility_radioisotopes')
             AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        indexes,
        [
            "facility_addresses_city",
            "facility_addresses_state",
            "facility_radioisotopes_name",
            "facility_users_user"
        ]
    );
    // The keys still hold: no dangling row, a child of no facility is refused, and so is a
    // second row with the same key.
    let dangling: Vec<(String,)> = sqlx::query_as("SELECT \"table\" FROM pragma_foreign_key_check")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert!(dangling.is_empty(), "{dangling:?}");
    for insert in [
        "INSERT INTO facility_radioisotopes VALUES ('nowhere', 'F-18', 0, 1)",
        "INSERT INTO facility_users VALUES ('f1', 'nobody', 2, '[]')",
        "INSERT INTO facility_addresses VALUES ('f2', 0, 'x', 'y', 'z', NULL, NULL, 'y', 'z')",
        // Keyed by position (0007), the former keys still unique.
        "INSERT INTO facility_users VALUES ('f2', 'u2', 0, '[]')",
        "INSERT INTO facility_users VALUES ('f1', 'u1', 5, '[]')",
        "INSERT INTO facility_radioisotopes VALUES ('f2', 'Lu-177', 0, 1)",
        "INSERT INTO facility_radioisotopes VALUES ('f1', 'Tc-99m', 7, 1)",
    ] {
        assert!(
            sqlx::query(insert).execute(&pool).await.is_err(),
            "{insert}"
        );
    }
}

/// The days of the due lists (migration 0008) as kept, and as counted from `qc_last`.
async fn due_days(pool: &SqlitePool) -> (Vec<(String, i64)>, Vec<(String, i64)>) {
    let kept = sqlx::query_as("SELECT next_due, pairs FROM qc_listed_due_days ORDER BY next_due")
        .fetch_all(pool)
        .await
        .unwrap();
    let counted = sqlx::query_as(
        "SELECT next_due, COUNT(*) FROM qc_last WHERE listed = 1 GROUP BY next_due ORDER BY next_due",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    (kept, counted)
}

/// Migration 0008 counts the listed pairs already in `qc_last` per day, and its triggers keep
/// the counts equal to `qc_last` through random inserts, upserts, updates and deletes (the
/// statements `store::qc_tests` writes it with).
#[tokio::test]
async fn the_due_day_counts_follow_every_change_of_qc_last() {
    use rand::{Rng, SeedableRng};
    let dir = tempfile::tempdir().unwrap();
    // Pairs of equipment and test types that are not stored: only `qc_last` is under test.
    let pool = migrated_to(7, &dir.path().join("due-days.db"), false).await;
    sqlx::raw_sql(
        "INSERT INTO qc_last (equipment_id, test_type_id, last_date, next_due, listed) VALUES
             ('e1', 't1', '2026-01-01', '2026-02-01', 1), ('e2', 't1', '2026-01-01', '2026-02-01', 1),
             ('e3', 't1', '2026-01-01', '2026-02-01', 0), ('e1', 't2', '2026-01-01', '2026-03-01', 1)",
    )
    .execute(&pool)
    .await
    .unwrap();
    SQLITE_MIGRATIONS.run(&pool).await.unwrap();
    let (kept, counted) = due_days(&pool).await;
    assert_eq!(
        kept,
        [("2026-02-01".to_owned(), 2), ("2026-03-01".to_owned(), 1)]
    );
    assert_eq!(kept, counted);

    let seed = rand::rng().random::<u64>();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for step in 0..400 {
        let equipment = format!("e{}", rng.random_range(0..6));
        let test_type = format!("t{}", rng.random_range(0..4));
        let day = format!("2026-0{}-01", rng.random_range(1..5));
        let listed = rng.random_range(0..2);
        let q = match rng.random_range(0..6) {
            0 | 1 => sqlx::query(
                "INSERT INTO qc_last (equipment_id, test_type_id, last_date, next_due, listed)
                 VALUES ($1, $2, '2026-01-01', $3, $4)
                 ON CONFLICT (equipment_id, test_type_id)
                 DO UPDATE SET next_due = excluded.next_due, listed = excluded.listed",
            )
            .bind(&equipment)
            .bind(&test_type)
            .bind(&day)
            .bind(listed),
            2 => sqlx::query("UPDATE qc_last SET listed = $2 WHERE equipment_id = $1")
                .bind(&equipment)
                .bind(listed),
            3 => sqlx::query("UPDATE qc_last SET next_due = $2 WHERE test_type_id = $1")
                .bind(&test_type)
                .bind(&day),
            // Same values again, and a column the counts do not read.
            4 => sqlx::query("UPDATE qc_last SET listed = listed, last_conclusion = $1").bind(&day),
            _ => sqlx::query("DELETE FROM qc_last WHERE equipment_id = $1 OR test_type_id = $2")
                .bind(&equipment)
                .bind(&test_type),
        };
        q.execute(&pool).await.unwrap();
        let (kept, counted) = due_days(&pool).await;
        assert_eq!(kept, counted, "step {step}, seed {seed}");
    }
}

/// The total of a facility search for `q`.
async fn facilities_found(db: &super::Db, q: &str) -> i64 {
    let filter = crate::store::facilities::FacilityFilter {
        q: Some(q.to_owned()),
        ..Default::default()
    };
    let mut conn = db.read().await.unwrap();
    crate::store::facilities::list(&mut conn, &filter, 20, 0)
        .await
        .unwrap()
        .1
}

/// The total of a user search for `q`.
async fn users_found(db: &super::Db, q: &str) -> i64 {
    let filter = crate::store::users::UserFilter {
        q: Some(q.to_owned()),
        ..Default::default()
    };
    let mut conn = db.read().await.unwrap();
    crate::store::users::list(&mut conn, &filter, 20, 0)
        .await
        .unwrap()
        .1
}

/// Migration 0009 has the server write every search text again with its parts apart, once, at
/// start: a term then no longer matches across two fields, and within one it still does.
#[tokio::test]
async fn search_texts_written_before_0009_are_written_again_with_their_parts_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("search.db");
    let at = "2026-11-26T10:00:00.000000Z";
    let db = upgraded(
        8,
        &path,
        user_and_facility(
            at,
            ["Ana Lima", "ana lima ana@example.com"],
            ["Clínica Sol", "clinica sol sol ltda 11222333000181 recife"],
            ["Recife", "PE", "recife", "pe"],
        ),
    )
    .await;
    for (q, total) in [
        ("ltda 1122", 0),
        ("sol sol", 0),
        ("clínica sol", 1),
        ("recife", 1),
    ] {
        assert_eq!(facilities_found(&db, q).await, total, "{q}");
    }
    assert_eq!(users_found(&db, "lima ana").await, 0);
    let mut conn = db.read().await.unwrap();
    let super::BackendConn::Sqlite(c) = conn.backend().await.unwrap() else {
        unreachable!("a SQLite database")
    };
    let pending: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM pending_upgrades")
        .fetch_one(c)
        .await
        .unwrap();
    assert_eq!(pending, 0);
}

/// Migration 0012 writes `active` into the user links kept on facilities written before it, and
/// from then on a user's deactivation or reactivation rewrites them.
#[tokio::test]
async fn user_links_written_before_0012_say_whether_the_user_is_active() {
    let dir = tempfile::tempdir().unwrap();
    let pool = migrated_to(11, &dir.path().join("upgrade.db"), true).await;
    let at = "2026-11-28T10:00:00.000000Z";
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "INSERT INTO users (id, name, email, roles, active, password_hash, search_text, created_at, updated_at)
             VALUES ('u1', 'Ana', 'ana@example.com', '[\"Físico\"]', 1, 'x', 'ana', '{at}', '{at}'),
                    ('u2', 'Bia', 'bia@example.com', '[\"Cliente\"]', 0, 'x', 'bia', '{at}', '{at}');
         INSERT INTO facilities (id, name, company_name, cnpj, telephone, department, search_text,
                                 version, created_at, updated_at)
             VALUES ('f1', 'Clínica', 'Clínica Ltda', '11222333000181', '1', 'Medicina Nuclear',
                     'clinica', 1, '{at}', '{at}');
         INSERT INTO facility_users VALUES ('f1', 'u1', 0, '[\"Titular\"]'), ('f1', 'u2', 1, '[]');"
    )))
    .execute(&pool)
    .await
    .unwrap();
    let links = || async {
        let json: String = sqlx::query_scalar("SELECT users_json FROM facilities WHERE id = 'f1'")
            .fetch_one(&pool)
            .await
            .unwrap();
        let links: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
        links
            .iter()
            .map(|l| (l["_id"].as_str().unwrap().to_owned(), l["active"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(links().await[0].1, serde_json::Value::Null);

    SQLITE_MIGRATIONS.run(&pool).await.unwrap();

    let active = |a: bool, b: bool| vec![("u1".to_owned(), a.into()), ("u2".to_owned(), b.into())];
    assert_eq!(links().await, active(true, false));
    sqlx::raw_sql("UPDATE users SET active = 1 - active")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(links().await, active(false, true));
}

/// Migration 0013 has the server write the search text of the equipment written before it, once,
/// at start: `q` then finds it by any of its texts, whatever their case and accents.
#[tokio::test]
async fn equipment_written_before_0013_is_found_by_its_texts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("equipment.db");
    let at = "2026-11-28T10:00:00.000000Z";
    let db = upgraded(
        12,
        &path,
        format!(
        "INSERT INTO facilities (id, name, company_name, cnpj, telephone, department, search_text,
                                 version, created_at, updated_at)
             VALUES ('f1', 'Clínica', 'Clínica Ltda', '11222333000181', '1', 'Medicina Nuclear',
                     'clinica', 1, '{at}', '{at}');
         INSERT INTO equipment_types (id, name, name_key, created_at, updated_at)
             VALUES ('t1', 'Gama', 'gama', '{at}', '{at}');
         INSERT INTO equipment (id, facility_id, equipment_type_id, manufacturer, model, attributes,
                                created_at, updated_at)
             VALUES ('e1', 'f1', 't1', 'Ñandú Médica', 'Câmara X', '{{}}', '{at}', '{at}');"),
    )
    .await;
    let mut conn = db.read().await.unwrap();
    for (q, total) in [("nandu", 1), ("CÂMARA x", 1), ("medica camara", 0)] {
        let filter = crate::store::equipment::EquipmentFilter {
            q: Some(q.into()),
            ..Default::default()
        };
        let (_, found) =
            crate::store::equipment::list_for_facility(&mut conn, "f1", &filter, 20, 0)
                .await
                .unwrap();
        assert_eq!(found, total, "{q}");
    }
}

/// Migration 0014 has the server fold white space again in the search texts and address keys it
/// wrote before: a name or city with a non-breaking space or two spaces is found by one space.
#[tokio::test]
async fn white_space_written_before_0014_is_one_space() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spaces.db");
    let at = "2026-11-29T10:00:00.000000Z";
    let db = upgraded(
        13,
        &path,
        user_and_facility(
            at,
            ["Ana\u{a0}Lima", "ana\u{a0}lima\u{1f}ana@example.com"],
            [
                "Clínica\u{a0}Sol",
                "clinica\u{a0}sol\u{1f}sol ltda\u{1f}11222333000181\u{1f}sao  paulo",
            ],
            ["São  Paulo", "SP", "sao  paulo", "sp"],
        ),
    )
    .await;
    for q in ["clinica sol", "CLÍNICA\u{a0} SOL", "sao paulo"] {
        assert_eq!(facilities_found(&db, q).await, 1, "{q}");
    }
    let mut conn = db.read().await.unwrap();
    let filter = crate::store::facilities::FacilityFilter {
        city: Some("São Paulo".into()),
        ..Default::default()
    };
    let (_, in_city) = crate::store::facilities::list(&mut conn, &filter, 20, 0)
        .await
        .unwrap();
    assert_eq!(in_city, 1);
    assert_eq!(users_found(&db, "ana lima").await, 1);
}
