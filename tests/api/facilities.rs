use crate::helpers::{TestApp, facility_payload, history_actions, unique_cnpj};
use crate::on_both_databases;
use reqwest::Method;
use serde_json::json;

on_both_databases!(
    register_then_read_in_every_list,
    spec_section_7_rejections_on_create,
    spec_section_7_rejections_on_edit,
    only_the_four_staff_roles_may_create_or_edit,
    registration_is_idempotent,
    both_edit_forms_apply_partial_changes,
    main_role_holders_are_replaced_on_edit,
    users_edit_replaces_links_with_the_same_rules,
    if_match_guards_against_lost_updates,
    archive_hides_and_history_keeps,
    list_envelope_paging_and_filters,
    clients_see_only_their_facilities,
    malformed_requests_and_tokens,
);

async fn register_then_read_in_every_list(app: TestApp) {
    let (rt, _) = app.user_with(&["Físico"], "Rita Tecnica").await;
    let mut payload = facility_payload("Clínica Nuclear Paulista");
    payload["users"] =
        json!([{"_id": rt, "responsabilities": ["Responsável Técnico", "Supervisor"]}]);
    let res = app
        .post("/api/facility/register/", &app.admin, payload.clone())
        .await;
    assert_eq!(res.headers["etag"], "W/\"1\"");
    let created = res.expect(201);
    let id = created["_id"].as_str().unwrap();
    assert_eq!(created["cnpj"], payload["cnpj"]);
    assert_eq!(created["companyName"], payload["companyName"]);
    assert_eq!(created["CNENregistry"], "CNEN-12345");
    assert_eq!(created["department"], "Medicina Nuclear");
    assert_eq!(
        created["radioisotopes"],
        json!([{"name": "Tc(99m)", "quantity": 1500.0}, {"name": "I(131)", "quantity": 200.5}])
    );
    assert_eq!(
        created["practices"],
        json!(["Terapia Ambulatorial", "Diagnóstico"])
    );
    assert_eq!(
        created["users"][0]["responsabilities"],
        json!(["Responsável Técnico", "Supervisor"])
    );
    assert_eq!(created["users"][0]["name"], "Rita Tecnica");
    assert_eq!(created["users"][0]["ANLicenseNumber"], "AN-Rita Tecnica");
    assert_eq!(created["version"], 1);
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));

    let shown = app
        .get(&format!("/api/facility/{id}"), &app.admin)
        .await
        .expect(200);
    assert_eq!(shown, created);
    for list in ["/api/facilities", "/api/nuclearmedicinefacilities"] {
        let page = app.get(list, &app.admin).await.expect(200);
        assert_eq!(page["list"][0]["_id"], id, "{list}");
        assert_eq!(
            page["paging"],
            json!({"total": 1, "pageNum": 1, "pageSize": 20})
        );
    }
    let rd = app
        .get("/api/radiodiagnosisfacilities", &app.admin)
        .await
        .expect(200);
    assert_eq!(rd["paging"]["total"], 0);

    // Every path answers with and without a trailing slash.
    let mut other = facility_payload("Raio X Recife");
    other["department"] = json!("Radiodiagnóstico");
    app.post("/api/facility/register", &app.admin, other)
        .await
        .expect(201);
    for path in [
        "/api/facilities/",
        "/api/radiodiagnosisfacilities/",
        &format!("/api/facility/{id}/"),
    ] {
        app.get(path, &app.admin).await.expect(200);
    }
    assert_eq!(
        app.get("/api/radiodiagnosisfacilities", &app.admin)
            .await
            .expect(200)["paging"]["total"],
        1
    );
}

