//! The lists that read an index kept beside the rows (migration 0002): facility search through
//! the trigram index (FTS5 on SQLite, `pg_trgm` on PostgreSQL), and the registry-wide due lists
//! through `qc_last.listed`; pages of the whole and per-department facility lists through the
//! kept ranks (migration 0003). Every write that changes what they index must reach them.

use crate::equipment::{DOSE_CALIBRATOR, days_ago, equipment, id, record, test_type};
use crate::helpers::{Backend, TestApp, entries, facility_payload, list_strs, urlencode};
use crate::on_both_databases;
use registry_server::store::facilities as store;
use serde_json::json;

on_both_databases!(
    search_follows_creates_edits_and_archives,
    search_terms_of_any_length_and_characters,
    due_lists_leave_out_inactive_and_archived_equipment,
    pages_follow_creates_archives_and_department_moves,
    search_pages_follow_the_list_order,
);

async fn search_total(app: &TestApp, q: &str) -> i64 {
    let path = format!("/api/facilities?q={}", urlencode(q));
    app.total(&path, &app.admin).await
}

/// Asserts the `search_total` of each `(term, total)`.
async fn assert_search_totals(app: &TestApp, expected: &[(&str, i64)]) {
    for (term, total) in expected {
        assert_eq!(search_total(app, term).await, *total, "q={term}");
    }
}

/// The search table holds exactly the live facilities with their current search text (SQLite:
/// the FTS5 table, its entry named by `search_rowid`; PostgreSQL: `facility_search`, migration
/// 0011).
async fn assert_index_in_step(app: &TestApp) {
    use sqlx::Row;
    let sql = match app.backend {
        Backend::Sqlite => {
            "SELECT (SELECT COUNT(*) FROM facilities f WHERE f.archived_at IS NULL AND NOT EXISTS \
               (SELECT 1 FROM facility_search s WHERE s.rowid = f.search_rowid AND s.facility_id = f.id \
                  AND s.search_text = f.search_text)) \
             + (SELECT COUNT(*) FROM facility_search s WHERE NOT EXISTS \
               (SELECT 1 FROM facilities f WHERE f.search_rowid = s.rowid AND f.archived_at IS NULL))"
        }
        Backend::Postgres => {
            "SELECT CAST(COUNT(*) AS BIGINT) FROM \
               (SELECT id, search_text FROM facilities WHERE archived_at IS NULL) f \
               FULL JOIN facility_search s ON s.id = f.id AND s.search_text = f.search_text \
             WHERE s.id IS NULL OR f.id IS NULL"
        }
    };
    let mut conn = app.outside_connection().await;
    let stale: i64 = sqlx::query(sql).fetch_one(&mut conn).await.unwrap().get(0);
    assert_eq!(stale, 0, "facility_search out of step with facilities");
}

async fn search_follows_creates_edits_and_archives(app: TestApp) {
    let mut payload = facility_payload("Clínica Aurora Boreal");
    payload["address"] = json!([
        {"street": "Rua A, 1", "city": "Florianópolis", "state": "SC"},
        {"street": "Rua B, 2", "city": "Joinville", "state": "SC"}
    ]);
    let aurora = id(&app.create_facility(payload).await);
    let other = id(&app
        .create_facility(facility_payload("Hospital Estrela"))
        .await);
    assert_index_in_step(&app).await;
    // Name, company name, each city; case and accents ignored; a substring inside a word.
    for (term, total) in [
        ("aurora", 1),
        ("AURÓRA BOR", 1),
        ("rora bo", 1),
        ("serviços médicos", 2),
        ("florianopolis", 1),
        ("JOINVILLE", 1),
        ("estrela", 1),
        ("nenhuma", 0),
    ] {
        assert_eq!(search_total(&app, term).await, total, "q={term}");
    }
    // A rename: found by the new name only.
    app.admin_put(&format!("/api/facility/{aurora}/edit"), json!({"name": "Clínica Solar", "companyName": "Solar Diagnósticos Ltda", "address": [{"street": "Rua C, 3", "city": "Blumenau", "state": "SC"}]})).await;
    assert_index_in_step(&app).await;
    assert_search_totals(
        &app,
        &[
            ("aurora", 0),
            ("florianopolis", 0),
            ("clinica solar", 1),
            ("blumenau", 1),
        ],
    )
    .await;
    // An edit that leaves the search text as it was keeps the entry; a city alone rewrites it.
    let edit = format!("/api/facility/{aurora}/edit");
    app.admin_put(&edit, json!({"telephone": "(48) 3333-0000"}))
        .await;
    assert_index_in_step(&app).await;
    assert_search_totals(&app, &[("clinica solar", 1), ("blumenau", 1)]).await;
    let address = json!([{"street": "Rua C, 3", "city": "Itajaí", "state": "SC"}]);
    app.admin_put(&edit, json!({"address": address})).await;
    assert_index_in_step(&app).await;
    assert_search_totals(&app, &[("blumenau", 0), ("itajai", 1), ("solar", 1)]).await;
    // Archived: no longer found.
    app.admin_post_id("/api/facility/exclude", &other).await;
    assert_index_in_step(&app).await;
    assert_search_totals(
        &app,
        &[("estrela", 0), ("serviços médicos", 0), ("diagnosticos", 1)],
    )
    .await;
}

