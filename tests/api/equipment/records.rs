//! Equipment records: every path of their CRUD, what clients see, the CNPJ lock and the OpenAPI
//! document.

use super::{DOSE_CALIBRATOR, GAMMA_CAMERA, days_ago, equipment, id, record, test_type};
use crate::helpers::{TestApp, facility_payload, history_actions, unique_cnpj, urlencode};
use crate::on_both_databases;
use serde_json::{Value, json};

on_both_databases!(
    equipment_crud_on_every_path,
    clients_see_only_their_facilities_equipment,
    cnpj_is_locked_once_the_facility_has_equipment,
    openapi_describes_the_new_endpoints,
    equipment_is_found_by_any_text_in_any_case_and_accents
);

/// `q` of a facility's equipment list finds a part of any of its texts, whatever the case and
/// accents, as every other `q` does; a term never matches across two of them.
async fn equipment_is_found_by_any_text_in_any_case_and_accents(app: TestApp) {
    let f = id(&app.create_facility(facility_payload("Clínica Busca")).await);
    app.post_created(
        "/api/equipment/register",
        &app.admin,
        json!({"facility": f, "typeOfEquipment": GAMMA_CAMERA, "manufacturer": "Ñandú Médica",
               "model": "Câmara X", "localization": "Sala São João"}),
    )
    .await;
    equipment(&app, &f, DOSE_CALIBRATOR).await;
    for (q, total) in [
        ("Ñandú", 1),
        ("nandu", 1),
        ("MÉDICA", 1),
        ("camara x", 1),
        ("sao joao", 1),
        ("SN-1", 1),
        ("medica camara", 0),
    ] {
        let path = format!("/api/facility/{f}/equipments?q={}", urlencode(q));
        assert_eq!(app.admin_get(&path).await["paging"]["total"], total, "{q}");
    }
}

