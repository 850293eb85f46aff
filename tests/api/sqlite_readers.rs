//! On SQLite the facility reads of a request (by id, the lists and searches) and the token's user
//! run through rusqlite on the server's reader threads, while a write transaction reads through
//! sqlx (registry-server/src/sqlite_readers.rs). Both paths must give the same answers.

use crate::helpers::{Backend, TestApp, facility_payload};
use crate::images::{PNG, upload};
use registry_server::store::facilities::{self, FacilityFilter};
use registry_server::store::users;
use serde_json::{Value, json};

/// A dozen facilities with every kind of child (several addresses, users with licences and
/// several responsibilities, radioisotopes, practices, a group, images), in both departments;
/// two of them archived. Their ids, and a user linked to some of them.
async fn varied_registry(app: &TestApp) -> (Vec<String>, String) {
    let group = app.create_group("Rede Sul").await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (physicist, _) = app.user_with(&["Físico"], "Ana Física").await;
    let (client, _) = app.user_with(&["Cliente"], "Caio Cliente").await;
    let mut ids = Vec::new();
    for n in 0..12 {
        let mut p = facility_payload(&format!("Clínica Número {n}"));
        if n % 2 == 1 {
            p["department"] = json!("Radiodiagnóstico");
            p["radioisotopes"] = json!([]);
            p["practices"] = json!([]);
        }
        if n % 3 == 0 {
            p["group"] = json!(group);
            p["address"] = json!([
                {"street": "Rua das Flores, 10", "city": "Florianópolis", "state": "SC", "zipCode": "88000-000"},
                {"street": "Av. Beira-Mar, 5", "city": "Joinville", "state": "SC", "complement": "sala 2"}
            ]);
        }
        if n % 4 == 0 {
            p["users"] = json!([
                {"_id": physicist, "responsabilities": ["Supervisor", "Substituto"]},
                {"_id": client, "responsabilities": ["Titular"]}
            ]);
        }
        ids.push(
            app.create_facility(p).await["_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    for id in &ids[..3] {
        let (status, _) = upload(
            app,
            &app.admin,
            &format!("/api/facility/{id}/logo"),
            PNG.to_vec(),
        )
        .await;
        assert_eq!(status, 200);
    }
    let (status, _) = upload(
        app,
        &app.admin,
        &format!("/api/facility/{}/background", ids[0]),
        PNG.to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    for id in [&ids[5], &ids[8]] {
        app.admin_post("/api/facility/exclude", json!({"_id": id}))
            .await;
    }
    (ids, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_reader_threads_read_what_sqlx_reads() {
    let app = TestApp::spawn(Backend::Sqlite).await.expect("SQLite app");
    let (ids, client) = varied_registry(&app).await;
    let db = &app.state.db;
    // A read connection runs these on the reader threads; a transaction through sqlx.
    let mut threads = db.read().await.unwrap();
    let mut sqlx = db.begin().await.unwrap();
    assert!(threads.sqlite_readers().is_some());
    assert!(sqlx.sqlite_readers().is_none());

    let by = |f: fn(&mut FacilityFilter)| {
        let mut filter = FacilityFilter::default();
        f(&mut filter);
        filter
    };
    let filters = [
        FacilityFilter::default(),
        by(|f| f.department = Some("Medicina Nuclear".into())),
        by(|f| f.department = Some("Radiodiagnóstico".into())),
        by(|f| f.q = Some("número 1".into())),
        // Rare trigrams beside common ones (`o 1` against `num`…), looked up alone.
        by(|f| f.q = Some("clínica número 11".into())),
        by(|f| f.q = Some("ero 1".into())),
        by(|f| f.q = Some("número \"1".into())),
        by(|f| f.q = Some("número 99".into())),
        by(|f| f.q = Some("JOINVILLE".into())),
        by(|f| f.q = Some("nú".into())),
        by(|f| f.q = Some("nada disso".into())),
        by(|f| f.city = Some("florianopolis".into())),
        by(|f| f.state = Some("SP".into())),
        by(|f| f.radioisotope = Some("Tc(99m)".into())),
        by(|f| f.practice = Some("Diagnóstico".into())),
        by(|f| {
            f.department = Some("Medicina Nuclear".into());
            f.q = Some("clinica".into());
        }),
    ];
    let mut compared = 0;
    for filter in filters.iter().cloned().chain([
        FacilityFilter {
            member: Some(client.clone()),
            ..Default::default()
        },
        FacilityFilter {
            user_id: Some(client.clone()),
            ..Default::default()
        },
    ]) {
        for (limit, offset) in [(20, 0), (3, 0), (3, 2), (4, 7), (20, 50)] {
            let (a, a_total) = facilities::list(&mut threads, &filter, limit, offset)
                .await
                .unwrap();
            let (b, b_total) = facilities::list(&mut sqlx, &filter, limit, offset)
                .await
                .unwrap();
            assert_eq!(a_total, b_total, "{filter:?} {limit}/{offset}");
            assert_eq!(json!(a), json!(b), "{filter:?} {limit}/{offset}");
            compared += a.len();
        }
    }
    assert!(
        compared > 100,
        "the filters select facilities ({compared} compared)"
    );

    // By id, in the order asked, skipping archived and unknown ids.
    let mut asked: Vec<String> = ids.iter().rev().cloned().collect();
    asked.push("no-such-id".into());
    let a = facilities::views(&mut threads, &asked).await.unwrap();
    let b = facilities::views(&mut sqlx, &asked).await.unwrap();
    assert_eq!(a.len(), 10);
    assert_eq!(json!(a), json!(b));
    let first: Value = json!(a.last().unwrap());
    assert_eq!(first["_id"], json!(ids[0]));
    assert!(first["logo"].is_string() && first["backgroundImage"].is_string());
    assert_eq!(
        first["users"][0]["responsabilities"],
        json!(["Supervisor", "Substituto"])
    );
    assert_eq!(first["address"].as_array().unwrap().len(), 2);

    for id in [client.as_str(), "no-such-id"] {
        let a = users::by_id(&mut threads, id).await.unwrap();
        let b = users::by_id(&mut sqlx, id).await.unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
}

/// An idle server has its SQLite readers give back their page caches (`Db::release_memory`):
/// each reader thread takes its turn, and all of them read as before afterwards.
#[tokio::test]
async fn readers_read_as_before_after_giving_back_their_memory() {
    let app = TestApp::spawn(Backend::Sqlite).await.expect("SQLite app");
    varied_registry(&app).await;
    let db = &app.state.db;
    for _ in 0..3 {
        db.release_memory();
    }
    // More searches at once than there are threads: every thread reads.
    let search = FacilityFilter {
        q: Some("número".into()),
        ..Default::default()
    };
    let reads = (0..32).map(|_| async {
        let mut conn = db.read().await.unwrap();
        facilities::list(&mut conn, &search, 20, 0).await.unwrap().1
    });
    let totals = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        futures::future::join_all(reads),
    )
    .await
    .expect("the reader threads answer after giving back their memory");
    assert!(totals.iter().all(|t| *t == 10), "{totals:?}");
}
