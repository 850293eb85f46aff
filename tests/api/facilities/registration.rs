//! Registering facilities: reading them back in every list, idempotence, the roles that may, and
//! malformed requests and tokens.

use crate::helpers::{TestApp, facility_payload};
use crate::on_both_databases;
use reqwest::Method;
use serde_json::json;

on_both_databases!(
    register_then_read_in_every_list,
    children_keep_the_order_they_were_given,
    only_the_four_staff_roles_may_create_or_edit,
    registration_is_idempotent,
    malformed_requests_and_tokens
);

async fn register_then_read_in_every_list(app: TestApp) {
    let (rt, _) = app.user_with(&["Físico"], "Rita Tecnica").await;
    let mut payload = facility_payload("Clínica Nuclear Paulista");
    payload["users"] =
        json!([{"_id": rt, "responsabilities": ["Responsável Técnico", "Supervisor"]}]);
    // Quantities keep every digit a double holds, on both databases (SQLite's JSON functions
    // would write 15).
    let isotopes = json!([
        {"name": "Tc(99m)", "quantity": 1500.0}, {"name": "I(131)", "quantity": 200.5},
        {"name": "F(18)", "quantity": 0.30000000000000004},
        {"name": "Lu(177)", "quantity": 12.345678901234567}
    ]);
    payload["radioisotopes"] = isotopes.clone();
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
    assert_eq!(created["radioisotopes"], isotopes);
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

    let shown = app.admin_get(&format!("/api/facility/{id}")).await;
    assert_eq!(shown, created);
    for list in ["/api/facilities", "/api/nuclearmedicinefacilities"] {
        let page = app.admin_get(list).await;
        assert_eq!(page["list"][0]["_id"], id, "{list}");
        assert_eq!(page["list"][0]["radioisotopes"], isotopes, "{list}");
        assert_eq!(
            page["paging"],
            json!({"total": 1, "pageNum": 1, "pageSize": 20})
        );
    }
    let rd = app.admin_get("/api/radiodiagnosisfacilities").await;
    assert_eq!(rd["paging"]["total"], 0);

    // Every path answers with and without a trailing slash.
    let mut other = facility_payload("Raio X Recife");
    other["department"] = json!("Radiodiagnóstico");
    app.post_created("/api/facility/register", &app.admin, other)
        .await;
    for path in [
        "/api/facilities/",
        "/api/radiodiagnosisfacilities/",
        &format!("/api/facility/{id}/"),
    ] {
        app.admin_get(path).await;
    }
    assert_eq!(
        app.admin_get("/api/radiodiagnosisfacilities").await["paging"]["total"],
        1
    );
}

