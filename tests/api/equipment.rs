use crate::helpers::{TestApp, facility_payload, history_actions, unique_cnpj};
use crate::on_both_databases;
use chrono::{Days, NaiveDate};
use reqwest::Method;
use serde_json::{Value, json};

on_both_databases!(
    equipment_types_are_seeded_and_guarded,
    test_types_validate_and_are_guarded,
    equipment_crud_on_every_path,
    clients_see_only_their_facilities_equipment,
    qc_tests_record_edit_delete_and_history,
    a_test_type_must_belong_to_the_equipment_type,
    due_states_per_equipment_and_across_facilities,
    cnpj_is_locked_once_the_facility_has_equipment,
    openapi_describes_the_new_endpoints,
    due_lists_follow_new_edited_and_deleted_tests_and_period_changes,
);

pub(crate) const DOSE_CALIBRATOR: &str = "00000000-0000-7000-8000-000000000001";
const GAMMA_CAMERA: &str = "00000000-0000-7000-8000-000000000002";

/// Today as the server sees it (Brasília), and a day `n` days before it.
pub(crate) fn today() -> NaiveDate {
    registry_core::equipment::local_date(chrono::Utc::now())
}

pub(crate) fn days_ago(n: u64) -> String {
    (today() - Days::new(n)).to_string()
}

pub(crate) fn id(v: &Value) -> String {
    v["_id"].as_str().expect("an _id").to_owned()
}

pub(crate) async fn test_type(
    app: &TestApp,
    equipment_type: &str,
    name: &str,
    days: i64,
) -> String {
    id(&app
        .post(
            "/api/typeOfTest/register",
            &app.admin,
            json!({"name": name, "typeOfEquipment": equipment_type, "expirationInDays": days}),
        )
        .await
        .expect(201))
}

pub(crate) async fn equipment(app: &TestApp, facility: &str, equipment_type: &str) -> String {
    id(&app
        .post(
            "/api/equipment/register",
            &app.admin,
            json!({"facility": facility, "typeOfEquipment": equipment_type, "serialNumber": "SN-1"}),
        )
        .await
        .expect(201))
}

pub(crate) async fn record(app: &TestApp, equipment: &str, test_type: &str, date: &str) -> Value {
    app.post(
        "/api/test/",
        &app.admin,
        json!({"equipment": equipment, "typeOfTest": test_type, "date": date, "conclusion": "Satisfatório"}),
    )
    .await
    .expect(201)
}

