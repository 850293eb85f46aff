//! Receipts of radioactive material, weekly usage, waste in decay storage, notices and the daily
//! digest (docs/radioactive-material.md).

use crate::documents::upload;
use crate::helpers::{Backend, PASSWORD, TestApp, facility_payload, history_actions};
use crate::test_servers::{SmtpSink, free_port};
use crate::{on_both_backends, on_both_databases};
use chrono::{DateTime, Days, NaiveDate, Utc};
use rand::Rng;
use registry_core::material::IsoWeek;
use registry_core::waste::{ClearanceLevels, WasteContent, release_date};
use registry_core::{Radioisotope, equipment::local_date};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(
    receipts_are_checked_against_the_authorisation,
    weekly_usage_sums_monday_to_sunday_in_brasilia,
    concurrent_receipts_are_summed_one_after_another,
    waste_is_released_once_after_its_date,
    notices_list_what_needs_attention
);
on_both_backends!(
    the_digest_goes_out_once_through_smtp_and_is_retried,
    clearance_levels_come_from_the_deployer
);

fn id(v: &Value) -> String {
    v["_id"].as_str().expect("an _id").to_owned()
}

fn today() -> NaiveDate {
    local_date(Utc::now())
}

/// A facility (Tc(99m) 1500 and I(131) 200.5 mCi a week) with a linked `Cliente`; returns
/// `(facility, linked client's token, unlinked client's token)`.
async fn setup(app: &TestApp, name: &str) -> (String, String, String) {
    let (linked, linked_token) = app.user_with(&["Cliente"], "Cliente Ligado").await;
    let (_, other_token) = app.user_with(&["Cliente"], "Cliente Alheio").await;
    let mut payload = facility_payload(name);
    payload["users"] = json!([{"_id": linked, "responsabilities": ["Titular"]}]);
    let facility = id(&app.create_facility(payload).await);
    (facility, linked_token, other_token)
}

async fn receive(app: &TestApp, facility: &str, body: Value) -> Value {
    app.post(
        &format!("/api/facility/{facility}/receipts"),
        &app.admin,
        body,
    )
    .await
    .expect(201)
}