/// Users, addresses and radioisotopes come back in the order they were sent, whatever the order
/// of their keys in storage (user ids; isotope names, sent here in descending order): sent one
/// way, then users and addresses edited to the reverse.
async fn children_keep_the_order_they_were_given(app: TestApp) {
    let mut users = Vec::new();
    for name in ["Ana Primeira", "Bruno Segundo", "Carla Terceira"] {
        users.push(app.user_with(&["Físico"], name).await.0);
    }
    let isotopes = json!([
        {"name": "Tc(99m)", "quantity": 1.5}, {"name": "F(18)", "quantity": 2.5},
        {"name": "I(131)", "quantity": 3.5}
    ]);
    let addresses = json!([
        {"street": "Rua B", "city": "Santos", "state": "SP"},
        {"street": "Rua A", "city": "Campinas", "state": "SP"}
    ]);
    let mut payload = facility_payload("Clínica da Ordem");
    let roles = ["Supervisor", "Substituto", "Responsável Técnico"];
    payload["users"] = users
        .iter()
        .zip(roles)
        .map(|(u, role)| json!({"_id": u, "responsabilities": [role]}))
        .collect();
    payload["radioisotopes"] = isotopes.clone();
    payload["address"] = addresses.clone();
    let created = app.create_facility(payload.clone()).await;
    let id = created["_id"].as_str().unwrap().to_owned();
    let user_ids = |f: &serde_json::Value| -> Vec<String> {
        let list = f["users"].as_array().unwrap();
        list.iter()
            .map(|u| u["_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let reversed = |v: &serde_json::Value| {
        let mut list = v.as_array().unwrap().clone();
        list.reverse();
        serde_json::Value::Array(list)
    };
    let mut expected_users = users.clone();
    let mut addresses = addresses;
    for round in 0..2 {
        if round == 1 {
            // Radioisotopes are a set: the same ones reordered are no change (decisions.md),
            // so only the users and addresses are sent reversed.
            expected_users.reverse();
            addresses = reversed(&addresses);
            let edit = json!({
                "_id": id,
                "users": reversed(&payload["users"]),
                "address": addresses,
            });
            app.admin_post("/api/facility/edit/", edit).await;
        }
        let shown = app.admin_get(&format!("/api/facility/{id}")).await;
        let page = app.admin_get("/api/facilities").await;
        for facility in [&shown, &page["list"][0]] {
            assert_eq!(user_ids(facility), expected_users, "round {round}");
            assert_eq!(facility["radioisotopes"], isotopes, "round {round}");
            assert_eq!(facility["address"].as_array().unwrap().len(), 2);
            for (got, sent) in facility["address"]
                .as_array()
                .unwrap()
                .iter()
                .zip(addresses.as_array().unwrap())
            {
                assert_eq!(got["street"], sent["street"], "round {round}");
            }
        }
    }
}

async fn only_the_four_staff_roles_may_create_or_edit(app: TestApp) {
    let f = app.create_facility(facility_payload("Base")).await;
    let id = f["_id"].as_str().unwrap();
    for role in ["Laudos", "Físico", "Admin", "Administrator"] {
        let (_, token) = app.user_with(&[role], &format!("Staff {role}")).await;
        let created = app
            .post_created(
                "/api/facility/register/",
                &token,
                facility_payload(&format!("By {role}")),
            )
            .await;
        app.post_ok(
            "/api/facility/edit",
            &token,
            json!({"_id": created["_id"], "CNENregistry": role}),
        )
        .await;
        app.put_ok(
            &format!("/api/facility/{id}/edit"),
            &token,
            json!({"CNENregistry": role}),
        )
        .await;
        app.post_ok(
            "/api/facility/users/edit",
            &token,
            json!({"_id": id, "users": []}),
        )
        .await;
    }
    let (client, token) = app.user_with(&["Cliente"], "Cli Ente").await;
    app.admin_post(
        "/api/facility/users/edit",
        json!({"_id": id, "users": [{"_id": client, "responsabilities": ["Titular"]}]}),
    )
    .await;
    // Denied even for a facility the client is linked to, and before any validation.
    for (path, body) in [
        ("/api/facility/register/", facility_payload("Nope")),
        ("/api/facility/register/", json!({})),
        ("/api/facility/edit", json!({"_id": id, "name": "Hijack"})),
        ("/api/facility/users/edit", json!({"_id": id, "users": []})),
        ("/api/facility/exclude", json!({"_id": id})),
    ] {
        app.assert_post_denied(path, &token, body).await;
    }
    let edit_path = format!("/api/facility/{id}/edit");
    app.assert_put_denied(&edit_path, &token, json!({"name": "Hijack"}))
        .await;
    app.get(&format!("/api/facility/{id}/history"), &token)
        .await
        .expect_error(403, "permission_denied");
    assert_ne!(
        app.get_ok(&format!("/api/facility/{id}"), &token).await["name"],
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
    app.admin_post_id("/api/facility/exclude", &first["_id"])
        .await;
    let third = app.create_facility(payload).await;
    assert_ne!(third["_id"], first["_id"]);
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
    // A compressed body is refused, not read as if it were plain.
    let res = app
        .client
        .post(app.url("/api/facility/register/"))
        .bearer_auth(&app.admin)
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .body(facility_payload("Comprimida").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "bad_request");
    assert!(body["message"].as_str().unwrap().contains("gzip"), "{body}");
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
    app.assert_unauthorized("/api/facilities", "not-a-jwt")
        .await;
    let mut forged = app.admin.clone();
    forged.pop();
    forged.push(if app.admin.ends_with('A') { 'B' } else { 'A' });
    app.assert_unauthorized("/api/facilities", &forged).await;
    app.assert_not_found("/api/no-such-endpoint", &app.admin)
        .await;
}