async fn equipment_types_are_seeded_and_guarded(app: TestApp) {
    let (_, client) = app.user_with(&["Cliente"], "Cli").await;
    let (_, laudos) = app.user_with(&["Laudos"], "Lau").await;
    let (_, admin_role) = app.user_with(&["Admin"], "Adm").await;
    let seeded = app.get("/api/typeOfEquipment", &client).await.expect(200);
    assert_eq!(seeded["paging"]["total"], 7);
    let mut names: Vec<&str> = seeded["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Calibrador de Doses",
            "Contador Geiger",
            "Gama Câmara",
            "Mamógrafo",
            "PET/CT",
            "Raios X",
            "Tomógrafo"
        ]
    );
    let shown = app
        .get(&format!("/api/typeOfEquipment/{GAMMA_CAMERA}/"), &client)
        .await
        .expect(200);
    assert_eq!(shown["name"], "Gama Câmara");
    app.get("/api/typeOfEquipment/nope", &client)
        .await
        .expect_error(404, "not_found");

    app.post(
        "/api/typeOfEquipment/register",
        &client,
        json!({"name": "Ultrassom"}),
    )
    .await
    .expect_error(403, "permission_denied");
    assert!(
        app.post(
            "/api/typeOfEquipment/register",
            &laudos,
            json!({"description": 3})
        )
        .await
        .expect_error(422, "validation_failed")
        .has_field_error("name", "required")
    );
    let created = app
        .post(
            "/api/typeOfEquipment/register/",
            &laudos,
            json!({"name": "Ultrassom", "description": "US"}),
        )
        .await
        .expect(201);
    let us = id(&created);
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    app.post(
        "/api/typeOfEquipment/register",
        &laudos,
        json!({"name": "ultrassom"}),
    )
    .await
    .expect_error(409, "conflict");
    let edited = app
        .post(
            "/api/typeOfEquipment/edit",
            &admin_role,
            json!({"_id": us, "name": "Ultrassonógrafo"}),
        )
        .await
        .expect(200);
    assert_eq!(edited["name"], "Ultrassonógrafo");
    assert_eq!(edited["description"], "US");
    app.post(
        "/api/typeOfEquipment/edit",
        &client,
        json!({"_id": us, "name": "X"}),
    )
    .await
    .expect_error(403, "permission_denied");

    // Delete: Administrator only, and not while a test type or equipment uses the type.
    let tt = test_type(&app, &us, "Uniformidade", 30).await;
    app.post(
        "/api/typeOfEquipment/exclude",
        &admin_role,
        json!({"_id": us}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post(
        "/api/typeOfEquipment/exclude",
        &app.admin,
        json!({"_id": us}),
    )
    .await
    .expect_error(409, "in_use");
    app.post("/api/typeOfTest/exclude", &app.admin, json!({"_id": tt}))
        .await
        .expect(200);
    let f = app.create_facility(facility_payload("Tipos")).await;
    equipment(&app, &id(&f), &us).await;
    app.post(
        "/api/typeOfEquipment/exclude",
        &app.admin,
        json!({"_id": us}),
    )
    .await
    .expect_error(409, "in_use");
    let unused = id(&app
        .post(
            "/api/typeOfEquipment/register",
            &laudos,
            json!({"name": "Densitômetro"}),
        )
        .await
        .expect(201));
    app.post(
        "/api/typeOfEquipment/exclude/",
        &app.admin,
        json!({"_id": unused}),
    )
    .await
    .expect(200);
    app.get(&format!("/api/typeOfEquipment/{unused}"), &client)
        .await
        .expect_error(404, "not_found");
}

async fn test_types_validate_and_are_guarded(app: TestApp) {
    let (_, client) = app.user_with(&["Cliente"], "Cli").await;
    let (_, fisico) = app.user_with(&["Físico"], "Fis").await;
    let res = app
        .post(
            "/api/typeOfTest/register",
            &fisico,
            json!({"typeOfEquipment": "missing", "expirationInDays": -3}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(res.has_field_error("name", "required"));
    assert!(res.has_field_error("expirationInDays", "invalid_value"));
    app.post(
        "/api/typeOfTest/register",
        &fisico,
        json!({"name": "Exatidão", "typeOfEquipment": "missing", "expirationInDays": 365}),
    )
    .await
    .expect_error(422, "validation_failed")
    .has_field_error("typeOfEquipment", "invalid_value")
    .then_some(())
    .expect("typeOfEquipment error");
    app.post(
        "/api/typeOfTest/register",
        &client,
        json!({"name": "Exatidão", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 365}),
    )
    .await
    .expect_error(403, "permission_denied");
    let created = app
        .post(
            "/api/typeOfTest/register",
            &fisico,
            json!({"name": "Exatidão", "typeOfEquipment": {"_id": DOSE_CALIBRATOR}, "expirationInDays": 365,
                   "description": "Co-57, Ba-133, Cs-137"}),
        )
        .await
        .expect(201);
    let exactness = id(&created);
    assert_eq!(
        created["typeOfEquipment"],
        json!({"_id": DOSE_CALIBRATOR, "name": "Calibrador de Doses"})
    );
    assert_eq!(created["expirationInDays"], 365);
    app.post(
        "/api/typeOfTest/register",
        &fisico,
        json!({"name": "exatidao", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 30}),
    )
    .await
    .expect_error(409, "conflict");
    // The same name on another equipment type is fine.
    test_type(&app, GAMMA_CAMERA, "Exatidão", 30).await;
    let listed = app
        .get(
            &format!("/api/typeOfTest?typeOfEquipment={DOSE_CALIBRATOR}"),
            &client,
        )
        .await
        .expect(200);
    assert_eq!(listed["paging"]["total"], 1);
    assert_eq!(listed["list"][0]["_id"], exactness.as_str());
    let edited = app
        .post(
            "/api/typeOfTest/edit",
            &fisico,
            json!({"_id": exactness, "expirationInDays": 180}),
        )
        .await
        .expect(200);
    assert_eq!(edited["expirationInDays"], 180);
    assert_eq!(edited["name"], "Exatidão");
    let shown = app
        .get(&format!("/api/typeOfTest/{exactness}"), &client)
        .await
        .expect(200);
    assert_eq!(shown, edited);

    // Once a test of this type is recorded, the type keeps its equipment type and cannot go.
    let f = app
        .create_facility(facility_payload("Tipos de teste"))
        .await;
    let eq = equipment(&app, &id(&f), DOSE_CALIBRATOR).await;
    record(&app, &eq, &exactness, &days_ago(1)).await;
    app.post(
        "/api/typeOfTest/edit",
        &fisico,
        json!({"_id": exactness, "typeOfEquipment": GAMMA_CAMERA}),
    )
    .await
    .expect_error(422, "validation_failed")
    .has_field_error("typeOfEquipment", "invalid_value")
    .then_some(())
    .expect("typeOfEquipment locked");
    app.post(
        "/api/typeOfTest/exclude",
        &fisico,
        json!({"_id": exactness}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post(
        "/api/typeOfTest/exclude",
        &app.admin,
        json!({"_id": exactness}),
    )
    .await
    .expect_error(409, "in_use");
}

async fn equipment_crud_on_every_path(app: TestApp) {
    let (_, laudos) = app.user_with(&["Laudos"], "Lau").await;
    let (_, client) = app.user_with(&["Cliente"], "Cli").await;
    let f = id(&app.create_facility(facility_payload("Equipada")).await);
    let payload = json!({
        "facility": f, "typeOfEquipment": GAMMA_CAMERA, "manufacturer": "Siemens", "model": "Symbia T2",
        "serialNumber": "GC-001", "patrimonialNumber": "PAT-9", "localization": "Sala 3",
        "attributes": {"detectors": 2, "collimators": ["LEHR", "MEGP"]}
    });
    app.post("/api/equipment/register", &client, payload.clone())
        .await
        .expect_error(403, "permission_denied");
    let created = app
        .post("/api/equipment/register/", &laudos, payload.clone())
        .await
        .expect(201);
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
        .post(
            "/api/facility/equipment/register",
            &laudos,
            json!({"facility": {"_id": f}, "typeOfEquipment": DOSE_CALIBRATOR, "attributes": {"probe": "well"}}),
        )
        .await
        .expect(201);
    assert_eq!(
        app.get(&format!("/api/equipment/{eq}"), &laudos)
            .await
            .expect(200),
        created
    );
    for path in [
        format!("/api/facility/{f}/equipments"),
        format!("/api/facility/{f}/equipments/"),
    ] {
        let list = app.get(&path, &laudos).await.expect(200);
        assert_eq!(
            list["paging"],
            json!({"total": 2, "pageNum": 1, "pageSize": 20})
        );
        assert_eq!(list["list"][0]["_id"], second["_id"], "newest first");
    }
    let filtered = app
        .get(
            &format!("/api/facility/{f}/equipments?typeOfEquipment={GAMMA_CAMERA}"),
            &laudos,
        )
        .await
        .expect(200);
    assert_eq!(filtered["paging"]["total"], 1);
    app.get("/api/facility/missing/equipments", &laudos)
        .await
        .expect_error(404, "not_found");

    // Every failing field at once.
    let bad = app
        .post(
            "/api/equipment/register",
            &laudos,
            json!({"facility": "missing", "typeOfEquipment": "missing", "attributes": 3}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(bad.has_field_error("attributes", "invalid_value"));
    let bad = app
        .post(
            "/api/equipment/register",
            &laudos,
            json!({"facility": "missing", "typeOfEquipment": "missing"}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(bad.has_field_error("facility", "invalid_value"));
    assert!(bad.has_field_error("typeOfEquipment", "invalid_value"));

    // Edit: fields present replace, absent stay; the facility cannot move.
    let edited = app
        .post(
            "/api/facility/equipment/edit",
            &laudos,
            json!({"_id": eq, "localization": "Sala 4", "model": null, "attributes": {"detectors": 1}, "active": false}),
        )
        .await
        .expect(200);
    assert_eq!(edited["localization"], "Sala 4");
    assert_eq!(edited["model"], Value::Null);
    assert_eq!(edited["manufacturer"], "Siemens");
    assert_eq!(edited["attributes"], json!({"detectors": 1}));
    assert_eq!(edited["active"], false);
    let other = id(&app.create_facility(facility_payload("Outra")).await);
    app.post(
        "/api/facility/equipment/edit",
        &laudos,
        json!({"_id": eq, "facility": other}),
    )
    .await
    .expect_error(422, "validation_failed")
    .has_field_error("facility", "invalid_value")
    .then_some(())
    .expect("facility fixed");
    app.post("/api/facility/equipment/edit", &client, json!({"_id": eq}))
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
    app.post(
        "/api/facility/equipment/exclude",
        &client,
        json!({"_id": eq}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post(
        "/api/facility/equipment/exclude/",
        &laudos,
        json!({"_id": eq}),
    )
    .await
    .expect(200);
    app.get(&format!("/api/equipment/{eq}"), &laudos)
        .await
        .expect_error(404, "not_found");
    let list = app
        .get(&format!("/api/facility/{f}/equipments"), &laudos)
        .await
        .expect(200);
    assert_eq!(list["paging"]["total"], 1);
    let history = app
        .get(&format!("/api/equipment/{eq}/history"), &app.admin)
        .await
        .expect(200);
    assert_eq!(history_actions(&history), ["archive", "edit", "create"]);
    assert_eq!(history["list"][1]["before"]["localization"], "Sala 3");
    assert_eq!(history["list"][1]["after"]["localization"], "Sala 4");
    app.get(&format!("/api/equipment/{eq}/history"), &client)
        .await
        .expect_error(403, "permission_denied");
}

async fn clients_see_only_their_facilities_equipment(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Cli Linked").await;
    let mut mine = facility_payload("Minha");
    mine["users"] = json!([{"_id": client, "responsabilities": ["Titular"]}]);
    let mine = id(&app.create_facility(mine).await);
    let other = id(&app.create_facility(facility_payload("Alheia")).await);
    let my_eq = equipment(&app, &mine, DOSE_CALIBRATOR).await;
    let other_eq = equipment(&app, &other, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Constância", 1).await;
    let mine_test = id(&record(&app, &my_eq, &tt, &days_ago(0)).await);
    let other_test = id(&record(&app, &other_eq, &tt, &days_ago(0)).await);

    app.get(&format!("/api/equipment/{my_eq}"), &token)
        .await
        .expect(200);
    app.get(&format!("/api/facility/{mine}/equipments"), &token)
        .await
        .expect(200);
    app.get(&format!("/api/test/{my_eq}/{tt}"), &token)
        .await
        .expect(200);
    app.get(&format!("/api/test/{mine_test}"), &token)
        .await
        .expect(200);
    app.get(&format!("/api/equipment/{my_eq}/tests/due"), &token)
        .await
        .expect(200);
    for path in [
        format!("/api/equipment/{other_eq}"),
        format!("/api/facility/{other}/equipments"),
        format!("/api/test/{other_eq}/{tt}"),
        format!("/api/test/{other_test}"),
        format!("/api/equipment/{other_eq}/tests/due"),
    ] {
        app.get(&path, &token).await.expect_error(404, "not_found");
    }
    let due = app
        .get("/api/tests/due?state=due_soon", &token)
        .await
        .expect(200);
    assert_eq!(due["paging"]["total"], 1);
    assert_eq!(due["list"][0]["equipment"]["_id"], my_eq.as_str());
    let due = app
        .get("/api/tests/due?state=due_soon", &app.admin)
        .await
        .expect(200);
    assert_eq!(due["paging"]["total"], 2);
    // A client records nothing, even on their own facility.
    app.post(
        "/api/test",
        &token,
        json!({"equipment": my_eq, "typeOfTest": tt, "date": days_ago(0), "conclusion": "Satisfatório"}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.put(
        &format!("/api/test/{mine_test}"),
        &token,
        json!({"notes": "x"}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post(&format!("/api/test/{mine_test}"), &token, json!({}))
        .await
        .expect_error(403, "permission_denied");
}

async fn qc_tests_record_edit_delete_and_history(app: TestApp) {
    let (fisico_id, fisico) = app.user_with(&["Físico"], "Fabio Fisico").await;
    let (gone, _) = app.user_with(&["Físico"], "Gone").await;
    app.post("/api/exclude/", &app.admin, json!({"_id": gone}))
        .await
        .expect(200);
    let f = id(&app.create_facility(facility_payload("Testada")).await);
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Precisão", 90).await;

    // Every failing field at once.
    let bad = app
        .post(
            "/api/test",
            &fisico,
            json!({"equipment": eq, "typeOfTest": tt, "date": "21/11/2026", "conclusion": "Bom"}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(bad.has_field_error("date", "invalid_value"));
    assert!(bad.has_field_error("conclusion", "invalid_value"));
    let tomorrow = (today() + Days::new(1)).to_string();
    app.post(
        "/api/test",
        &fisico,
        json!({"equipment": eq, "typeOfTest": tt, "date": tomorrow, "conclusion": "Satisfatório"}),
    )
    .await
    .expect_error(422, "validation_failed")
    .has_field_error("date", "invalid_value")
    .then_some(())
    .expect("future date refused");
    let missing = app
        .post("/api/test", &fisico, json!({}))
        .await
        .expect_error(422, "validation_failed");
    for field in ["equipment", "typeOfTest", "date", "conclusion"] {
        assert!(missing.has_field_error(field, "required"), "{field}");
    }
    // performedBy must be an active user.
    for (performer, code) in [
        (gone.as_str(), "user_inactive"),
        ("nobody", "user_not_found"),
    ] {
        assert!(
            app.post(
                "/api/test",
                &fisico,
                json!({"equipment": eq, "typeOfTest": tt, "date": days_ago(1), "conclusion": "Satisfatório",
                       "performedBy": performer}),
            )
            .await
            .expect_error(422, "validation_failed")
            .has_field_error("performedBy", code),
            "{code}"
        );
    }

    // performedBy defaults to the caller.
    let first = app
        .post(
            "/api/test/",
            &fisico,
            json!({"equipment": eq, "typeOfTest": {"_id": tt}, "date": days_ago(30),
                   "conclusion": "Satisfatório com observações", "measurements": {"Cs-137": {"deviation": 0.021}},
                   "notes": "fonte de Co-57 vencida"}),
        )
        .await
        .expect(201);
    assert_eq!(
        first["performedBy"],
        json!({"_id": fisico_id, "name": "Fabio Fisico"})
    );
    assert_eq!(first["equipment"], eq.as_str());
    assert_eq!(first["facility"]["_id"], f.as_str());
    assert_eq!(first["typeOfTest"], json!({"_id": tt, "name": "Precisão"}));
    assert_eq!(first["conclusion"], "Satisfatório com observações");
    assert_eq!(first["measurements"]["Cs-137"]["deviation"], 0.021);
    assert_eq!(first["date"], days_ago(30));
    let newest = record(&app, &eq, &tt, &days_ago(5)).await;
    let oldest = record(&app, &eq, &tt, &days_ago(200)).await;

    let history = app
        .get(&format!("/api/test/{eq}/{tt}"), &fisico)
        .await
        .expect(200);
    assert_eq!(history["paging"]["total"], 3);
    let order: Vec<&Value> = history["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["_id"])
        .collect();
    assert_eq!(order, [&newest["_id"], &first["_id"], &oldest["_id"]]);
    let ranged = app
        .get(
            &format!(
                "/api/test/{eq}/{tt}?dateGte={}&dateLt={}",
                days_ago(100),
                days_ago(5)
            ),
            &fisico,
        )
        .await
        .expect(200);
    assert_eq!(ranged["paging"]["total"], 1);
    assert_eq!(ranged["list"][0]["_id"], first["_id"]);
    let filters = json!({"dateGte": days_ago(10), "pageSize": 1}).to_string();
    let paged = app
        .client
        .get(app.url(&format!("/api/test/{eq}/{tt}")))
        .query(&[("filters", filters)])
        .bearer_auth(&fisico)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(
        paged["paging"],
        json!({"total": 1, "pageNum": 1, "pageSize": 1})
    );
    app.get(&format!("/api/test/{eq}/{tt}?dateGte=ontem"), &fisico)
        .await
        .expect_error(400, "bad_request");
    app.get(&format!("/api/test/{eq}/missing"), &fisico)
        .await
        .expect_error(404, "not_found");

    // Edit with PUT: fields present replace; the rules of create hold.
    let first_id = id(&first);
    let edited = app
        .put(
            &format!("/api/test/{first_id}"),
            &fisico,
            json!({"conclusion": "Insatisfatório", "notes": null, "date": days_ago(31)}),
        )
        .await
        .expect(200);
    assert_eq!(edited["conclusion"], "Insatisfatório");
    assert_eq!(edited["notes"], Value::Null);
    assert_eq!(edited["date"], days_ago(31));
    assert_eq!(edited["measurements"], first["measurements"]);
    app.put(
        &format!("/api/test/{first_id}"),
        &fisico,
        json!({"performedBy": gone}),
    )
    .await
    .expect_error(422, "validation_failed");
    // A performer deactivated since does not block corrections of their records.
    let (leaving, leaving_token) = app.user_with(&["Físico"], "Leaving").await;
    let theirs = app
        .post(
            "/api/test",
            &leaving_token,
            json!({"equipment": eq, "typeOfTest": tt, "date": days_ago(3), "conclusion": "Satisfatório"}),
        )
        .await
        .expect(201);
    app.post("/api/exclude/", &app.admin, json!({"_id": leaving}))
        .await
        .expect(200);
    let corrected = app
        .put(
            &format!("/api/test/{}", id(&theirs)),
            &fisico,
            json!({"notes": "corrigido"}),
        )
        .await
        .expect(200);
    assert_eq!(corrected["performedBy"]["_id"], leaving.as_str());
    app.post(&format!("/api/test/{}", id(&theirs)), &fisico, json!({}))
        .await
        .expect(200);
    app.put("/api/test/missing", &fisico, json!({"notes": "x"}))
        .await
        .expect_error(404, "not_found");

    // Delete with POST /test/:id.
    app.post(&format!("/api/test/{first_id}"), &fisico, json!({}))
        .await
        .expect(200);
    app.get(&format!("/api/test/{first_id}"), &fisico)
        .await
        .expect_error(404, "not_found");
    app.post(&format!("/api/test/{first_id}"), &fisico, json!({}))
        .await
        .expect_error(404, "not_found");
    let history = app
        .get(&format!("/api/test/{eq}/{tt}"), &fisico)
        .await
        .expect(200);
    assert_eq!(history["paging"]["total"], 2);
}

async fn a_test_type_must_belong_to_the_equipment_type(app: TestApp) {
    let f = id(&app.create_facility(facility_payload("Mista")).await);
    let calibrator = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let camera = equipment(&app, &f, GAMMA_CAMERA).await;
    let uniformity = test_type(&app, GAMMA_CAMERA, "Uniformidade", 7).await;
    let linearity = test_type(&app, DOSE_CALIBRATOR, "Linearidade", 90).await;
    let res = app
        .post(
            "/api/test",
            &app.admin,
            json!({"equipment": calibrator, "typeOfTest": uniformity, "date": days_ago(1), "conclusion": "Satisfatório"}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(res.has_field_error("typeOfTest", "invalid_value"));
    let ok = id(&record(&app, &camera, &uniformity, &days_ago(1)).await);
    // Moving the record onto equipment of another type is refused too.
    app.put(
        &format!("/api/test/{ok}"),
        &app.admin,
        json!({"equipment": calibrator}),
    )
    .await
    .expect_error(422, "validation_failed")
    .has_field_error("typeOfTest", "invalid_value")
    .then_some(())
    .expect("type mismatch on edit");
    let moved = app
        .put(
            &format!("/api/test/{ok}"),
            &app.admin,
            json!({"equipment": calibrator, "typeOfTest": linearity}),
        )
        .await
        .expect(200);
    assert_eq!(moved["typeOfTest"]["_id"], linearity.as_str());
    // Equipment with tests keeps its type.
    app.post(
        "/api/facility/equipment/edit",
        &app.admin,
        json!({"_id": calibrator, "typeOfEquipment": GAMMA_CAMERA}),
    )
    .await
    .expect_error(422, "validation_failed")
    .has_field_error("typeOfEquipment", "invalid_value")
    .then_some(())
    .expect("type fixed once tested");
    let retyped = app
        .post(
            "/api/facility/equipment/edit",
            &app.admin,
            json!({"_id": camera, "typeOfEquipment": DOSE_CALIBRATOR}),
        )
        .await
        .expect(200);
    assert_eq!(retyped["typeOfEquipment"]["name"], "Calibrador de Doses");
}

async fn due_states_per_equipment_and_across_facilities(app: TestApp) {
    let (client, client_token) = app.user_with(&["Cliente"], "Cli").await;
    let mut payload = facility_payload("Vencimentos");
    payload["users"] = json!([{"_id": client, "responsabilities": ["Titular"]}]);
    let f = id(&app.create_facility(payload).await);
    let other = id(&app.create_facility(facility_payload("Outra")).await);
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let never = test_type(&app, DOSE_CALIBRATOR, "Geometria", 365).await;
    let overdue = test_type(&app, DOSE_CALIBRATOR, "Exatidão", 30).await;
    let soon = test_type(&app, DOSE_CALIBRATOR, "Precisão", 30).await;
    let ok = test_type(&app, DOSE_CALIBRATOR, "Linearidade", 90).await;
    // Exatidão: last done 31 days ago with a 30-day period → due yesterday → overdue (an older
    // record does not count, nor does a deleted newer one).
    record(&app, &eq, &overdue, &days_ago(100)).await;
    record(&app, &eq, &overdue, &days_ago(31)).await;
    let deleted = id(&record(&app, &eq, &overdue, &days_ago(2)).await);
    app.post(&format!("/api/test/{deleted}"), &app.admin, json!({}))
        .await
        .expect(200);
    // Precisão: 30-day period, done 16 days ago → due in 14 days → due_soon.
    record(&app, &eq, &soon, &days_ago(16)).await;
    // Linearidade: 90-day period, done 10 days ago → ok.
    record(&app, &eq, &ok, &days_ago(10)).await;

    let due = app
        .get(&format!("/api/equipment/{eq}/tests/due"), &client_token)
        .await
        .expect(200);
    assert_eq!(due["paging"]["total"], 4);
    let by_type = |tt: &str| -> Value {
        due["list"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["typeOfTest"]["_id"] == tt)
            .cloned()
            .unwrap_or_else(|| panic!("no entry for {tt}: {due}"))
    };
    let n = by_type(&never);
    assert_eq!(n["state"], "never_done");
    assert_eq!(n["lastDate"], Value::Null);
    assert_eq!(n["nextDue"], Value::Null);
    let o = by_type(&overdue);
    assert_eq!(o["state"], "overdue");
    assert_eq!(o["lastDate"], days_ago(31));
    assert_eq!(o["nextDue"], days_ago(1));
    assert_eq!(o["expirationInDays"], 30);
    let s = by_type(&soon);
    assert_eq!(s["state"], "due_soon");
    assert_eq!(s["nextDue"], (today() + Days::new(14)).to_string());
    let k = by_type(&ok);
    assert_eq!(k["state"], "ok");
    assert_eq!(k["nextDue"], (today() + Days::new(80)).to_string());
    assert_eq!(k["equipment"]["serialNumber"], "SN-1");
    assert_eq!(k["facility"]["name"], "Vencimentos");
    assert_eq!(k["typeOfEquipment"]["_id"], DOSE_CALIBRATOR);
    // Most urgent first: never done, then by due date.
    let states: Vec<&str> = due["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["never_done", "overdue", "due_soon", "ok"]);
    let only = app
        .get(
            &format!("/api/equipment/{eq}/tests/due?state=ok"),
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(only["paging"]["total"], 1);

    // Across facilities: equipment of another facility, and an inactive one that is left out.
    let other_eq = equipment(&app, &other, DOSE_CALIBRATOR).await;
    record(&app, &other_eq, &overdue, &days_ago(60)).await;
    let idle = equipment(&app, &other, DOSE_CALIBRATOR).await;
    app.post(
        "/api/facility/equipment/edit",
        &app.admin,
        json!({"_id": idle, "active": false}),
    )
    .await
    .expect(200);
    let overdue_all = app
        .get("/api/tests/due?state=overdue", &app.admin)
        .await
        .expect(200);
    assert_eq!(overdue_all["paging"]["total"], 2);
    // The one due longest ago comes first.
    assert_eq!(
        overdue_all["list"][0]["equipment"]["_id"],
        other_eq.as_str()
    );
    assert_eq!(overdue_all["list"][1]["equipment"]["_id"], eq.as_str());
    let soon_all = app
        .get("/api/tests/due/?state=due_soon", &app.admin)
        .await
        .expect(200);
    assert_eq!(soon_all["paging"]["total"], 1);
    assert_eq!(soon_all["list"][0]["typeOfTest"]["_id"], soon.as_str());
    // Without `state`: everything that needs attention (not ok): 4 on `eq` minus ok, 4 on other_eq.
    let attention = app.get("/api/tests/due", &app.admin).await.expect(200);
    assert_eq!(attention["paging"]["total"], 3 + 4);
    let both = app
        .get(
            "/api/tests/due?state=overdue,due_soon&pageSize=2&pageNum=2",
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(
        both["paging"],
        json!({"total": 3, "pageNum": 2, "pageSize": 2})
    );
    assert_eq!(both["list"].as_array().unwrap().len(), 1);
    let beyond = app
        .get("/api/tests/due?state=overdue&pageNum=9", &app.admin)
        .await
        .expect(200);
    assert_eq!(beyond["paging"]["total"], 2);
    assert_eq!(beyond["list"], json!([]));
    let by_facility = app
        .get(
            &format!("/api/tests/due?state=overdue&facilityId={f}"),
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(by_facility["paging"]["total"], 1);
    // A client sees only their facility's.
    let theirs = app
        .get("/api/tests/due?state=overdue", &client_token)
        .await
        .expect(200);
    assert_eq!(theirs["paging"]["total"], 1);
    assert_eq!(theirs["list"][0]["equipment"]["_id"], eq.as_str());
    app.get("/api/tests/due?state=late", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.call(Method::GET, "/api/tests/due", None, None)
        .await
        .expect_error(401, "unauthorized");
}

async fn cnpj_is_locked_once_the_facility_has_equipment(app: TestApp) {
    let f = id(&app.create_facility(facility_payload("Trava")).await);
    // Before any equipment the cnpj may change.
    let changed = unique_cnpj();
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": f, "cnpj": changed}),
    )
    .await
    .expect(200);
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    assert!(
        app.put(
            &format!("/api/facility/{f}/edit"),
            &app.admin,
            json!({"cnpj": unique_cnpj()}),
        )
        .await
        .expect_error(422, "validation_failed")
        .has_field_error("cnpj", "cnpj_locked")
    );
    assert!(
        app.post(
            "/api/facility/edit",
            &app.admin,
            json!({"_id": f, "cnpj": unique_cnpj()}),
        )
        .await
        .expect_error(422, "validation_failed")
        .has_field_error("cnpj", "cnpj_locked")
    );
    // The same cnpj and other fields still go through.
    let same = app
        .post(
            "/api/facility/edit",
            &app.admin,
            json!({"_id": f, "cnpj": changed, "name": "Trava Nova"}),
        )
        .await
        .expect(200);
    assert_eq!(same["name"], "Trava Nova");
    // Archived equipment is history: the lock stays.
    app.post(
        "/api/facility/equipment/exclude",
        &app.admin,
        json!({"_id": eq}),
    )
    .await
    .expect(200);
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": f, "cnpj": unique_cnpj()}),
    )
    .await
    .expect_error(422, "validation_failed");
}

async fn openapi_describes_the_new_endpoints(app: TestApp) {
    let doc = app
        .call(Method::GET, "/api/openapi.json", None, None)
        .await
        .expect(200);
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

/// How many of the facility's due entries in `state` are for test type `tt`.
async fn due_count(app: &TestApp, facility: &str, tt: &str, state: &str) -> usize {
    let res = app
        .get(
            &format!("/api/tests/due?state={state}&facilityId={facility}"),
            &app.admin,
        )
        .await
        .expect(200);
    res["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["typeOfTest"]["_id"] == tt)
        .count()
}

/// The state-filtered lists read the kept latest test per pair: every change must reach them.
async fn due_lists_follow_new_edited_and_deleted_tests_and_period_changes(app: TestApp) {
    let facility = id(&app.create_facility(facility_payload("Prazos")).await);
    let eq = equipment(&app, &facility, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Linearidade", 30).await;
    assert_eq!(due_count(&app, &facility, &tt, "never_done").await, 1);
    assert_eq!(due_count(&app, &facility, &tt, "overdue").await, 0);
    let old = id(&record(&app, &eq, &tt, &days_ago(40)).await);
    assert_eq!(
        (
            due_count(&app, &facility, &tt, "overdue").await,
            due_count(&app, &facility, &tt, "never_done").await
        ),
        (1, 0)
    );
    let recent = id(&record(&app, &eq, &tt, &days_ago(5)).await);
    assert_eq!(
        (
            due_count(&app, &facility, &tt, "overdue").await,
            due_count(&app, &facility, &tt, "ok").await
        ),
        (0, 1)
    );
    app.post(&format!("/api/test/{recent}"), &app.admin, json!({}))
        .await
        .expect(200);
    assert_eq!(
        due_count(&app, &facility, &tt, "overdue").await,
        1,
        "deleting the latest test brings the older one back"
    );
    app.post(
        "/api/typeOfTest/edit",
        &app.admin,
        json!({"_id": tt, "expirationInDays": 60}),
    )
    .await
    .expect(200);
    assert_eq!(
        (
            due_count(&app, &facility, &tt, "overdue").await,
            due_count(&app, &facility, &tt, "ok").await
        ),
        (0, 1),
        "40 days ago + 60 days is 20 days ahead"
    );
    app.put(
        &format!("/api/test/{old}"),
        &app.admin,
        json!({"date": days_ago(50)}),
    )
    .await
    .expect(200);
    assert_eq!(
        (
            due_count(&app, &facility, &tt, "due_soon").await,
            due_count(&app, &facility, &tt, "ok").await
        ),
        (1, 0),
        "50 days ago + 60 days is 10 days ahead"
    );
    let due = app
        .get(
            &format!("/api/tests/due?state=due_soon,overdue&facilityId={facility}"),
            &app.admin,
        )
        .await
        .expect(200);
    assert_eq!(
        due["list"][0]["nextDue"],
        (today() + Days::new(10)).to_string()
    );
}
