//! Check-then-write under real parallel requests (issue 11, items 1, 2 and 6): every guarded
//! write has exactly one winner and every loser gets its documented answer, never a 500, on
//! SQLite and on PostgreSQL.

use crate::documents::{admin_upload, pdf};
use crate::helpers::{Answer, TestApp, facility_payload, unique_cnpj};
use crate::on_both_databases;
use futures::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};

on_both_databases!(
    if_match_lets_one_of_many_concurrent_edits_win,
    concurrent_sign_liberate_and_exclude_have_one_winner,
    concurrent_edits_onto_one_cnpj_answer_duplicate_facility,
    concurrent_creates_with_one_unique_key_answer_409,
);

/// How often each race is run: one round can pass by luck, twenty rarely do.
const ROUNDS: usize = 20;
/// Requests in flight at once in each round.
const RACERS: usize = 8;

fn statuses(answers: &[Answer]) -> Vec<u16> {
    let mut s: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    s.sort();
    s
}

#[track_caller]
fn one_winner(answers: &[Answer], win: u16, lose: u16, lose_code: &str) -> usize {
    for a in answers {
        let s = a.status.as_u16();
        assert!(s == win || s == lose, "unexpected answer {s}: {}", a.body);
        if s == lose {
            assert_eq!(a.body["code"], lose_code, "{}", a.body);
        }
    }
    let winners: Vec<usize> = (0..answers.len())
        .filter(|&i| answers[i].status.as_u16() == win)
        .collect();
    assert_eq!(winners.len(), 1, "statuses: {:?}", statuses(answers));
    winners[0]
}

async fn edit_with_if_match(app: &TestApp, id: &str, etag: &str, body: Value) -> Answer {
    let res = app
        .client
        .request(Method::PUT, app.url(&format!("/api/facility/{id}/edit")))
        .bearer_auth(&app.admin)
        .header("If-Match", etag)
        .json(&body)
        .send()
        .await
        .expect("request sent");
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

async fn if_match_lets_one_of_many_concurrent_edits_win(app: TestApp) {
    for round in 0..ROUNDS {
        let id = app
            .create_facility(facility_payload(&format!("Corrida {round}")))
            .await["_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let answers = join_all((0..RACERS).map(|i| {
            edit_with_if_match(
                &app,
                &id,
                "W/\"1\"",
                json!({"name": format!("Editor {i}"), "CNENregistry": format!("CNEN-{i}")}),
            )
        }))
        .await;
        let winner = one_winner(&answers, 200, 412, "version_mismatch");
        let stored = app.admin_get(&format!("/api/facility/{id}")).await;
        assert_eq!(stored["version"], 2, "exactly one edit applied");
        assert_eq!(stored["name"], format!("Editor {winner}"));
        assert_eq!(stored["CNENregistry"], format!("CNEN-{winner}"));
    }
}

async fn concurrent_sign_liberate_and_exclude_have_one_winner(app: TestApp) {
    let facility = app.create_facility(facility_payload("Assinaturas")).await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for round in 0..ROUNDS / 4 {
        let doc = admin_upload(&app, &facility, pdf(2048, round as u8), &[]).await;
        let id = doc["_id"].as_str().unwrap().to_owned();
        let body = json!({"_id": id});

        let signed = join_all(
            (0..RACERS).map(|_| app.post("/api/document/sign/", &app.admin, body.clone())),
        )
        .await;
        let winner = one_winner(&signed, 200, 409, "invalid_transition");
        let stored = app.admin_get(&format!("/api/document/{id}")).await;
        assert_eq!(
            stored["code"], signed[winner].body["code"],
            "the signer's code is the stored one"
        );
        assert_eq!(stored["signature"], signed[winner].body["signature"]);

        let released = join_all(
            (0..RACERS).map(|_| app.post("/api/document/liberate/", &app.admin, body.clone())),
        )
        .await;
        one_winner(&released, 200, 409, "invalid_transition");

        let excluded = join_all(
            (0..RACERS).map(|_| app.post("/api/document/exclude", &app.admin, body.clone())),
        )
        .await;
        one_winner(&excluded, 200, 404, "not_found");
    }
}

async fn concurrent_edits_onto_one_cnpj_answer_duplicate_facility(app: TestApp) {
    for round in 0..ROUNDS / 2 {
        let ids: Vec<String> = join_all(
            (0..RACERS / 2)
                .map(|i| app.create_facility(facility_payload(&format!("Mesma {round}-{i}")))),
        )
        .await
        .iter()
        .map(|f| f["_id"].as_str().unwrap().to_owned())
        .collect();
        let cnpj = unique_cnpj();
        let answers = join_all(ids.iter().map(|id| {
            let (app, cnpj) = (&app, cnpj.clone());
            async move {
                app.put(
                    &format!("/api/facility/{id}/edit"),
                    &app.admin,
                    json!({"cnpj": cnpj}),
                )
                .await
            }
        }))
        .await;
        let winner = one_winner(&answers, 200, 409, "duplicate_facility");
        for (i, a) in answers.iter().enumerate() {
            if i != winner {
                assert_eq!(
                    a.body["_id"],
                    ids[winner].as_str(),
                    "409 names the facility that holds the cnpj"
                );
            }
        }
        // The same race on create: one 201, the rest 409 naming it.
        let mut payload = facility_payload(&format!("Nova {round}"));
        payload["cnpj"] = json!(unique_cnpj());
        let created = join_all(
            (0..RACERS).map(|_| app.post("/api/facility/register/", &app.admin, payload.clone())),
        )
        .await;
        let winner = one_winner(&created, 201, 409, "duplicate_facility");
        for (i, a) in created.iter().enumerate() {
            if i != winner {
                assert_eq!(a.body["_id"], created[winner].body["_id"]);
            }
        }
    }
}

async fn concurrent_creates_with_one_unique_key_answer_409(app: TestApp) {
    for round in 0..ROUNDS / 4 {
        let group = json!({"name": format!("Rede {round}")});
        let answers = join_all(
            (0..RACERS).map(|_| app.post("/api/group/register", &app.admin, group.clone())),
        )
        .await;
        one_winner(&answers, 201, 409, "conflict");

        let user = json!({"name": "Ana", "email": format!("ana-{round}@example.com"), "password": "a-good-password", "roles": ["Físico"]});
        let answers =
            join_all((0..RACERS).map(|_| app.post("/api/register/", &app.admin, user.clone())))
                .await;
        one_winner(&answers, 201, 409, "conflict");

        let equipment_type = json!({"name": format!("Ultrassom {round}")});
        let answers = join_all((0..RACERS).map(|_| {
            app.post(
                "/api/typeOfEquipment/register",
                &app.admin,
                equipment_type.clone(),
            )
        }))
        .await;
        let winner = one_winner(&answers, 201, 409, "conflict");
        let type_id = answers[winner].body["_id"].as_str().unwrap().to_owned();

        let test_type =
            json!({"name": "Uniformidade", "typeOfEquipment": type_id, "expirationInDays": 30});
        let answers = join_all(
            (0..RACERS)
                .map(|_| app.post("/api/typeOfTest/register", &app.admin, test_type.clone())),
        )
        .await;
        one_winner(&answers, 201, 409, "conflict");
    }
}