async fn search_terms_of_any_length_and_characters(app: TestApp) {
    let created = app
        .create_facility(facility_payload("Instituto \"Quântico\" 100% Ímpar_X"))
        .await;
    let cnpj = created["cnpj"].as_str().unwrap().to_owned();
    app.create_facility(facility_payload("Centro Zeta")).await;
    for (term, total) in [
        // Shorter than a trigram: the scan answers.
        ("ím", 1),
        ("q", 1),
        ("ze", 1),
        // Quotes, % and _ are plain characters, never query syntax.
        ("\"quantico\"", 1),
        ("\"quantico", 1),
        ("100%", 1),
        ("0% i", 1),
        ("impar_x", 1),
        ("impar x", 0),
        ("\"", 1),
        ("%", 1),
        ("quantico\" 100", 1),
        ("* OR zeta", 0),
        ("zeta NOT", 0),
        // Surrounding spaces are trimmed.
        ("  zeta  ", 1),
    ] {
        assert_eq!(search_total(&app, term).await, total, "q={term:?}");
    }
    assert_eq!(search_total(&app, &cnpj).await, 1);
}

async fn overdue(app: &TestApp) -> Vec<String> {
    let res = app
        .admin_get("/api/tests/due?state=overdue&pageSize=50")
        .await;
    // The state in any case, as the other lists' filters.
    let shouted = app
        .admin_get("/api/tests/due?state=OVERDUE&pageSize=50")
        .await;
    assert_eq!(shouted, res);
    let list: Vec<String> = entries(&res)
        .iter()
        .map(|d| d["equipment"]["_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        res["paging"]["total"],
        list.len(),
        "total and list disagree"
    );
    list
}

async fn due_lists_leave_out_inactive_and_archived_equipment(app: TestApp) {
    let facility = id(&app.create_facility(facility_payload("Lista Ampla")).await);
    let second = id(&app.create_facility(facility_payload("Lista Outra")).await);
    let tt = test_type(&app, DOSE_CALIBRATOR, "Reprodutibilidade", 30).await;
    let a = equipment(&app, &facility, DOSE_CALIBRATOR).await;
    let b = equipment(&app, &facility, DOSE_CALIBRATOR).await;
    let c = equipment(&app, &second, DOSE_CALIBRATOR).await;
    for eq in [&a, &b, &c] {
        record(&app, eq, &tt, &days_ago(45)).await;
    }
    let mut all = vec![a.clone(), b.clone(), c.clone()];
    all.sort();
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(sorted(overdue(&app).await), all);
    let edit = |body: serde_json::Value| async {
        app.admin_post("/api/facility/equipment/edit", body).await;
    };
    // Inactive equipment leaves the registry-wide list and comes back when reactivated; its own
    // list still shows the pair.
    edit(json!({"_id": a, "active": false})).await;
    assert_eq!(
        sorted(overdue(&app).await),
        sorted(vec![b.clone(), c.clone()])
    );
    let own = app
        .admin_get(&format!("/api/equipment/{a}/tests/due?state=overdue"))
        .await;
    assert_eq!(own["paging"]["total"], 1);
    edit(json!({"_id": a, "active": true})).await;
    assert_eq!(sorted(overdue(&app).await), all);
    // Archived equipment.
    app.admin_post_id("/api/facility/equipment/exclude", &a)
        .await;
    assert_eq!(
        sorted(overdue(&app).await),
        sorted(vec![b.clone(), c.clone()])
    );
    // Archived facility: its equipment leaves the lists.
    app.admin_post_id("/api/facility/exclude", &second).await;
    assert_eq!(overdue(&app).await, vec![b.clone()]);
    // A new test on a listed pair still counts once.
    let d = equipment(&app, &facility, DOSE_CALIBRATOR).await;
    record(&app, &d, &tt, &days_ago(31)).await;
    assert_eq!(sorted(overdue(&app).await), sorted(vec![b, d]));
}

const DEPARTMENTS: [&str; 2] = ["Medicina Nuclear", "Radiodiagnóstico"];

/// Every page (of 5) of the whole list and of each department's list is the live facilities
/// newest first, and the totals agree.
async fn assert_pages(app: &TestApp, live: &[(String, &str)]) {
    let lists = [
        ("/api/facilities?pageSize=5".to_owned(), None),
        (
            format!(
                "/api/facilities?pageSize=5&department={}",
                urlencode(DEPARTMENTS[0])
            ),
            Some(DEPARTMENTS[0]),
        ),
        (
            "/api/radiodiagnosisfacilities?pageSize=5".to_owned(),
            Some(DEPARTMENTS[1]),
        ),
    ];
    for (path, department) in lists {
        let mut expected: Vec<&str> = live
            .iter()
            .filter(|(_, d)| department.is_none_or(|want| *d == want))
            .map(|(id, _)| id.as_str())
            .collect();
        expected.sort_unstable_by(|a, b| b.cmp(a));
        let pages = expected.len().div_ceil(5) + 1;
        for page in 1..=pages {
            let res = app.admin_get(&format!("{path}&pageNum={page}")).await;
            assert_eq!(res["paging"]["total"], expected.len(), "{path}");
            let got = list_strs(&res, "_id");
            let want: Vec<&str> = expected
                .iter()
                .skip((page - 1) * 5)
                .take(5)
                .copied()
                .collect();
            assert_eq!(got, want, "{path} page {page}");
        }
    }
}

async fn pages_follow_creates_archives_and_department_moves(app: TestApp) {
    use rand::{Rng, SeedableRng};
    let seed = rand::rng().random::<u64>();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut live: Vec<(String, &str)> = Vec::new();
    let create = |department: &'static str| {
        let mut payload = facility_payload("Ordem");
        payload["department"] = json!(department);
        let app = &app;
        async move { id(&app.create_facility(payload).await) }
    };
    for _ in 0..17 {
        let department = DEPARTMENTS[rng.random_range(0..2)];
        live.push((create(department).await, department));
    }
    assert_pages(&app, &live).await;
    // Archive some, the oldest and the newest among them.
    for _ in 0..4 {
        let (id, _) = live.remove(rng.random_range(0..live.len()));
        app.admin_post_id("/api/facility/exclude", &id).await;
    }
    let (oldest, _) = live.remove(0);
    let (newest, _) = live.pop().unwrap();
    for id in [oldest, newest] {
        app.admin_post_id("/api/facility/exclude", &id).await;
    }
    assert_pages(&app, &live).await;
    // Move some to the other department.
    for _ in 0..4 {
        let i = rng.random_range(0..live.len());
        let other = if live[i].1 == DEPARTMENTS[0] {
            DEPARTMENTS[1]
        } else {
            DEPARTMENTS[0]
        };
        app.admin_put(
            &format!("/api/facility/{}/edit", live[i].0),
            json!({"department": other}),
        )
        .await;
        live[i].1 = other;
    }
    assert_pages(&app, &live).await;
    // New ones after all that, some at once: ids are taken before the transactions commit, so one
    // may be ranked before another that committed first (the ranks above it move up).
    for department in DEPARTMENTS {
        live.push((create(department).await, department));
    }
    let at_once = (0..10).map(|i| create(DEPARTMENTS[i % 2]));
    for (i, id) in futures::future::join_all(at_once)
        .await
        .into_iter()
        .enumerate()
    {
        live.push((id, DEPARTMENTS[i % 2]));
    }
    assert_pages(&app, &live).await;
    // One whose id comes before every live one (through the store: the server's ids are always
    // the latest): the ranks of all the others move up.
    let oldest = "00000000-0000-7000-8000-00000000000a";
    let like = live[0].clone();
    let mut tx = app.state.db.begin().await.unwrap();
    let record = copies(&mut tx, &like.0, &[oldest.to_owned()])
        .await
        .remove(0);
    store::insert(&mut tx, &record).await.unwrap();
    tx.commit().await.unwrap();
    live.push((oldest.to_owned(), like.1));
    assert_pages(&app, &live).await;
    // A bulk load (the benchmark's seeder) appends in id order: each ranks last in turn.
    let mut ids: Vec<String> = (0..3).map(|_| registry_server::db::new_id()).collect();
    ids.sort();
    let mut tx = app.state.db.begin().await.unwrap();
    let records = copies(&mut tx, &like.0, &ids).await;
    store::insert_many(&mut tx, &records).await.unwrap();
    tx.commit().await.unwrap();
    live.extend(ids.iter().map(|id| (id.clone(), like.1)));
    assert_pages(&app, &live).await;
    assert_index_in_step(&app).await;
    // One that would not rank last is refused, with nothing written.
    let late = registry_server::db::new_id();
    let mut tx = app.state.db.begin().await.unwrap();
    let records = copies(
        &mut tx,
        &like.0,
        &[late, "00000000-0000-7000-8000-00000000000b".into()],
    )
    .await;
    let refused = store::insert_many(&mut tx, &records).await;
    assert!(
        matches!(refused, Err(sqlx::Error::InvalidArgument(_))),
        "{refused:?}"
    );
    drop(tx);
    assert_pages(&app, &live).await;
}

