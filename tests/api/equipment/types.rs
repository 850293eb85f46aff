//! Equipment types and QC test types: the seeded ones, validation and guards.

use super::{DOSE_CALIBRATOR, GAMMA_CAMERA, days_ago, equipment, id, record, test_type};
use crate::helpers::{TestApp, facility_payload, list_strs};
use crate::on_both_databases;
use serde_json::{Value, json};

on_both_databases!(
    equipment_types_are_seeded_and_guarded,
    test_types_validate_and_are_guarded,
    a_test_type_must_belong_to_the_equipment_type,
    catalogues_list_newest_first
);

/// Groups, equipment types and test types list newest first (product.md §1), whatever their names.
async fn catalogues_list_newest_first(app: TestApp) {
    let register = async |path: &str, name: &str| {
        id(&app
            .post_created(
                &format!("{path}/register"),
                &app.admin,
                json!({"name": name}),
            )
            .await)
    };
    for path in ["/api/group", "/api/typeOfEquipment"] {
        for name in ["Bravo", "Alfa", "Charlie"] {
            register(path, name).await;
        }
        let list = app.admin_get(&format!("{path}?pageSize=3")).await;
        assert_eq!(
            list_strs(&list, "name"),
            ["Charlie", "Alfa", "Bravo"],
            "{path}"
        );
    }
    let kind = register("/api/typeOfEquipment", "Delta").await;
    for name in ["Uniformidade", "Centro de rotação", "Sensibilidade"] {
        test_type(&app, &kind, name, 30).await;
    }
    let list = app
        .admin_get(&format!("/api/typeOfTest?typeOfEquipment={kind}"))
        .await;
    assert_eq!(
        list_strs(&list, "name"),
        ["Sensibilidade", "Centro de rotação", "Uniformidade"]
    );
}

async fn equipment_types_are_seeded_and_guarded(app: TestApp) {
    let [client, laudos, admin_role] = app
        .role_tokens([("Cliente", "Cli"), ("Laudos", "Lau"), ("Admin", "Adm")])
        .await;
    let seeded = app.get_ok("/api/typeOfEquipment", &client).await;
    assert_eq!(seeded["paging"]["total"], 7);
    let mut names = list_strs(&seeded, "name");
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
        .get_ok(&format!("/api/typeOfEquipment/{GAMMA_CAMERA}/"), &client)
        .await;
    assert_eq!(shown["name"], "Gama Câmara");
    app.assert_not_found("/api/typeOfEquipment/nope", &client)
        .await;

    app.assert_post_denied(
        "/api/typeOfEquipment/register",
        &client,
        json!({"name": "Ultrassom"}),
    )
    .await;
    app.post(
        "/api/typeOfEquipment/register",
        &laudos,
        json!({"description": 3}),
    )
    .await
    .expect_field_error("name", "required");
    let created = app
        .post_created(
            "/api/typeOfEquipment/register/",
            &laudos,
            json!({"name": "Ultrassom", "description": "US"}),
        )
        .await;
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
        .post_ok(
            "/api/typeOfEquipment/edit",
            &admin_role,
            json!({"_id": us, "name": "Ultrassonógrafo"}),
        )
        .await;
    assert_eq!(edited["name"], "Ultrassonógrafo");
    assert_eq!(edited["description"], "US");
    app.assert_post_denied(
        "/api/typeOfEquipment/edit",
        &client,
        json!({"_id": us, "name": "X"}),
    )
    .await;

    // Delete: Administrator only, and not while a test type or equipment uses the type.
    let tt = test_type(&app, &us, "Uniformidade", 30).await;
    app.assert_exclude_guarded("/api/typeOfEquipment/exclude", &admin_role, &us)
        .await;
    app.admin_post_id("/api/typeOfTest/exclude", &tt).await;
    let f = app.create_facility(facility_payload("Tipos")).await;
    equipment(&app, &id(&f), &us).await;
    app.post_id("/api/typeOfEquipment/exclude", &app.admin, &us)
        .await
        .expect_error(409, "in_use");
    let unused = id(&app
        .post_created(
            "/api/typeOfEquipment/register",
            &laudos,
            json!({"name": "Densitômetro"}),
        )
        .await);
    app.admin_post_id("/api/typeOfEquipment/exclude/", &unused)
        .await;
    app.assert_not_found(&format!("/api/typeOfEquipment/{unused}"), &client)
        .await;
}