async fn receipts_are_checked_against_the_authorisation(app: TestApp) {
    let (facility, linked, other) = setup(&app, "Clínica Recebimentos").await;
    let path = format!("/api/facility/{facility}/receipts");
    let good = json!({"radioisotope": "I(131)", "activity": 150, "supplier": "IPEN", "lot": "L-77",
                      "receivedAt": "2026-03-02T10:00:00-03:00"});
    app.post(&path, &linked, good.clone())
        .await
        .expect_error(403, "permission_denied");
    app.post("/api/facility/nope/receipts", &app.admin, good.clone())
        .await
        .expect_error(404, "not_found");
    // Not authorised at this facility: refused, the field named; every other failing field too.
    let res = app
        .post(
            &path,
            &app.admin,
            json!({"radioisotope": "F(18)", "activity": 10}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert_eq!(
        res.field_errors(),
        [
            ("radioisotope".to_owned(), "invalid_radioisotope".to_owned()),
            ("supplier".to_owned(), "required".to_owned())
        ]
    );
    let res = app
        .post(
            &path,
            &app.admin,
            json!({"radioisotope": "F(18)", "activity": 10, "supplier": "IPEN"}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(
        res.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("authorised")
    );
    let res = app
        .post(
            &path,
            &app.admin,
            json!({"radioisotope": "Xe(133)", "activity": "1,5", "supplier": "IPEN",
                   "receivedAt": (Utc::now() + chrono::Duration::hours(2)).to_rfc3339()}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(res.has_field_error("radioisotope", "invalid_radioisotope"));
    assert!(res.has_field_error("activity", "invalid_quantity"));
    assert!(res.has_field_error("receivedAt", "invalid_value"));

    let first = receive(&app, &facility, good).await;
    assert_eq!(first["radioisotope"], "I(131)");
    assert_eq!(first["week"], "2026-W10");
    assert_eq!(first["overQuantity"], false);
    assert_eq!(first["activityAtReceipt"], 150.0);
    assert_eq!(
        first["receivedBy"], "Administrator",
        "defaults to the caller"
    );
    assert_eq!(first["facility"]["_id"], facility.as_str());
    // Sunday 23:30 in Brasília is still week 10, and takes it over 200.5 mCi: stored, flagged.
    let over = receive(
        &app,
        &facility,
        json!({"radioisotope": "I-131", "activity": "60", "supplier": "IPEN", "receivedBy": "Ana",
               "receivedAt": "2026-03-08T23:30:00-03:00"}),
    )
    .await;
    assert_eq!(
        (over["week"].as_str(), over["overQuantity"].as_bool()),
        (Some("2026-W10"), Some(true))
    );
    // Half an hour later it is Monday: a new week, a new margin.
    let next = receive(
        &app,
        &facility,
        json!({"radioisotope": "I(131)", "activity": 60, "supplier": "IPEN", "receivedAt": "2026-03-09T00:30:00-03:00"}),
    )
    .await;
    assert_eq!(
        (next["week"].as_str(), next["overQuantity"].as_bool()),
        (Some("2026-W11"), Some(false))
    );
    // The declared activity is decayed to the time of receipt: one half-life of Tc-99m halves it.
    let decayed = receive(
        &app,
        &facility,
        json!({"radioisotope": "Tc(99m)", "activity": 100, "supplier": "IPEN",
               "activityReferenceTime": "2026-03-03T06:00:00-03:00", "receivedAt": "2026-03-03T12:00:24.12-03:00"}),
    )
    .await;
    let a = decayed["activityAtReceipt"].as_f64().unwrap();
    assert!((a - 50.0).abs() < 1e-3, "{a}");
    assert_eq!(decayed["activity"], 100.0);

    // Lists: the linked client sees the flag; another client sees nothing of this facility.
    let list = app.get(&path, &linked).await.expect(200);
    assert_eq!(list["paging"]["total"], 4);
    assert_eq!(list["list"][0]["_id"], next["_id"], "latest received first");
    let flagged = app
        .get(&format!("{path}?overQuantity=true"), &linked)
        .await
        .expect(200);
    assert_eq!(flagged["paging"]["total"], 1);
    assert_eq!(flagged["list"][0]["_id"], over["_id"]);
    let filtered = app
        .get(
            &format!(
                "/api/receipts?filters={}",
                json!({"week": "2026-W10", "radioisotope": "I(131)"})
            ),
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(filtered["paging"]["total"], 2);
    app.get(&path, &other).await.expect_error(404, "not_found");
    assert_eq!(
        app.get("/api/receipts", &other).await.expect(200)["paging"]["total"],
        0
    );
    assert_eq!(
        app.get("/api/receipts", &linked).await.expect(200)["paging"]["total"],
        4
    );
    app.get(&format!("/api/receipt/{}", id(&over)), &other)
        .await
        .expect_error(404, "not_found");
    let shown = app
        .get(&format!("/api/receipt/{}", id(&over)), &linked)
        .await
        .expect(200);
    assert_eq!(shown, over);
    app.get("/api/receipts?week=2026-10", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/receipts?overQuantity=maybe", &app.admin)
        .await
        .expect_error(400, "bad_request");
    // Every write is audited.
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM audit_events WHERE entity = 'receipt'")
        .fetch_one(&mut app.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(n, 4);
}

async fn weekly_usage_sums_monday_to_sunday_in_brasilia(app: TestApp) {
    let (facility, linked, other) = setup(&app, "Clínica Semanal").await;
    for (activity, at) in [
        // Sunday of week 9, late at night in Brasília (already Monday in UTC): week 9.
        (500, "2026-03-01T23:59:00-03:00"),
        (700, "2026-03-02T00:00:00-03:00"),
        (800, "2026-03-08T23:59:59-03:00"),
        (100, "2026-03-09T00:00:00-03:00"),
    ] {
        receive(
            &app,
            &facility,
            json!({"radioisotope": "Tc(99m)", "activity": activity, "supplier": "IPEN", "receivedAt": at}),
        )
        .await;
    }
    let usage_path = format!("/api/facility/{facility}/radioisotopes/usage");
    let usage = app
        .get(&format!("{usage_path}?week=2026-W10"), &linked)
        .await
        .expect(200);
    assert_eq!(usage["week"], "2026-W10");
    assert_eq!(usage["from"], "2026-03-02T03:00:00.000000Z");
    assert_eq!(usage["to"], "2026-03-09T03:00:00.000000Z");
    let lines = usage["radioisotopes"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "one line per authorised isotope: {usage}");
    assert_eq!(
        lines[0],
        json!({"radioisotope": "Tc(99m)", "authorised": 1500.0, "received": 1500.0, "remaining": 0.0,
               "exceeded": false, "receipts": 2})
    );
    assert_eq!(
        lines[1],
        json!({"radioisotope": "I(131)", "authorised": 200.5, "received": 0.0, "remaining": 200.5,
               "exceeded": false, "receipts": 0})
    );
    // Exactly the authorised quantity is not over it; one more mCi is.
    let list = app
        .get(
            &format!("/api/facility/{facility}/receipts?week=2026-W10"),
            &linked,
        )
        .await
        .expect(200);
    assert!(
        list["list"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["overQuantity"] == false)
    );
    let more = receive(
        &app,
        &facility,
        json!({"radioisotope": "Tc(99m)", "activity": 1, "supplier": "IPEN", "receivedAt": "2026-03-05T10:00:00-03:00"}),
    )
    .await;
    assert_eq!(more["overQuantity"], true);
    let usage = app
        .get(
            &format!("{usage_path}?filters={}", json!({"week": "2026-W10"})),
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(usage["radioisotopes"][0]["remaining"], -1.0);
    assert_eq!(usage["radioisotopes"][0]["exceeded"], true);
    let w9 = app
        .get(&format!("{usage_path}?week=2026-W09"), &app.admin)
        .await
        .expect(200);
    assert_eq!(w9["radioisotopes"][0]["received"], 500.0);
    // Without a week: the current one.
    let current = app.get(&usage_path, &app.admin).await.expect(200);
    assert_eq!(current["week"], IsoWeek::containing(Utc::now()).to_string());
    app.get(&format!("{usage_path}?week=2026-W54"), &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get(&usage_path, &other)
        .await
        .expect_error(404, "not_found");
    app.get("/api/facility/nope/radioisotopes/usage", &app.admin)
        .await
        .expect_error(404, "not_found");
    // A receipt of an isotope that the facility no longer holds still shows, with nothing authorised.
    app.put(
        &format!("/api/facility/{facility}/edit"),
        &app.admin,
        json!({"radioisotopes": [{"name": "I(131)", "quantity": 200.5}]}),
    )
    .await
    .expect(200);
    let usage = app
        .get(&format!("{usage_path}?week=2026-W10"), &app.admin)
        .await
        .expect(200);
    assert_eq!(usage["radioisotopes"][1]["radioisotope"], "Tc(99m)");
    assert_eq!(usage["radioisotopes"][1]["authorised"], 0.0);
    assert_eq!(usage["radioisotopes"][1]["exceeded"], true);
}

async fn concurrent_receipts_are_summed_one_after_another(app: TestApp) {
    let (facility, _, _) = setup(&app, "Clínica Concorrente").await;
    // Ten receipts of 30 mCi at once against 200.5 mCi a week: the 7th to be summed and every one
    // after it go over, whatever the order the database serialises them in.
    let path = format!("/api/facility/{facility}/receipts");
    let body = json!({"radioisotope": "I(131)", "activity": 30, "supplier": "IPEN", "receivedAt": "2026-04-07T10:00:00-03:00"});
    let answers =
        futures::future::join_all((0..10).map(|_| app.post(&path, &app.admin, body.clone()))).await;
    let flagged = answers
        .into_iter()
        .map(|a| a.expect(201))
        .filter(|r| r["overQuantity"] == true)
        .count();
    assert_eq!(flagged, 4);
    let usage = app
        .get(
            &format!("/api/facility/{facility}/radioisotopes/usage?week=2026-W15"),
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(usage["radioisotopes"][1]["received"], 300.0);
}

async fn store_waste(app: &TestApp, facility: &str, body: Value) -> Value {
    app.post(&format!("/api/facility/{facility}/waste"), &app.admin, body)
        .await
        .expect(201)
}

/// The instant a bare closure date stands for: the end of that day in Brasília.
fn end_of(day: &str) -> DateTime<Utc> {
    let d = NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap() + Days::new(1);
    registry_core::material::day_start(d)
}

async fn waste_is_released_once_after_its_date(app: TestApp) {
    let (facility, linked, other) = setup(&app, "Clínica Rejeitos").await;
    let (_, fisico) = app.user_with(&["Físico"], "Fisica").await;
    let old = store_waste(
        &app,
        &facility,
        json!({"form": "Sólido", "contents": [{"radioisotope": "I(131)", "activity": 1}], "mass": 10,
               "closedAt": "2026-01-05", "location": "Sala de decaimento, prateleira 1"}),
    )
    .await;
    let expected = release_date(
        &[WasteContent {
            radioisotope: Radioisotope::I131,
            activity: 1.0,
        }],
        10.0,
        end_of("2026-01-05"),
        &ClearanceLevels::default(),
    );
    assert_eq!(old["releaseDate"], expected.to_string());
    assert_eq!(old["releaseDate"], "2026-02-21");
    assert_eq!(old["releasable"], true);
    assert_eq!(old["closedAt"], "2026-01-06T03:00:00.000000Z");
    assert!(old["release"].is_null());
    let fresh = store_waste(
        &app,
        &facility,
        json!({"form": "liquid", "contents": [{"radioisotope": "I(131)", "activity": 500}, {"radioisotope": "Tc(99m)", "activity": 50}],
               "mass": "2.5", "location": "Tanque 2", "description": "Rejeito de iodoterapia"}),
    )
    .await;
    assert_eq!(fresh["form"], "Líquido");
    assert_eq!(fresh["releasable"], false);
    assert!(fresh["releaseDate"].as_str().unwrap() > today().to_string().as_str());
    // Refusals: a Cliente may not store; bad payloads name every field.
    app.post(
        &format!("/api/facility/{facility}/waste"),
        &linked,
        json!({}),
    )
    .await
    .expect_error(403, "permission_denied");
    let res = app
        .post(
            &format!("/api/facility/{facility}/waste"),
            &app.admin,
            json!({"form": "gas", "contents": [], "mass": -2}),
        )
        .await
        .expect_error(422, "validation_failed");
    for (field, code) in [
        ("form", "invalid_value"),
        ("contents", "invalid_value"),
        ("mass", "invalid_value"),
        ("location", "required"),
    ] {
        assert!(
            res.has_field_error(field, code),
            "{field} {code}: {}",
            res.body
        );
    }

    // What can go today.
    let releasable = app
        .get("/api/waste?releasable=true", &app.admin)
        .await
        .expect(200);
    assert_eq!(releasable["paging"]["total"], 1);
    assert_eq!(releasable["list"][0]["_id"], old["_id"]);
    let waiting = app
        .get(
            &format!("/api/facility/{facility}/waste?releasable=false"),
            &linked,
        )
        .await
        .expect(200);
    assert_eq!(waiting["list"][0]["_id"], fresh["_id"]);
    assert_eq!(
        app.get("/api/waste?radioisotope=Tc(99m)", &app.admin)
            .await
            .expect(200)["paging"]["total"],
        1
    );
    assert_eq!(
        app.get("/api/waste", &other).await.expect(200)["paging"]["total"],
        0
    );
    app.get(&format!("/api/waste/{}", id(&old)), &other)
        .await
        .expect_error(404, "not_found");
    app.get(&format!("/api/facility/{facility}/waste"), &other)
        .await
        .expect_error(404, "not_found");

    // Release: not before the date; only staff; the dose rate is required.
    let release = |w: &Value| format!("/api/waste/{}/release", id(w));
    app.post(&release(&fresh), &app.admin, json!({"doseRate": 0.1}))
        .await
        .expect_error(409, "conflict");
    app.post(&release(&old), &linked, json!({"doseRate": 0.1}))
        .await
        .expect_error(403, "permission_denied");
    let res = app
        .post(&release(&old), &fisico, json!({"notes": "sem medida"}))
        .await
        .expect_error(422, "validation_failed");
    assert!(res.has_field_error("doseRate", "required"));
    let released = app
        .post(
            &release(&old),
            &fisico,
            json!({"doseRate": 0.12, "notes": "Fundo: 0.10 µSv/h"}),
        )
        .await
        .expect(200);
    assert_eq!(released["release"]["doseRate"], 0.12);
    assert_eq!(released["release"]["releasedBy"]["name"], "Fisica");
    assert_eq!(released["releasable"], false);
    assert_eq!(
        app.get(&format!("/api/waste/{}", id(&old)), &linked)
            .await
            .expect(200),
        released
    );
    // A released package is never changed again.
    app.post(&release(&old), &app.admin, json!({"doseRate": 0.1}))
        .await
        .expect_error(409, "invalid_transition");
    app.put(
        &format!("/api/waste/{}", id(&old)),
        &app.admin,
        json!({"location": "Outro lugar"}),
    )
    .await
    .expect_error(409, "invalid_transition");
    assert_eq!(
        app.get("/api/waste?released=true", &app.admin)
            .await
            .expect(200)["paging"]["total"],
        1
    );
    assert_eq!(
        app.get("/api/waste?releasable=true", &app.admin)
            .await
            .expect(200)["paging"]["total"],
        0
    );

    // A stored one is edited, and its release date computed again.
    let edited = app
        .put(
            &format!("/api/waste/{}", id(&fresh)),
            &app.admin,
            json!({"location": "Tanque 3", "contents": [{"radioisotope": "Tc(99m)", "activity": 0.000001}]}),
        )
        .await
        .expect(200);
    assert_eq!(edited["location"], "Tanque 3");
    assert!(edited["releaseDate"].as_str().unwrap() < fresh["releaseDate"].as_str().unwrap());
    assert_eq!(edited["description"], "Rejeito de iodoterapia");
    app.put(
        &format!("/api/waste/{}", id(&fresh)),
        &app.admin,
        json!({"mass": 0}),
    )
    .await
    .expect_error(422, "validation_failed");
    app.put("/api/waste/nope", &app.admin, json!({"location": "x"}))
        .await
        .expect_error(404, "not_found");
    assert_eq!(
        app.audit_actions("waste", &id(&old)).await,
        ["create", "release"]
    );
}

/// Registers a user with licence validities and returns `(id, email)`.
async fn licensed_user(
    app: &TestApp,
    name: &str,
    roles: &[&str],
    an_validity: &str,
) -> (String, String) {
    let email = format!(
        "{}-{}@example.com",
        name.to_lowercase(),
        rand::rng().random::<u32>()
    );
    let user = app
        .post(
            "/api/register/",
            &app.admin,
            json!({"name": name, "email": email, "password": PASSWORD, "roles": roles,
                   "ANLicenseNumber": "AN-1", "ANLicenseValidity": an_validity}),
        )
        .await
        .expect(201);
    (id(&user), email)
}

/// A facility with something of every kind to notice; returns it with its responsible
/// people's addresses and a non-responsible user's.
async fn facility_with_notices(app: &TestApp, name: &str) -> (String, Vec<String>, String) {
    let soon = (today() + Days::new(10)).to_string();
    let far = (today() + Days::new(400)).to_string();
    let (titular, titular_email) = licensed_user(app, "Titular", &["Cliente"], &soon).await;
    let (supervisor, supervisor_email) = licensed_user(app, "Supervisora", &["Físico"], &far).await;
    let (substitute, substitute_email) = licensed_user(app, "Substituto", &["Cliente"], &far).await;
    let mut payload = facility_payload(name);
    payload["users"] = json!([
        {"_id": titular, "responsabilities": ["Titular"]},
        {"_id": supervisor, "responsabilities": ["Supervisor"]},
        {"_id": substitute, "responsabilities": ["Substituto"]},
    ]);
    let facility = id(&app.create_facility(payload).await);
    // A QC test overdue, on a named equipment.
    let test_type = id(&app
        .post(
            "/api/typeOfTest/register",
            &app.admin,
            json!({"name": format!("Constância {name}"), "typeOfEquipment": "00000000-0000-7000-8000-000000000001", "expirationInDays": 30}),
        )
        .await
        .expect(201));
    let equipment = id(&app
        .post(
            "/api/equipment/register",
            &app.admin,
            json!({"facility": facility, "typeOfEquipment": "00000000-0000-7000-8000-000000000001",
                   "manufacturer": "Capintec", "model": "CRC-55t", "serialNumber": "SN-9"}),
        )
        .await
        .expect(201));
    app.post(
        "/api/test/",
        &app.admin,
        json!({"equipment": equipment, "typeOfTest": test_type, "date": (today() - Days::new(40)).to_string(), "conclusion": "Satisfatório"}),
    )
    .await
    .expect(201);
    // A document that runs out in 10 days.
    let date = (today() - Days::new(300)).to_string();
    upload(
        app,
        &app.admin,
        &facility,
        crate::documents::pdf(200, 3),
        &[
            ("name", "Plano de proteção radiológica"),
            ("date", &date),
            ("validity", &soon),
        ],
    )
    .await
    .expect(201);
    // Waste ready, and a week over its quantity.
    store_waste(
        app,
        &facility,
        json!({"form": "Sólido", "contents": [{"radioisotope": "I(131)", "activity": 1}], "mass": 10,
               "closedAt": "2026-01-05", "location": "Abrigo A"}),
    )
    .await;
    receive(
        app,
        &facility,
        json!({"radioisotope": "I(131)", "activity": 300, "supplier": "IPEN"}),
    )
    .await;
    (
        facility,
        vec![titular_email, supervisor_email],
        substitute_email,
    )
}

async fn notices_list_what_needs_attention(app: TestApp) {
    let (facility, _, _) = facility_with_notices(&app, "Clinica Avisos").await;
    let (quiet, _, _) = setup(&app, "Clinica Tranquila").await;
    let (_, client) = app.user_with(&["Cliente"], "Cliente Avisos").await;
    let notices = app
        .get("/api/notices?pageSize=200", &app.admin)
        .await
        .expect(200);
    let list = notices["list"].as_array().unwrap();
    let kinds: Vec<&str> = list.iter().map(|n| n["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "qc_overdue",
            "licence_expiring",
            "document_expiring",
            "waste_releasable",
            "quantity_exceeded"
        ],
        "{notices}"
    );
    assert!(
        list.iter()
            .all(|n| n["facility"]["_id"] == facility.as_str())
    );
    let qc = &list[0];
    assert_eq!(qc["equipment"]["name"], "Capintec CRC-55t (série SN-9)");
    assert_eq!(qc["date"], (today() - Days::new(10)).to_string());
    assert!(
        list[1]["subject"].as_str().unwrap().contains("Titular"),
        "{}",
        list[1]
    );
    assert_eq!(list[2]["subject"], "Plano de proteção radiológica");
    assert_eq!(list[3]["date"], "2026-02-21");
    assert_eq!(
        list[4]["date"],
        IsoWeek::containing(Utc::now()).monday().to_string()
    );
    assert!(
        list[4]["subject"].as_str().unwrap().contains("300 mCi"),
        "{}",
        list[4]
    );
    // Filters and paging.
    let only = app
        .get("/api/notices?kind=waste_releasable,qc_overdue", &app.admin)
        .await
        .expect(200);
    assert_eq!(only["paging"]["total"], 2);
    let page = app
        .get("/api/notices?pageSize=2&pageNum=3", &app.admin)
        .await
        .expect(200);
    assert_eq!(page["list"].as_array().unwrap().len(), 1);
    assert_eq!(page["paging"]["total"], 5);
    let none = app
        .get(&format!("/api/notices?facilityId={quiet}"), &app.admin)
        .await
        .expect(200);
    assert_eq!(none["paging"]["total"], 0);
    app.get("/api/notices?kind=everything", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/notices", &client)
        .await
        .expect_error(403, "permission_denied");
    // A QC test due within the lead time is "due soon", and leaves once recorded again.
    let (_, fisico) = app.user_with(&["Físico"], "Fisico Avisos").await;
    assert_eq!(
        app.get("/api/notices?kind=qc_due_soon", &fisico)
            .await
            .expect(200)["paging"]["total"],
        0
    );
    // Every route is in the OpenAPI description.
    let doc = app
        .call(reqwest::Method::GET, "/api/openapi.json", None, None)
        .await
        .expect(200);
    for path in [
        "/api/facility/{id}/receipts",
        "/api/receipts",
        "/api/receipt/{id}",
        "/api/facility/{id}/radioisotopes/usage",
        "/api/facility/{id}/waste",
        "/api/waste",
        "/api/waste/{id}",
        "/api/waste/{id}/release",
        "/api/notices",
    ] {
        assert!(
            doc["paths"][path].is_object(),
            "{path} missing from the OpenAPI document"
        );
    }
}

/// Undoes quoted-printable (soft line breaks and `=XX` bytes) so the body can be read.
fn unquote(raw: &str) -> String {
    let joined = raw.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn the_digest_goes_out_once_through_smtp_and_is_retried(backend: Backend) {
    // The registry points at a port where no SMTP server listens yet.
    let port = free_port();
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.smtp_url = Some(registry_server::config::Secret(format!(
            "smtp://127.0.0.1:{port}"
        )));
        c.documents.email_retry_base = Duration::from_millis(300);
        // No digest worker in the background: the test plays two instances itself.
        c.notices.digest_hour = None;
    })
    .await
    else {
        return;
    };
    let (facility, responsible, substitute) = facility_with_notices(&app, "Clinica Digest").await;
    setup(&app, "Clinica Sem Avisos").await;
    // Before the deployer's hour nothing is planned: at noon with the digest set for 23:00.
    let mut late = (*app.state.config).clone();
    late.notices.digest_hour = Some(23);
    let mut early_instance = app.state.clone();
    early_instance.config = Arc::new(late);
    let noon = registry_core::material::day_start(today()) + chrono::Duration::hours(12);
    assert_eq!(
        registry_server::notices::run_once(&early_instance, "early", noon)
            .await
            .unwrap(),
        0
    );
    let planned: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notice_runs")
        .fetch_one(&mut app.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(planned, 0, "nothing planned before the hour");
    // Two instances of the server sharing the database, with the digest due from 00:00.
    let mut config = (*app.state.config).clone();
    config.notices.digest_hour = Some(0);
    let mut instance = app.state.clone();
    instance.config = Arc::new(config);
    let both = |now: DateTime<Utc>| {
        let (a, b) = (instance.clone(), instance.clone());
        async move {
            let (x, y) = tokio::join!(
                registry_server::notices::run_once(&a, "instance-a", now),
                registry_server::notices::run_once(&b, "instance-b", now)
            );
            x.unwrap() + y.unwrap()
        }
    };
    // First round: the SMTP server is down; one instance claims the digest, the attempt fails.
    assert_eq!(
        both(Utc::now()).await,
        1,
        "one digest, claimed by exactly one instance"
    );
    let row: (String, i64, Option<String>) = sqlx::query_as(
        "SELECT status, attempts, last_error FROM notice_digests WHERE facility_id = $1",
    )
    .bind(&facility)
    .fetch_one(&mut app.outside_connection().await)
    .await
    .unwrap();
    assert_eq!((row.0.as_str(), row.1), ("pending", 1));
    assert!(row.2.is_some_and(|e| e.contains("SMTP")));
    let Some(smtp) = SmtpSink::start_on(Some(port)).await else {
        return;
    };
    // Not before its retry time; then exactly once.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(both(Utc::now()).await, 1);
    assert_eq!(both(Utc::now()).await, 0, "nothing more to send today");
    let messages = smtp.messages();
    assert_eq!(messages.len(), 1, "one digest per facility with notices");
    let m = unquote(&messages[0]);
    for to in &responsible {
        assert!(m.contains(to.as_str()), "{to} is a responsible person: {m}");
    }
    assert!(
        !m.contains(substitute.as_str()),
        "a Substituto is not mailed: {m}"
    );
    assert!(m.contains("Clinica Digest"), "{m}");
    for expected in [
        "Testes de controle de qualidade vencidos (1)",
        "Capintec CRC-55t (série SN-9)",
        "Rejeitos prontos para liberação (1)",
        "  - 2026-02-21: Pacote sólido (I(131)) em Abrigo A — instalação: Clinica Digest",
        "Documentos a vencer (1)",
        "Licença AN nº AN-1 de Titular (vence)",
        "Quantidades semanais excedidas (1)",
    ] {
        assert!(m.contains(expected), "missing {expected:?} in {m}");
    }
    let row: (String, i64, i64) = sqlx::query_as(
        "SELECT status, attempts, CASE WHEN sent_at IS NULL THEN 0 ELSE 1 END FROM notice_digests WHERE facility_id = $1",
    )
    .bind(&facility)
    .fetch_one(&mut app.outside_connection().await)
    .await
    .unwrap();
    assert_eq!((row.0.as_str(), row.1), ("sent", 2));
    assert_eq!(row.2, 1, "sent_at is recorded");
    // The attempts are in the facility's history (newest first).
    let history = app
        .get(
            &format!("/api/facility/{facility}/history?pageSize=200"),
            &app.admin,
        )
        .await
        .expect(200);
    let mut digests = history_actions(&history);
    assert_eq!(history["paging"]["total"], digests.len(), "all on one page");
    digests.retain(|a| a.starts_with("digest"));
    assert_eq!(digests, ["digest_sent", "digest_retry"]);
    // The next day is planned again, once.
    let tomorrow = Utc::now() + chrono::Duration::days(1);
    assert_eq!(both(tomorrow).await, 1);
    let days: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notice_runs")
        .fetch_one(&mut app.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(days, 2);
}

async fn clearance_levels_come_from_the_deployer(backend: Backend) {
    // I(131) cleared at 10 000 Bq/g: 1 mCi in 10 kg (3 700 Bq/g) may go at once.
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.notices.clearance = ClearanceLevels::parse("I(131)=10000").unwrap();
    })
    .await
    else {
        return;
    };
    let (facility, _, _) = setup(&app, "Clínica Dispensa").await;
    let body = json!({"form": "Sólido", "contents": [{"radioisotope": "I(131)", "activity": 1}], "mass": 10,
                      "closedAt": "2026-01-05", "location": "Abrigo"});
    let package = store_waste(&app, &facility, body).await;
    assert_eq!(
        package["releaseDate"], "2026-01-06",
        "already clear when closed at the end of the 5th"
    );
    // Under the default levels the same package waits until 21 February.
    let tc = store_waste(
        &app,
        &facility,
        json!({"form": "Sólido", "contents": [{"radioisotope": "Tc(99m)", "activity": 1}], "mass": 10,
               "closedAt": "2026-01-05", "location": "Abrigo"}),
    )
    .await;
    assert_eq!(
        tc["releaseDate"], "2026-01-08",
        "Tc(99m) keeps the default 74 Bq/g"
    );
}