async fn spec_section_7_rejections_on_create(app: TestApp) {
    let create = |body| app.post("/api/facility/register/", &app.admin, body);
    // Required fields, all reported at once.
    let res = create(json!({}))
        .await
        .expect_error(422, "validation_failed");
    for field in [
        "name",
        "companyName",
        "cnpj",
        "telephone",
        "department",
        "address",
    ] {
        assert!(
            res.has_field_error(field, "required"),
            "{field}: {}",
            res.body
        );
    }
    let mut p = facility_payload("X");
    p["address"] = json!([{"street": "Rua 1", "city": "", "state": "SP"}]);
    p["name"] = json!("  ");
    let res = create(p).await.expect_error(422, "validation_failed");
    assert_eq!(
        res.field_errors(),
        vec![
            ("name".to_owned(), "required".to_owned()),
            ("address[0].city".to_owned(), "required".to_owned())
        ]
    );

    // Invalid cnpj: punctuation (with the bare form in the message), check digits, all-identical.
    let mut p = facility_payload("X");
    p["cnpj"] = json!("11.222.333/0001-81");
    let res = create(p.clone())
        .await
        .expect_error(422, "validation_failed");
    assert!(res.has_field_error("cnpj", "invalid_cnpj"));
    assert!(
        res.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("11222333000181")
    );
    for bad in ["11222333000182", "00000000000000", "A1B2C3D41A2B99", "123"] {
        p["cnpj"] = json!(bad);
        assert!(
            create(p.clone())
                .await
                .expect_error(422, "validation_failed")
                .has_field_error("cnpj", "invalid_cnpj"),
            "{bad}"
        );
    }
    p["cnpj"] = json!("12ABC34501DE35");
    app.post("/api/facility/register/", &app.admin, p)
        .await
        .expect(201);

    // Users must exist and be active.
    let (inactive, _) = app.user_with(&["Cliente"], "Ina Tiva").await;
    app.post("/api/exclude/", &app.admin, json!({"_id": inactive}))
        .await
        .expect(200);
    let mut p = facility_payload("X");
    p["users"] = json!([{"_id": "no-such-user", "responsabilities": ["Titular"]}, {"_id": inactive, "responsabilities": []}]);
    let res = create(p).await.expect_error(422, "validation_failed");
    assert!(res.has_field_error("users[0]._id", "user_not_found"));
    assert!(res.has_field_error("users[1]._id", "user_inactive"));

    // Radioisotope quantities: positive, dot decimal, nothing else.
    for bad in [
        json!("12,5"),
        json!(0),
        json!(-3),
        json!("abc"),
        json!("1.5 mCi"),
        json!(true),
    ] {
        let mut p = facility_payload("X");
        p["radioisotopes"] = json!([{"name": "F(18)", "quantity": bad}]);
        let res = create(p).await.expect_error(422, "validation_failed");
        assert!(
            res.has_field_error("radioisotopes[0].quantity", "invalid_quantity"),
            "{bad}: {}",
            res.body
        );
    }
    let mut p = facility_payload("X");
    p["radioisotopes"] = json!([{"name": "Tc-99m", "quantity": 1}, {"name": "F(18)", "quantity": 1}, {"name": "F(18)", "quantity": 2}]);
    p["practices"] = json!(["Cirurgia"]);
    p["department"] = json!("Cardiologia");
    p["telephone"] = json!("3456-7890");
    p["users"] = json!([{"_id": "x", "responsabilities": ["Chefe"]}]);
    p["group"] = json!("no-such-group");
    let res = create(p).await.expect_error(422, "validation_failed");
    for (field, code) in [
        ("radioisotopes[0].name", "invalid_radioisotope"),
        ("radioisotopes[2].name", "duplicate_radioisotope"),
        ("practices[0]", "invalid_practice"),
        ("department", "invalid_department"),
        ("telephone", "invalid_telephone"),
        ("users[0].responsabilities[0]", "invalid_responsibility"),
        ("users[0]._id", "user_not_found"),
        ("group", "group_not_found"),
    ] {
        assert!(
            res.has_field_error(field, code),
            "{field} {code}: {}",
            res.body
        );
    }

    // Two holders of one main role on create.
    let (a, _) = app.user_with(&["Físico"], "Ana").await;
    let (b, _) = app.user_with(&["Físico"], "Bia").await;
    let mut p = facility_payload("X");
    p["users"] = json!([{"_id": a, "responsabilities": ["Titular"]}, {"_id": b, "responsabilities": ["Titular"]}]);
    assert!(
        create(p)
            .await
            .expect_error(422, "validation_failed")
            .has_field_error("users[1].responsabilities[0]", "duplicate_role")
    );

    // Nothing was stored by the refused requests.
    assert_eq!(
        app.get("/api/facilities", &app.admin).await.expect(200)["paging"]["total"],
        1
    );
}