/// Copies of the facility `like` (each with a new cnpj and no users) under `ids`.
async fn copies(
    conn: &mut registry_server::db::Conn,
    like: &str,
    ids: &[String],
) -> Vec<store::FacilityRecord> {
    let view = store::view(conn, like).await.unwrap().unwrap();
    let mut records = Vec::new();
    for id in ids {
        let mut fields = store::fields_of(&view).unwrap();
        fields.cnpj = crate::helpers::unique_cnpj();
        fields.users.clear();
        records.push(store::FacilityRecord {
            id: id.clone(),
            fields,
            version: 1,
            created_at: view.created_at.clone(),
            updated_at: view.created_at.clone(),
        });
    }
    records
}

/// A search's pages are its matches in the list's order (newest first), each with the exact
/// total, whichever way the page is read: on SQLite a term matching many facilities is paged by
/// reading the list in order, others through the index (`sqlite_reads::common_search`).
async fn search_pages_follow_the_list_order(app: TestApp) {
    for i in 0..9 {
        app.create_facility(facility_payload(&format!("Clínica Página {i}")))
            .await;
        if i % 2 == 0 {
            let mut other = facility_payload(&format!("Hospital Outro {i}"));
            other["department"] = json!("Radiodiagnóstico");
            app.create_facility(other).await;
        }
    }
    let names = |res: &serde_json::Value| -> Vec<String> {
        entries(res)
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = names(&app.admin_get("/api/facilities?pageSize=100").await);
    for (query, wanted) in [
        ("q=pagina", "Página"),
        ("q=P%C3%81GINA%207", "Página 7"),
        ("q=outro", "Outro"),
        ("q=paulo", ""),
        ("q=paulo&department=Radiodiagn%C3%B3stico", "Outro"),
        ("q=ag", "Página"),
        ("q=nenhuma", "nenhuma"),
    ] {
        let expected: Vec<String> = all.iter().filter(|n| n.contains(wanted)).cloned().collect();
        for size in [1, 2, 4, 50] {
            let mut read = Vec::new();
            let pages = expected.len().div_ceil(size) + 1;
            for page in 1..=pages {
                let res = app
                    .admin_get(&format!(
                        "/api/facilities?{query}&pageSize={size}&pageNum={page}"
                    ))
                    .await;
                assert_eq!(
                    res["paging"]["total"],
                    expected.len(),
                    "{query} page {page}"
                );
                let names = names(&res);
                assert!(names.len() <= size, "{query} page {page}");
                read.extend(names);
            }
            assert_eq!(read, expected, "{query}, pages of {size}");
        }
    }
}

/// On PostgreSQL a filtered page gathers its matches before it orders and cuts them: the total
/// needs every match, and with the filter, the order and the `LIMIT` in one query PostgreSQL
/// walked the whole list in order checking each row for a term that many facilities share
/// (9–40 ms at 10,000 facilities, against 1–5 ms through the trigram index). The plan of the
/// statement the server prepared (the page with its views, `facility_reads::filtered_page_sql`)
/// must read the matches (`CTE Scan on matching`) under its sort.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_pages_gather_their_matches_first_on_postgres() {
    use registry_server::db::BackendConn;
    use registry_server::store::facilities::{FacilityFilter, list};
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    for i in 0..3 {
        app.create_facility(facility_payload(&format!("Clínica Reunida {i}")))
            .await;
    }
    let mut conn = app.state.db.read().await.unwrap();
    let filter = FacilityFilter {
        q: Some("reunida".into()),
        ..FacilityFilter::default()
    };
    let (page, total) = list(&mut conn, &filter, 2, 0).await.unwrap();
    assert_eq!((page.len(), total), (2, 3));
    let BackendConn::Postgres(pg) = conn.backend().await.unwrap() else {
        unreachable!("a PostgreSQL server")
    };
    // Anchored at the start, so that this statement (itself prepared) does not match.
    let name: String = sqlx::query_scalar(
        "SELECT name FROM pg_prepared_statements \
         WHERE statement LIKE 'WITH page AS (WITH matching%'",
    )
    .fetch_one(&mut *pg)
    .await
    .unwrap();
    let plan: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "EXPLAIN EXECUTE {name}('%reunida%', 2, 0)"
    )))
    .fetch_all(&mut *pg)
    .await
    .unwrap();
    let sort = plan.iter().position(|line| line.contains("Sort"));
    let sorted = sort.map(|at| &plan[at..]).unwrap_or_default();
    assert!(
        sorted
            .iter()
            .any(|line| line.contains("CTE Scan on matching")),
        "the matches are gathered, then sorted: {plan:#?}"
    );
}
