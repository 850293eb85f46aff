//! Writes that touch shared rows, in parallel: facility archives, moves and creates (which move
//! other facilities' ranks), a QC test recorded while its equipment's or test type's type
//! changes, and many tests of one equipment at once. Each ends in a valid state and an answer
//! the docs give, never a 500 (PostgreSQL deadlocked or collided on all three before).

use crate::equipment::{DOSE_CALIBRATOR, days_ago, equipment, id, test_type};
use crate::helpers::{Answer, TestApp, entries, facility_payload};
use crate::on_both_databases;
use futures::future::join_all;
use serde_json::json;

on_both_databases!(
    archives_moves_and_creates_at_once_all_succeed,
    a_test_recorded_while_a_type_changes_leaves_them_consistent,
    tests_of_one_equipment_at_once_are_all_saved
);

const ROUNDS: usize = 4;

fn statuses(answers: &[Answer]) -> Vec<u16> {
    answers.iter().map(|a| a.status.as_u16()).collect()
}

async fn archives_moves_and_creates_at_once_all_succeed(app: TestApp) {
    for round in 0..ROUNDS {
        let mut ids = Vec::new();
        for i in 0..8 {
            let f = app
                .create_facility(facility_payload(&format!("Rank {round}-{i}")))
                .await;
            ids.push(id(&f));
        }
        let archives = ids[..4]
            .iter()
            .map(|f| app.post("/api/facility/exclude", &app.admin, json!({"_id": f})));
        let edit_paths: Vec<String> = ids[4..]
            .iter()
            .map(|f| format!("/api/facility/{f}/edit"))
            .collect();
        let moves = edit_paths
            .iter()
            .map(|path| app.put(path, &app.admin, json!({"department": "Radiodiagnóstico"})));
        let creates = (0..4).map(|i| {
            app.post(
                "/api/facility/register/",
                &app.admin,
                facility_payload(&format!("Rank new {round}-{i}")),
            )
        });
        let (archived, moved, created) =
            futures::join!(join_all(archives), join_all(moves), join_all(creates));
        assert!(
            statuses(&archived).iter().all(|s| *s == 200),
            "{:?}",
            statuses(&archived)
        );
        assert!(
            statuses(&moved).iter().all(|s| *s == 200),
            "{:?}",
            statuses(&moved)
        );
        assert!(
            statuses(&created).iter().all(|s| *s == 201),
            "{:?}",
            statuses(&created)
        );
    }
    // Ranks stayed dense: every page of the whole list and of each department holds what its
    // total says, each facility once.
    let live = ROUNDS * 8;
    for (path, total) in [
        ("/api/facilities", live),
        ("/api/radiodiagnosisfacilities", ROUNDS * 4),
        ("/api/nuclearmedicinefacilities", ROUNDS * 4),
    ] {
        let mut seen = Vec::new();
        for page in 1..=(total / 5 + 1) {
            let list = app
                .admin_get(&format!("{path}?pageNum={page}&pageSize=5"))
                .await;
            assert_eq!(list["paging"]["total"], total, "{path}");
            for f in list["list"].as_array().unwrap() {
                seen.push(f["_id"].as_str().unwrap().to_owned());
            }
        }
        let count = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!((count, seen.len()), (total, total), "{path}");
    }
}

async fn a_test_recorded_while_a_type_changes_leaves_them_consistent(app: TestApp) {
    let f = id(&app
        .create_facility(facility_payload("Tipos em Corrida"))
        .await);
    let other_type = id(&app
        .post_created(
            "/api/typeOfEquipment/register",
            &app.admin,
            json!({"name": "Outro Tipo"}),
        )
        .await);
    for round in 0..ROUNDS {
        let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
        let tt = test_type(&app, DOSE_CALIBRATOR, &format!("Corrida {round}"), 30).await;
        let record = || {
            app.post(
                "/api/test/",
                &app.admin,
                json!({"equipment": eq, "typeOfTest": tt, "date": days_ago(1), "conclusion": "Satisfatório"}),
            )
        };
        // The equipment's type, then the test type's, changed while a first test is recorded:
        // one of the two wins, the other is refused.
        let retype_equipment = app.post(
            "/api/facility/equipment/edit",
            &app.admin,
            json!({"_id": eq, "typeOfEquipment": other_type}),
        );
        let (retyped, recorded) = futures::join!(retype_equipment, record());
        let outcome = (retyped.status.as_u16(), recorded.status.as_u16());
        assert!(
            outcome == (200, 422) || outcome == (422, 201),
            "{outcome:?}"
        );
        if outcome == (200, 422) {
            continue;
        }
        let tt2 = test_type(&app, DOSE_CALIBRATOR, &format!("Corrida {round} b"), 30).await;
        let retype_test = app.post(
            "/api/typeOfTest/edit",
            &app.admin,
            json!({"_id": tt2, "typeOfEquipment": other_type}),
        );
        let record_tt2 = app.post(
            "/api/test/",
            &app.admin,
            json!({"equipment": eq, "typeOfTest": tt2, "date": days_ago(1), "conclusion": "Satisfatório"}),
        );
        let (retyped, recorded) = futures::join!(retype_test, record_tt2);
        let outcome = (retyped.status.as_u16(), recorded.status.as_u16());
        assert!(
            outcome == (200, 422) || outcome == (422, 201),
            "{outcome:?}"
        );
    }
}

async fn tests_of_one_equipment_at_once_are_all_saved(app: TestApp) {
    let f = id(&app.create_facility(facility_payload("Muitos Testes")).await);
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Em paralelo", 30).await;
    let recorded = join_all((1..=8).map(|day| {
        app.post(
            "/api/test/",
            &app.admin,
            json!({"equipment": eq, "typeOfTest": tt, "date": days_ago(day), "conclusion": "Satisfatório"}),
        )
    }))
    .await;
    assert!(
        statuses(&recorded).iter().all(|s| *s == 201),
        "{:?}",
        statuses(&recorded)
    );
    let delete_paths: Vec<String> = recorded[..4]
        .iter()
        .map(|t| format!("/api/test/{}", id(&t.body)))
        .collect();
    let deleted = join_all(
        delete_paths
            .iter()
            .map(|path| app.post(path, &app.admin, json!({}))),
    )
    .await;
    assert!(
        statuses(&deleted).iter().all(|s| *s == 200),
        "{:?}",
        statuses(&deleted)
    );
    // The due list reads the summary those writes kept: the latest live test (day 5 ago).
    let due = app
        .admin_get(&format!("/api/equipment/{eq}/tests/due"))
        .await;
    let row = entries(&due)
        .iter()
        .find(|r| r["typeOfTest"]["_id"] == tt.as_str())
        .cloned()
        .unwrap();
    assert_eq!(row["lastDate"], days_ago(5).as_str(), "{row}");
}