async fn spec_section_7_rejections_on_edit(app: TestApp) {
    let f = app.create_facility(facility_payload("Editável")).await;
    let id = f["_id"].as_str().unwrap();
    let (inactive, _) = app.user_with(&["Cliente"], "Ex User").await;
    app.post("/api/exclude/", &app.admin, json!({"_id": inactive}))
        .await
        .expect(200);
    let cases = [
        (json!({"name": ""}), "name", "required"),
        (json!({"companyName": null}), "companyName", "required"),
        (
            json!({"telephone": "123"}),
            "telephone",
            "invalid_telephone",
        ),
        (json!({"address": []}), "address", "required"),
        (
            json!({"address": [{"street": "R", "city": "C"}]}),
            "address[0].state",
            "required",
        ),
        (
            json!({"cnpj": "11.222.333/0001-81"}),
            "cnpj",
            "invalid_cnpj",
        ),
        (
            json!({"users": [{"_id": "ghost", "responsabilities": []}]}),
            "users[0]._id",
            "user_not_found",
        ),
        (
            json!({"users": [{"_id": inactive, "responsabilities": []}]}),
            "users[0]._id",
            "user_inactive",
        ),
        (
            json!({"radioisotopes": [{"name": "I(131)", "quantity": "7,4"}]}),
            "radioisotopes[0].quantity",
            "invalid_quantity",
        ),
    ];
    for (mut body, field, code) in cases {
        body["_id"] = json!(id);
        let res = app
            .post("/api/facility/edit", &app.admin, body.clone())
            .await
            .expect_error(422, "validation_failed");
        assert!(res.has_field_error(field, code), "{body}: {}", res.body);
        let res = app
            .put(
                &format!("/api/facility/{id}/edit"),
                &app.admin,
                body.clone(),
            )
            .await
            .expect_error(422, "validation_failed");
        assert!(res.has_field_error(field, code), "PUT {body}: {}", res.body);
    }
    // Nothing changed.
    let after = app
        .get(&format!("/api/facility/{id}"), &app.admin)
        .await
        .expect(200);
    assert_eq!(after, f);
    // _id is required on the POST form, must match the path on the PUT form, and must exist.
    assert!(
        app.post("/api/facility/edit", &app.admin, json!({"name": "N"}))
            .await
            .expect_error(422, "validation_failed")
            .has_field_error("_id", "required")
    );
    app.put(
        &format!("/api/facility/{id}/edit"),
        &app.admin,
        json!({"_id": "other", "name": "N"}),
    )
    .await
    .expect_error(422, "validation_failed");
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": "missing", "name": "N"}),
    )
    .await
    .expect_error(404, "not_found");
    // Without linked records the cnpj may change.
    let new_cnpj = unique_cnpj();
    let edited = app
        .post(
            "/api/facility/edit",
            &app.admin,
            json!({"_id": id, "cnpj": new_cnpj}),
        )
        .await
        .expect(200);
    assert_eq!(edited["cnpj"], new_cnpj);
}

