//! The registry-wide due lists' totals are sums over kept per-day counts: one counter a day on
//! SQLite (migration 0008), rows of changes on PostgreSQL (migration 0010) that the server folds
//! every minute (`app::compact_due_counts`). Whatever changes `qc_last`, and however many QC
//! writes run at once, the kept counts must stay equal to what `qc_last` holds. And on PostgreSQL
//! a due page keeps its plan.

use crate::equipment::{DOSE_CALIBRATOR, days_ago, equipment, id, record, test_type};
use crate::helpers::{Backend, TestApp, facility_payload};
use crate::on_both_databases;
use futures::future::join_all;
use sqlx::Connection;

on_both_databases!(parallel_records_move_the_totals_by_exactly_their_number);

const OVERDUE: &str = "/api/tests/due?state=overdue";
const OK: &str = "/api/tests/due?state=ok";

/// Twelve equipment, each with its first record of a 30-day test 40 days ago, recorded all at
/// once: twelve overdue. Then all recorded again today, at once: none overdue, twelve ok. The
/// totals hold after the counts are folded.
async fn parallel_records_move_the_totals_by_exactly_their_number(app: TestApp) {
    let facility = id(&app
        .create_facility(facility_payload("Contagem Diária"))
        .await);
    let tt = test_type(&app, DOSE_CALIBRATOR, "Reprodutibilidade", 30).await;
    let mut fleet = Vec::new();
    for _ in 0..12 {
        fleet.push(equipment(&app, &facility, DOSE_CALIBRATOR).await);
    }
    let old = days_ago(40);
    join_all(fleet.iter().map(|eq| record(&app, eq, &tt, &old))).await;
    assert_eq!(app.total(OVERDUE, &app.admin).await, 12);
    let today = days_ago(0);
    join_all(fleet.iter().map(|eq| record(&app, eq, &tt, &today))).await;
    for _ in 0..2 {
        assert_eq!(app.total(OVERDUE, &app.admin).await, 0);
        assert_eq!(app.total(OK, &app.admin).await, 12);
        registry_server::app::compact_due_counts(&app.state)
            .await
            .unwrap();
    }
}