async fn test_types_validate_and_are_guarded(app: TestApp) {
    let [client, fisico] = app
        .role_tokens([("Cliente", "Cli"), ("Físico", "Fis")])
        .await;
    // The reference that names no record is reported with the other failing fields.
    // The last also beside the errors only the stored catalogue can tell (a kind's tolerances).
    type Refusal<'a> = (&'a str, Value, &'a [(&'a str, &'a str)]);
    let refused: [Refusal; 3] = [
        (
            "register",
            json!({"typeOfEquipment": "missing", "expirationInDays": -3}),
            &[
                ("name", "required"),
                ("expirationInDays", "invalid_value"),
                ("typeOfEquipment", "invalid_value"),
            ],
        ),
        (
            "edit",
            json!({"_id": "nope", "typeOfEquipment": "missing", "expirationInDays": 0}),
            &[
                ("expirationInDays", "invalid_value"),
                ("typeOfEquipment", "invalid_value"),
            ],
        ),
        (
            "register",
            json!({"name": "R", "typeOfEquipment": "missing", "expirationInDays": 30, "kind": "recorded"}),
            &[
                ("typeOfEquipment", "invalid_value"),
                ("tolerances.quantities", "required"),
            ],
        ),
    ];
    for (action, body, errors) in refused {
        app.post(&format!("/api/typeOfTest/{action}"), &fisico, body)
            .await
            .expect_field_errors(errors);
    }
    app.post(
        "/api/typeOfTest/register",
        &fisico,
        json!({"name": "Exatidão", "typeOfEquipment": "missing", "expirationInDays": 365}),
    )
    .await
    .expect_field_error("typeOfEquipment", "invalid_value");
    app.assert_post_denied(
        "/api/typeOfTest/register",
        &client,
        json!({"name": "Exatidão", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 365}),
    )
    .await;
    let created = app
        .post_created(
            "/api/typeOfTest/register",
            &fisico,
            json!({"name": "Exatidão", "typeOfEquipment": {"_id": DOSE_CALIBRATOR}, "expirationInDays": 365,
                   "description": "Co-57, Ba-133, Cs-137"}),
        )
        .await;
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
        .get_ok(
            &format!("/api/typeOfTest?typeOfEquipment={DOSE_CALIBRATOR}"),
            &client,
        )
        .await;
    assert_eq!(listed["paging"]["total"], 1);
    assert_eq!(listed["list"][0]["_id"], exactness.as_str());
    let edited = app
        .post_ok(
            "/api/typeOfTest/edit",
            &fisico,
            json!({"_id": exactness, "expirationInDays": 180}),
        )
        .await;
    assert_eq!(edited["expirationInDays"], 180);
    assert_eq!(edited["name"], "Exatidão");
    let shown = app
        .get_ok(&format!("/api/typeOfTest/{exactness}"), &client)
        .await;
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
    .expect_field_error("typeOfEquipment", "invalid_value");
    // With another field failing too, both are reported.
    app.post(
        "/api/typeOfTest/edit",
        &fisico,
        json!({"_id": exactness, "typeOfEquipment": GAMMA_CAMERA, "expirationInDays": 0}),
    )
    .await
    .expect_field_errors(&[
        ("typeOfEquipment", "invalid_value"),
        ("expirationInDays", "invalid_value"),
    ]);
    // One error a field: an equipment type that does not exist is named once.
    let refused = app
        .post(
            "/api/typeOfTest/edit",
            &fisico,
            json!({"_id": exactness, "typeOfEquipment": "no-such-type"}),
        )
        .await
        .expect_field_error("typeOfEquipment", "invalid_value");
    assert_eq!(
        refused.body["errors"].as_array().unwrap().len(),
        1,
        "{}",
        refused.body
    );
    app.assert_exclude_guarded("/api/typeOfTest/exclude", &fisico, &exactness)
        .await;
}

async fn a_test_type_must_belong_to_the_equipment_type(app: TestApp) {
    let f = id(&app.create_facility(facility_payload("Mista")).await);
    let calibrator = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let camera = equipment(&app, &f, GAMMA_CAMERA).await;
    let uniformity = test_type(&app, GAMMA_CAMERA, "Uniformidade", 7).await;
    let linearity = test_type(&app, DOSE_CALIBRATOR, "Linearidade", 90).await;
    app
        .post(
            "/api/test",
            &app.admin,
            json!({"equipment": calibrator, "typeOfTest": uniformity, "date": days_ago(1), "conclusion": "Satisfatório"}),
        )
        .await.expect_field_error("typeOfTest", "invalid_value");
    let ok = id(&record(&app, &camera, &uniformity, &days_ago(1)).await);
    // Moving the record onto equipment of another type is refused too.
    app.put(
        &format!("/api/test/{ok}"),
        &app.admin,
        json!({"equipment": calibrator}),
    )
    .await
    .expect_field_error("typeOfTest", "invalid_value");
    let moved = app
        .admin_put(
            &format!("/api/test/{ok}"),
            json!({"equipment": calibrator, "typeOfTest": linearity}),
        )
        .await;
    assert_eq!(moved["typeOfTest"]["_id"], linearity.as_str());
    // Equipment with tests keeps its type.
    app.post(
        "/api/facility/equipment/edit",
        &app.admin,
        json!({"_id": calibrator, "typeOfEquipment": GAMMA_CAMERA}),
    )
    .await
    .expect_field_error("typeOfEquipment", "invalid_value");
    let retyped = app
        .admin_post(
            "/api/facility/equipment/edit",
            json!({"_id": camera, "typeOfEquipment": DOSE_CALIBRATOR}),
        )
        .await;
    assert_eq!(retyped["typeOfEquipment"]["name"], "Calibrador de Doses");
}