async fn equipment_crud_on_every_path(app: TestApp) {
    let [laudos, client] = app
        .role_tokens([("Laudos", "Lau"), ("Cliente", "Cli")])
        .await;
    let f = id(&app.create_facility(facility_payload("Equipada")).await);
    let payload = json!({
        "facility": f, "typeOfEquipment": GAMMA_CAMERA, "manufacturer": "Siemens", "model": "Symbia T2",
        "serialNumber": "GC-001", "patrimonialNumber": "PAT-9", "localization": "Sala 3",
        "attributes": {"detectors": 2, "collimators": ["LEHR", "MEGP"]}
    });
    app.assert_post_denied("/api/equipment/register", &client, payload.clone())
        .await;
    let created = app
        .post_created("/api/equipment/register/", &laudos, payload.clone())
        .await;
    let eq = id(&created);
    assert_eq!(created["facility"]["_id"], f.as_str());
    assert_eq!(created["facility"]["name"], "Equipada");
    assert_eq!(
        created["typeOfEquipment"],
        json!({"_id": GAMMA_CAMERA, "name": "Gama Câmara"})
    );
    assert_eq!(
        created["attributes"]["collimators"],
        json!(["LEHR", "MEGP"])
    );
    assert_eq!(created["serialNumber"], "GC-001");
    assert_eq!(created["active"], true);
    let second = app
        .post_created(
            "/api/facility/equipment/register",
            &laudos,
            json!({"facility": {"_id": f}, "typeOfEquipment": DOSE_CALIBRATOR, "attributes": {"probe": "well"}}),
        )
        .await;
    assert_eq!(
        app.get_ok(&format!("/api/equipment/{eq}"), &laudos).await,
        created
    );
    for path in [
        format!("/api/facility/{f}/equipments"),
        format!("/api/facility/{f}/equipments/"),
    ] {
        let list = app.get_ok(&path, &laudos).await;
        assert_eq!(
            list["paging"],
            json!({"total": 2, "pageNum": 1, "pageSize": 20})
        );
        assert_eq!(list["list"][0]["_id"], second["_id"], "newest first");
    }
    let filtered = app
        .get_ok(
            &format!("/api/facility/{f}/equipments?typeOfEquipment={GAMMA_CAMERA}"),
            &laudos,
        )
        .await;
    assert_eq!(filtered["paging"]["total"], 1);
    app.assert_not_found("/api/facility/missing/equipments", &laudos)
        .await;

    // Every failing field at once.
    app.post(
        "/api/equipment/register",
        &laudos,
        json!({"facility": "missing", "typeOfEquipment": "missing", "attributes": 3}),
    )
    .await
    .expect_field_error("attributes", "invalid_value");
    let refused = app
        .post(
            "/api/equipment/register",
            &laudos,
            json!({"facility": "missing", "typeOfEquipment": "missing"}),
        )
        .await
        .expect_field_errors(&[
            ("facility", "invalid_value"),
            ("typeOfEquipment", "invalid_value"),
        ]);
    // The message reads as a sentence: each field, then what is wrong with it.
    assert_eq!(
        refused.body["message"],
        "Invalid input: facility names no facility with _id missing; \
         typeOfEquipment names no equipment type with _id missing."
    );

    // Edit: fields present replace, absent stay; the facility cannot move.
    let edited = app
        .post_ok(
            "/api/facility/equipment/edit",
            &laudos,
            json!({"_id": eq, "localization": "Sala 4", "model": null, "attributes": {"detectors": 1}, "active": false}),
        )
        .await;
    assert_eq!(edited["localization"], "Sala 4");
    assert_eq!(edited["model"], Value::Null);
    assert_eq!(edited["manufacturer"], "Siemens");
    assert_eq!(edited["attributes"], json!({"detectors": 1}));
    assert_eq!(edited["active"], false);
    // `active` filters the list; a value it cannot read is refused, never dropped.
    for (query, total) in [("active=false", 1), ("active=true", 1), ("", 2)] {
        let list = app
            .get_ok(&format!("/api/facility/{f}/equipments?{query}"), &laudos)
            .await;
        assert_eq!(list["paging"]["total"], total, "{query}");
    }
    app.assert_bad_requests(&[
        &format!("/api/facility/{f}/equipments?active=1"),
        &format!("/api/facility/{f}/equipments?active=maybe"),
        &format!("/api/facility/{f}/equipments?filters=%7B%22active%22%3A%22yes%22%7D"),
    ])
    .await;
    let other = id(&app.create_facility(facility_payload("Outra")).await);
    app.post(
        "/api/facility/equipment/edit",
        &laudos,
        json!({"_id": eq, "facility": other}),
    )
    .await
    .expect_field_error("facility", "invalid_value");
    // One answer lists every failing field: the payload's, a type that does not exist, `_id`.
    app.post(
        "/api/facility/equipment/edit",
        &laudos,
        json!({"_id": eq, "attributes": 3, "typeOfEquipment": "nope"}),
    )
    .await
    .expect_field_errors(&[
        ("attributes", "invalid_value"),
        ("typeOfEquipment", "invalid_value"),
    ]);
    // A field that may not change is reported with the others that fail.
    app.post(
        "/api/facility/equipment/edit",
        &laudos,
        json!({"_id": eq, "facility": other, "model": "m".repeat(201)}),
    )
    .await
    .expect_field_errors(&[("facility", "invalid_value"), ("model", "invalid_value")]);
    app.post(
        "/api/facility/equipment/edit",
        &laudos,
        json!({"attributes": 3}),
    )
    .await
    .expect_field_errors(&[("_id", "required"), ("attributes", "invalid_value")]);
    app.post_id("/api/facility/equipment/edit", &client, &eq)
        .await
        .expect_error(403, "permission_denied");
    app.post(
        "/api/facility/equipment/edit",
        &laudos,
        json!({"_id": "missing", "model": "X"}),
    )
    .await
    .expect_error(404, "not_found");

    // Archive: gone from reads, kept in the audit log.
    app.post_id("/api/facility/equipment/exclude", &client, &eq)
        .await
        .expect_error(403, "permission_denied");
    app.post_id("/api/facility/equipment/exclude/", &laudos, &eq)
        .await
        .expect(200);
    app.assert_not_found(&format!("/api/equipment/{eq}"), &laudos)
        .await;
    let list = app
        .get_ok(&format!("/api/facility/{f}/equipments"), &laudos)
        .await;
    assert_eq!(list["paging"]["total"], 1);
    let history = app.history("equipment", &eq).await;
    assert_eq!(history_actions(&history), ["archive", "edit", "create"]);
    assert_eq!(history["list"][1]["before"]["localization"], "Sala 3");
    assert_eq!(history["list"][1]["after"]["localization"], "Sala 4");
    app.get(&format!("/api/equipment/{eq}/history"), &client)
        .await
        .expect_error(403, "permission_denied");
}