/// Random inserts, upserts, updates and deletes of `qc_last` (the statements the store writes it
/// with), on real equipment and test types: after each, the rows of changes sum per day to the
/// listed pairs of `qc_last`; folded now and then, they keep the sums with one row a day.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_due_day_changes_follow_every_change_of_qc_last_on_postgres() {
    use rand::{Rng, SeedableRng};
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let facility = id(&app
        .create_facility(facility_payload("Mudanças Diárias"))
        .await);
    let mut fleet = Vec::new();
    for _ in 0..5 {
        fleet.push(equipment(&app, &facility, DOSE_CALIBRATOR).await);
    }
    let mut tests = Vec::new();
    for name in ["Um", "Dois", "Três"] {
        tests.push(test_type(&app, DOSE_CALIBRATOR, name, 30).await);
    }
    let url = app.state.config.database_url.clone().unwrap();
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let seed = rand::rng().random::<u64>();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for step in 0..300 {
        let eq = &fleet[rng.random_range(0..fleet.len())];
        let tt = &tests[rng.random_range(0..tests.len())];
        let day = chrono::NaiveDate::from_ymd_opt(2026, rng.random_range(1..5), 1).unwrap();
        let listed = rng.random_bool(0.5);
        let q = match rng.random_range(0..6) {
            0 | 1 => sqlx::query(
                "INSERT INTO qc_last (equipment_id, test_type_id, last_date, next_due, listed)
                 VALUES ($1, $2, DATE '2026-01-01', $3, $4)
                 ON CONFLICT (equipment_id, test_type_id)
                 DO UPDATE SET next_due = excluded.next_due, listed = excluded.listed",
            )
            .bind(eq)
            .bind(tt)
            .bind(day)
            .bind(listed),
            2 => sqlx::query("UPDATE qc_last SET listed = $2 WHERE equipment_id = $1")
                .bind(eq)
                .bind(listed),
            3 => sqlx::query("UPDATE qc_last SET next_due = $2 WHERE test_type_id = $1")
                .bind(tt)
                .bind(day),
            // Same values again, and a column the counts do not read.
            4 => sqlx::query("UPDATE qc_last SET listed = listed, last_conclusion = NULL"),
            _ => sqlx::query("DELETE FROM qc_last WHERE equipment_id = $1 OR test_type_id = $2")
                .bind(eq)
                .bind(tt),
        };
        q.execute(&mut conn).await.unwrap();
        if step % 40 == 39 {
            registry_server::app::compact_due_counts(&app.state)
                .await
                .unwrap();
            let (rows, days): (i64, i64) = sqlx::query_as(
                "SELECT COUNT(*), COUNT(DISTINCT next_due) FROM qc_listed_due_changes",
            )
            .fetch_one(&mut conn)
            .await
            .unwrap();
            assert_eq!(
                rows, days,
                "step {step}, seed {seed}: folded to one row a day"
            );
        }
        let kept: Vec<(chrono::NaiveDate, i64)> = sqlx::query_as(
            "SELECT next_due, CAST(SUM(pairs) AS BIGINT) FROM qc_listed_due_changes \
             GROUP BY next_due HAVING SUM(pairs) <> 0 ORDER BY next_due",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        let counted: Vec<(chrono::NaiveDate, i64)> = sqlx::query_as(
            "SELECT next_due, COUNT(*) FROM qc_last WHERE listed GROUP BY next_due ORDER BY next_due",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        assert_eq!(kept, counted, "step {step}, seed {seed}");
    }
}

/// On PostgreSQL a due page's plan is kept by each connection: the days and the page's bounds
/// are written into the SQL, so that the statement binds nothing and is planned once. With them
/// bound, every page of a large registry was planned again (2–3 ms against 0.3 ms to run it; a
/// registry this small gets the generic plan either way, so the test checks that nothing is
/// bound). Pages after the first are not kept by the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn due_pages_keep_their_plan_on_postgres() {
    use registry_core::equipment::DueState;
    use registry_server::db::BackendConn;
    use registry_server::store::qc_tests::{DueQuery, due};
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let facility = id(&app
        .create_facility(facility_payload("Plano Guardado"))
        .await);
    let tt = test_type(&app, DOSE_CALIBRATOR, "Reprodutibilidade", 30).await;
    for days in [45, 40, 35, 20] {
        let eq = equipment(&app, &facility, DOSE_CALIBRATOR).await;
        record(&app, &eq, &tt, &days_ago(days)).await;
    }
    let mut conn = app.state.db.read().await.unwrap();
    for (states, expected) in [
        (vec![DueState::Overdue], 3),
        (vec![DueState::DueSoon, DueState::Ok], 1),
    ] {
        let mut query = DueQuery {
            equipment_id: None,
            member: None,
            facility_id: None,
            equipment_type_id: None,
            states,
            failing: false,
            today: chrono::Utc::now().date_naive(),
            limit: 2,
            offset: 0,
        };
        for _ in 0..8 {
            let (list, total) = due(&mut conn, &query).await.unwrap();
            assert_eq!((list.len(), total), (expected.min(2), expected as i64));
        }
        query.offset = 2;
        let (list, total) = due(&mut conn, &query).await.unwrap();
        assert_eq!(
            (list.len(), total),
            (expected.saturating_sub(2), expected as i64)
        );
    }
    let BackendConn::Postgres(pg) = conn.backend().await.unwrap() else {
        unreachable!("a PostgreSQL server")
    };
    let plans: Vec<(String, String, i64, i64)> = sqlx::query_as(
        "SELECT statement, parameter_types::text, generic_plans, custom_plans \
         FROM pg_prepared_statements WHERE statement LIKE 'SELECT e.id%ORDER BY l.next_due%'",
    )
    .fetch_all(pg)
    .await
    .unwrap();
    assert_eq!(plans.len(), 2, "the first pages only: {plans:?}");
    for (statement, types, generic, custom) in plans {
        assert_eq!(
            (types.as_str(), generic, custom),
            ("{}", 8, 0),
            "{statement}"
        );
    }
}