async fn only_the_four_staff_roles_may_create_or_edit(app: TestApp) {
    let f = app.create_facility(facility_payload("Base")).await;
    let id = f["_id"].as_str().unwrap();
    for role in ["Laudos", "Físico", "Admin", "Administrator"] {
        let (_, token) = app.user_with(&[role], &format!("Staff {role}")).await;
        let created = app
            .post(
                "/api/facility/register/",
                &token,
                facility_payload(&format!("By {role}")),
            )
            .await
            .expect(201);
        app.post(
            "/api/facility/edit",
            &token,
            json!({"_id": created["_id"], "CNENregistry": role}),
        )
        .await
        .expect(200);
        app.put(
            &format!("/api/facility/{id}/edit"),
            &token,
            json!({"CNENregistry": role}),
        )
        .await
        .expect(200);
        app.post(
            "/api/facility/users/edit",
            &token,
            json!({"_id": id, "users": []}),
        )
        .await
        .expect(200);
    }
    let (client, token) = app.user_with(&["Cliente"], "Cli Ente").await;
    app.post(
        "/api/facility/users/edit",
        &app.admin,
        json!({"_id": id, "users": [{"_id": client, "responsabilities": ["Titular"]}]}),
    )
    .await
    .expect(200);
    // Denied even for a facility the client is linked to, and before any validation.
    app.post("/api/facility/register/", &token, facility_payload("Nope"))
        .await
        .expect_error(403, "permission_denied");
    app.post("/api/facility/register/", &token, json!({}))
        .await
        .expect_error(403, "permission_denied");
    app.post(
        "/api/facility/edit",
        &token,
        json!({"_id": id, "name": "Hijack"}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.put(
        &format!("/api/facility/{id}/edit"),
        &token,
        json!({"name": "Hijack"}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post(
        "/api/facility/users/edit",
        &token,
        json!({"_id": id, "users": []}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post("/api/facility/exclude", &token, json!({"_id": id}))
        .await
        .expect_error(403, "permission_denied");
    app.get(&format!("/api/facility/{id}/history"), &token)
        .await
        .expect_error(403, "permission_denied");
    assert_ne!(
        app.get(&format!("/api/facility/{id}"), &token)
            .await
            .expect(200)["name"],
        "Hijack"
    );
}

async fn registration_is_idempotent(app: TestApp) {
    let payload = facility_payload("Idempotente");
    let first = app.create_facility(payload.clone()).await;
    let again = app
        .post("/api/facility/register/", &app.admin, payload.clone())
        .await
        .expect_error(409, "duplicate_facility");
    assert_eq!(again.body["_id"], first["_id"]);
    // Same cnpj in the other department is another facility.
    let mut rd = payload.clone();
    rd["department"] = json!("Radiodiagnóstico");
    let second = app.create_facility(rd).await;
    // An edit may not move a facility onto a live duplicate either.
    let res = app
        .post(
            "/api/facility/edit",
            &app.admin,
            json!({"_id": second["_id"], "department": "Medicina Nuclear"}),
        )
        .await;
    assert_eq!(
        res.expect_error(409, "duplicate_facility").body["_id"],
        first["_id"]
    );
    // Once archived, the cnpj can be registered again.
    app.post(
        "/api/facility/exclude",
        &app.admin,
        json!({"_id": first["_id"]}),
    )
    .await
    .expect(200);
    let third = app.create_facility(payload).await;
    assert_ne!(third["_id"], first["_id"]);
}

async fn both_edit_forms_apply_partial_changes(app: TestApp) {
    let f = app.create_facility(facility_payload("Parcial")).await;
    let id = f["_id"].as_str().unwrap();
    let res = app
        .put(
            &format!("/api/facility/{id}/edit"),
            &app.admin,
            json!({"_id": id, "telephone": "(21) 99999-8888"}),
        )
        .await;
    assert_eq!(res.headers["etag"], "W/\"2\"");
    let edited = res.expect(200);
    assert_eq!(edited["telephone"], "(21) 99999-8888");
    for key in [
        "name",
        "companyName",
        "cnpj",
        "address",
        "radioisotopes",
        "practices",
        "CNENregistry",
        "department",
    ] {
        assert_eq!(edited[key], f[key], "{key} must be unchanged");
    }
    assert_eq!(edited["version"], 2);
    let edited = app
        .post(
            "/api/facility/edit/",
            &app.admin,
            json!({"_id": id, "name": "Parcial 2", "radioisotopes": [{"name": "Lu(177)", "quantity": 0.75}], "practices": [], "CNENregistry": null, "address": {"street": "Rua Nova, 5", "city": "Campinas", "state": "SP", "zipCode": "13000-000"}}),
        )
        .await
        .expect(200);
    assert_eq!(edited["name"], "Parcial 2");
    assert_eq!(
        edited["radioisotopes"],
        json!([{"name": "Lu(177)", "quantity": 0.75}])
    );
    assert_eq!(edited["practices"], json!([]));
    assert_eq!(edited["CNENregistry"], json!(null));
    assert_eq!(
        edited["address"],
        json!([{"street": "Rua Nova, 5", "city": "Campinas", "state": "SP", "zipCode": "13000-000"}])
    );
    assert_eq!(edited["telephone"], "(21) 99999-8888");
    assert_eq!(edited["version"], 3);
    // Changes take effect immediately, and an edit that changes nothing does not bump the version.
    assert_eq!(
        app.get(&format!("/api/facility/{id}"), &app.admin)
            .await
            .expect(200),
        edited
    );
    let same = app
        .post(
            "/api/facility/edit",
            &app.admin,
            json!({"_id": id, "name": "Parcial 2"}),
        )
        .await
        .expect(200);
    assert_eq!(same["version"], 3);
}

async fn main_role_holders_are_replaced_on_edit(app: TestApp) {
    let (old_rt, _) = app.user_with(&["Físico"], "Old RT").await;
    let (titular, _) = app.user_with(&["Cliente"], "Tito Titular").await;
    let (new_rt, _) = app.user_with(&["Físico"], "New RT").await;
    let (a, _) = app.user_with(&["Físico"], "Subs A").await;
    let (b, _) = app.user_with(&["Físico"], "Subs B").await;
    let mut p = facility_payload("Papéis");
    p["users"] = json!([
        {"_id": old_rt, "responsabilities": ["Responsável Técnico", "Supervisor"]},
        {"_id": titular, "responsabilities": ["Titular"]}
    ]);
    let f = app.create_facility(p).await;
    let id = f["_id"].as_str().unwrap();
    // The client sends the whole list, the old RT still marked: the new RT replaces them, and the
    // old RT keeps being Supervisor.
    let body = json!({"_id": id, "users": [
        {"_id": old_rt, "responsabilities": ["Responsável Técnico", "Supervisor"]},
        {"_id": titular, "responsabilities": ["Titular"]},
        {"_id": new_rt, "responsabilities": ["Responsável Técnico"]}
    ]});
    let edited = app
        .put(&format!("/api/facility/{id}/edit"), &app.admin, body)
        .await
        .expect(200);
    let roles: Vec<(String, serde_json::Value)> = edited["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["_id"].as_str().unwrap().to_owned(),
                u["responsabilities"].clone(),
            )
        })
        .collect();
    assert_eq!(
        roles,
        vec![
            (old_rt.clone(), json!(["Supervisor"])),
            (titular.clone(), json!(["Titular"])),
            (new_rt.clone(), json!(["Responsável Técnico"]))
        ]
    );
    // The change is in the history, with the role change for the regulator.
    let history = app
        .get(&format!("/api/facility/{id}/history"), &app.admin)
        .await
        .expect(200);
    assert_eq!(history["list"][0]["action"], "edit");
    assert_eq!(
        history["list"][0]["roleChanges"],
        json!([{"role": "Responsável Técnico", "from": old_rt, "to": new_rt}])
    );
    // Two new holders of one role at once are refused.
    let body = json!({"_id": id, "users": [
        {"_id": a, "responsabilities": ["Substituto"]},
        {"_id": b, "responsabilities": ["Substituto"]}
    ]});
    let res = app
        .post("/api/facility/edit", &app.admin, body)
        .await
        .expect_error(422, "validation_failed");
    assert!(res.has_field_error("users[1].responsabilities[0]", "duplicate_role"));
}

async fn users_edit_replaces_links_with_the_same_rules(app: TestApp) {
    let (sup, _) = app.user_with(&["Físico"], "Sup Old").await;
    let (sup2, _) = app.user_with(&["Físico"], "Sup New").await;
    let mut p = facility_payload("Vínculos");
    p["users"] = json!([{"_id": sup, "responsabilities": ["Supervisor"]}]);
    let f = app.create_facility(p).await;
    let id = f["_id"].as_str().unwrap();
    let body = json!({"_id": id, "users": [{"_id": sup, "responsabilities": ["Supervisor"]}, {"_id": sup2, "responsabilities": ["Supervisor"]}]});
    let edited = app
        .post("/api/facility/users/edit/", &app.admin, body)
        .await
        .expect(200);
    assert_eq!(edited["users"][0]["responsabilities"], json!([]));
    assert_eq!(
        edited["users"][1]["responsabilities"],
        json!(["Supervisor"])
    );
    assert_eq!(edited["name"], f["name"]);
    // The user list is required, and referenced users must exist.
    assert!(
        app.post("/api/facility/users/edit", &app.admin, json!({"_id": id}))
            .await
            .expect_error(422, "validation_failed")
            .has_field_error("users", "required")
    );
    let res = app
        .post(
            "/api/facility/users/edit",
            &app.admin,
            json!({"_id": id, "users": [{"_id": "nobody"}]}),
        )
        .await;
    assert!(
        res.expect_error(422, "validation_failed")
            .has_field_error("users[0]._id", "user_not_found")
    );
    // The user's facilities list the link.
    let mine = app
        .get(&format!("/api/user/{sup2}/facilities"), &app.admin)
        .await
        .expect(200);
    assert_eq!(mine["list"][0]["_id"], id);
    // An empty list unlinks everyone.
    let emptied = app
        .post(
            "/api/facility/users/edit",
            &app.admin,
            json!({"_id": id, "users": []}),
        )
        .await
        .expect(200);
    assert_eq!(emptied["users"], json!([]));
}

async fn if_match_guards_against_lost_updates(app: TestApp) {
    let f = app.create_facility(facility_payload("Versões")).await;
    let id = f["_id"].as_str().unwrap();
    let res = app.get(&format!("/api/facility/{id}"), &app.admin).await;
    let etag = res.headers["etag"].to_str().unwrap().to_owned();
    assert_eq!(etag, "W/\"1\"");
    let put = |tag: &'static str| {
        app.client
            .put(app.url(&format!("/api/facility/{id}/edit")))
            .bearer_auth(&app.admin)
            .header("If-Match", tag)
            .json(&json!({"name": format!("With {tag}")}))
            .send()
    };
    assert_eq!(put("W/\"1\"").await.unwrap().status(), 200);
    let stale = put("W/\"1\"").await.unwrap();
    assert_eq!(stale.status(), 412);
    assert_eq!(
        stale.json::<serde_json::Value>().await.unwrap()["code"],
        "version_mismatch"
    );
    assert_eq!(put("\"2\"").await.unwrap().status(), 200);
    assert_eq!(put("*").await.unwrap().status(), 200);
}

async fn archive_hides_and_history_keeps(app: TestApp) {
    let f = app.create_facility(facility_payload("Arquivável")).await;
    let id = f["_id"].as_str().unwrap();
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": id, "name": "Arquivável 2"}),
    )
    .await
    .expect(200);
    let res = app
        .post("/api/facility/exclude/", &app.admin, json!({"_id": id}))
        .await
        .expect(200);
    assert_eq!(res["_id"], id);
    app.get(&format!("/api/facility/{id}"), &app.admin)
        .await
        .expect_error(404, "not_found");
    assert_eq!(
        app.get("/api/facilities", &app.admin).await.expect(200)["paging"]["total"],
        0
    );
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": id, "name": "Ghost"}),
    )
    .await
    .expect_error(404, "not_found");
    app.post("/api/facility/exclude", &app.admin, json!({"_id": id}))
        .await
        .expect_error(404, "not_found");
    let history = app
        .get(&format!("/api/facility/{id}/history"), &app.admin)
        .await
        .expect(200);
    assert_eq!(history_actions(&history), ["archive", "edit", "create"]);
    assert_eq!(history["list"][1]["before"]["name"], "Arquivável");
    assert_eq!(history["list"][1]["after"]["name"], "Arquivável 2");
    assert_eq!(history["list"][1]["actor"]["name"], "Administrator");
}

async fn list_envelope_paging_and_filters(app: TestApp) {
    let (u, _) = app.user_with(&["Físico"], "Filtro User").await;
    let group = app
        .post(
            "/api/group/register",
            &app.admin,
            json!({"name": "Rede Sul"}),
        )
        .await
        .expect(201);
    let mut ids = Vec::new();
    for i in 0..25 {
        let mut p = facility_payload(&format!("Unidade {i:02}"));
        if i % 5 == 0 {
            p["address"] = json!([{"street": "Rua do Sol", "city": "Porto Alegre", "state": "RS"}]);
            p["group"] = json!(group["_id"]);
            p["radioisotopes"] = json!([{"name": "Y(90)", "quantity": 3}]);
            p["practices"] = json!(["Terapia com Internação"]);
            p["users"] = json!([{"_id": u, "responsabilities": ["Titular"]}]);
        }
        if i == 7 {
            p["department"] = json!("Radiodiagnóstico");
        }
        ids.push(
            app.create_facility(p).await["_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let page1 = app.get("/api/facilities", &app.admin).await.expect(200);
    assert_eq!(
        page1["paging"],
        json!({"total": 25, "pageNum": 1, "pageSize": 20})
    );
    assert_eq!(page1["list"].as_array().unwrap().len(), 20);
    assert_eq!(page1["list"][0]["_id"], ids[24], "newest first");
    let filters =
        |f: serde_json::Value| format!("/api/facilities?filters={}", urlencode(&f.to_string()));
    let page2 = app
        .get(&filters(json!({"pageNum": 2, "pageSize": 10})), &app.admin)
        .await
        .expect(200);
    assert_eq!(
        page2["paging"],
        json!({"total": 25, "pageNum": 2, "pageSize": 10})
    );
    assert_eq!(page2["list"][0]["_id"], ids[14]);
    let plain = app
        .get("/api/facilities?pageNum=3&limit=10", &app.admin)
        .await
        .expect(200);
    assert_eq!(plain["list"].as_array().unwrap().len(), 5);
    assert_eq!(plain["paging"]["pageSize"], 10);
    let capped = app
        .get("/api/facilities?pageSize=5000", &app.admin)
        .await
        .expect(200);
    assert_eq!(capped["paging"]["pageSize"], 200);
    let total = |v: serde_json::Value| v["paging"]["total"].as_i64().unwrap();
    assert_eq!(
        total(
            app.get(&filters(json!({"q": "porto alegre"})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"q": "unidade 1"})), &app.admin)
                .await
                .expect(200)
        ),
        10
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"q": ids[3].as_str()})), &app.admin)
                .await
                .expect(200)
        ),
        0
    );
    assert_eq!(
        total(
            app.get("/api/facilities?q=SAO%20PAULO", &app.admin)
                .await
                .expect(200)
        ),
        20
    );
    assert_eq!(
        total(
            app.get("/api/facilities?state=rs", &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get("/api/facilities?city=S%C3%A3o%20Paulo", &app.admin)
                .await
                .expect(200)
        ),
        20
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"group": group["_id"]})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"radioisotope": "Y(90)"})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(
                &filters(json!({"practice": "Terapia com Internação"})),
                &app.admin
            )
            .await
            .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"userId": u})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(
                &filters(json!({"q": "unidade 0"}))
                    .replace("/api/facilities", "/api/radiodiagnosisfacilities"),
                &app.admin
            )
            .await
            .expect(200)
        ),
        1
    );
    assert_eq!(
        total(
            app.get(
                "/api/nuclearmedicinefacilities?state=RS&radioisotope=Y(90)",
                &app.admin
            )
            .await
            .expect(200)
        ),
        5
    );
    // A search term with LIKE wildcards matches literally.
    assert_eq!(
        total(
            app.get("/api/facilities?q=%25", &app.admin)
                .await
                .expect(200)
        ),
        0
    );
    app.get("/api/facilities?filters=%7Bnot-json", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/facilities?pageNum=zero", &app.admin)
        .await
        .expect_error(400, "bad_request");

    // Walking every page (deep pages are read from the other end) gives the newest-first order.
    let mut walked = Vec::new();
    for page in 1..=8 {
        let res = app
            .get(
                &format!("/api/facilities?pageNum={page}&pageSize=4"),
                &app.admin,
            )
            .await
            .expect(200);
        assert_eq!(res["paging"]["total"], 25);
        walked.extend(
            res["list"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["_id"].as_str().unwrap().to_owned()),
        );
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(walked, newest_first);
    // The search index follows renames.
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": ids[24], "name": "Hospital Zeta", "companyName": "Zeta Ltda"}),
    )
    .await
    .expect(200);
    assert_eq!(
        total(
            app.get("/api/facilities?q=zeta", &app.admin)
                .await
                .expect(200)
        ),
        1
    );
    assert_eq!(
        total(
            app.get("/api/facilities?q=unidade%2024", &app.admin)
                .await
                .expect(200)
        ),
        0
    );
    // Totals follow archives and department moves.
    app.post("/api/facility/exclude", &app.admin, json!({"_id": ids[0]}))
        .await
        .expect(200);
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": ids[1], "department": "Radiodiagnóstico"}),
    )
    .await
    .expect(200);
    assert_eq!(
        total(app.get("/api/facilities", &app.admin).await.expect(200)),
        24
    );
    assert_eq!(
        total(
            app.get("/api/nuclearmedicinefacilities", &app.admin)
                .await
                .expect(200)
        ),
        22
    );
    assert_eq!(
        total(
            app.get("/api/radiodiagnosisfacilities", &app.admin)
                .await
                .expect(200)
        ),
        2
    );
    assert_eq!(
        total(
            app.get(
                "/api/facilities?department=Radiodiagn%C3%B3stico",
                &app.admin
            )
            .await
            .expect(200)
        ),
        2
    );
}

pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn clients_see_only_their_facilities(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Cli Linked").await;
    let mut mine = facility_payload("Minha");
    mine["users"] = json!([{"_id": client, "responsabilities": ["Titular"]}]);
    let mine = app.create_facility(mine).await;
    let other = app.create_facility(facility_payload("Alheia")).await;
    let list = app.get("/api/facilities", &token).await.expect(200);
    assert_eq!(list["paging"]["total"], 1);
    assert_eq!(list["list"][0]["_id"], mine["_id"]);
    app.get(
        &format!("/api/facility/{}", mine["_id"].as_str().unwrap()),
        &token,
    )
    .await
    .expect(200);
    app.get(
        &format!("/api/facility/{}", other["_id"].as_str().unwrap()),
        &token,
    )
    .await
    .expect_error(404, "not_found");
    assert_eq!(
        app.get("/api/nuclearmedicinefacilities", &token)
            .await
            .expect(200)["paging"]["total"],
        1
    );
    assert_eq!(
        app.get(&format!("/api/user/{client}/facilities"), &token)
            .await
            .expect(200)["paging"]["total"],
        1
    );
}

async fn malformed_requests_and_tokens(app: TestApp) {
    let raw = |body: &'static str, content_type: &'static str| {
        app.client
            .post(app.url("/api/facility/register/"))
            .bearer_auth(&app.admin)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let res = raw("{\"name\": ", "application/json").await.unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(
        res.json::<serde_json::Value>().await.unwrap()["code"],
        "bad_request"
    );
    assert_eq!(
        raw("name=x", "application/x-www-form-urlencoded")
            .await
            .unwrap()
            .status(),
        400
    );
    let wrong_type = app
        .post("/api/facility/register/", &app.admin, json!([1, 2]))
        .await;
    wrong_type.expect_error(422, "validation_failed");
    // The server closes a connection whose body it refused, so this one goes on its own connection.
    let huge = "x".repeat(2 * 1024 * 1024);
    let res = reqwest::Client::new()
        .post(app.url("/api/facility/register/"))
        .bearer_auth(&app.admin)
        .json(&json!({ "name": huge }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    assert_eq!(
        res.json::<serde_json::Value>().await.unwrap()["code"],
        "payload_too_large"
    );
    // Missing, malformed and forged tokens.
    let res = app.call(Method::GET, "/api/facilities", None, None).await;
    assert_eq!(res.headers["www-authenticate"], "Bearer");
    res.expect_error(401, "unauthorized");
    app.get("/api/facilities", "not-a-jwt")
        .await
        .expect_error(401, "unauthorized");
    let mut forged = app.admin.clone();
    forged.pop();
    forged.push(if app.admin.ends_with('A') { 'B' } else { 'A' });
    app.get("/api/facilities", &forged)
        .await
        .expect_error(401, "unauthorized");
    app.get("/api/no-such-endpoint", &app.admin)
        .await
        .expect_error(404, "not_found");
}