async fn clients_see_only_their_facilities_equipment(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Cli Linked").await;
    let mine = id(&app.create_facility_of(&client, "Minha").await);
    let other = id(&app.create_facility(facility_payload("Alheia")).await);
    let my_eq = equipment(&app, &mine, DOSE_CALIBRATOR).await;
    let other_eq = equipment(&app, &other, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Constância", 1).await;
    let mine_test = id(&record(&app, &my_eq, &tt, &days_ago(0)).await);
    let other_test = id(&record(&app, &other_eq, &tt, &days_ago(0)).await);

    for path in [
        format!("/api/equipment/{my_eq}"),
        format!("/api/facility/{mine}/equipments"),
        format!("/api/test/{my_eq}/{tt}"),
        format!("/api/test/{mine_test}"),
        format!("/api/equipment/{my_eq}/tests/due"),
    ] {
        app.get_ok(&path, &token).await;
    }
    for path in [
        format!("/api/equipment/{other_eq}"),
        format!("/api/facility/{other}/equipments"),
        format!("/api/test/{other_eq}/{tt}"),
        format!("/api/test/{other_test}"),
        format!("/api/equipment/{other_eq}/tests/due"),
    ] {
        app.assert_not_found(&path, &token).await;
    }
    let due = app.get_ok("/api/tests/due?state=due_soon", &token).await;
    assert_eq!(due["paging"]["total"], 1);
    assert_eq!(due["list"][0]["equipment"]["_id"], my_eq.as_str());
    let due = app.admin_get("/api/tests/due?state=due_soon").await;
    assert_eq!(due["paging"]["total"], 2);
    // A client records nothing, even on their own facility.
    let test = json!({"equipment": my_eq, "typeOfTest": tt, "date": days_ago(0), "conclusion": "Satisfatório"});
    app.assert_post_denied("/api/test", &token, test).await;
    app.assert_put_denied(
        &format!("/api/test/{mine_test}"),
        &token,
        json!({"notes": "x"}),
    )
    .await;
    app.assert_post_denied(&format!("/api/test/{mine_test}"), &token, json!({}))
        .await;
}

async fn cnpj_is_locked_once_the_facility_has_equipment(app: TestApp) {
    let f = id(&app.create_facility(facility_payload("Trava")).await);
    // Before any equipment the cnpj may change.
    let changed = unique_cnpj();
    app.admin_post("/api/facility/edit", json!({"_id": f, "cnpj": changed}))
        .await;
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    app.put(
        &format!("/api/facility/{f}/edit"),
        &app.admin,
        json!({"cnpj": unique_cnpj()}),
    )
    .await
    .expect_field_error("cnpj", "cnpj_locked");
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": f, "cnpj": unique_cnpj()}),
    )
    .await
    .expect_field_error("cnpj", "cnpj_locked");
    // The same cnpj and other fields still go through.
    let same = app
        .admin_post(
            "/api/facility/edit",
            json!({"_id": f, "cnpj": changed, "name": "Trava Nova"}),
        )
        .await;
    assert_eq!(same["name"], "Trava Nova");
    // Archived equipment is history: the lock stays.
    app.admin_post_id("/api/facility/equipment/exclude", &eq)
        .await;
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": f, "cnpj": unique_cnpj()}),
    )
    .await
    .expect_error(422, "validation_failed");
}

async fn openapi_describes_the_new_endpoints(app: TestApp) {
    let doc = app.openapi().await;
    for (path, method) in [
        ("/api/typeOfEquipment", "get"),
        ("/api/typeOfEquipment/{id}", "get"),
        ("/api/typeOfEquipment/register", "post"),
        ("/api/typeOfEquipment/exclude", "post"),
        ("/api/typeOfTest", "get"),
        ("/api/typeOfTest/register", "post"),
        ("/api/equipment/{id}", "get"),
        ("/api/facility/{id}/equipments", "get"),
        ("/api/equipment/register", "post"),
        ("/api/facility/equipment/register", "post"),
        ("/api/facility/equipment/edit", "post"),
        ("/api/facility/equipment/exclude", "post"),
        ("/api/test", "post"),
        ("/api/test/{id}", "put"),
        ("/api/test/{id}", "post"),
        ("/api/test/{equipmentId}/{testId}", "get"),
        ("/api/equipment/{id}/tests/due", "get"),
        ("/api/tests/due", "get"),
    ] {
        assert!(
            doc["paths"][path][method].is_object(),
            "{method} {path} missing from the OpenAPI document"
        );
    }
    assert!(doc["components"]["schemas"]["DueTest"].is_object());
}
