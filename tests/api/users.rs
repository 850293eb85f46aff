use crate::helpers::{Answer, PASSWORD, TestApp};
use crate::on_both_databases;
use serde_json::{Value, json};

on_both_databases!(
    user_reads_follow_the_permission_table,
    user_edits_follow_the_permission_table
);

async fn user_reads_follow_the_permission_table(app: TestApp) {
    let (client, client_token) = app.user_with(&["Cliente"], "Carla Cliente").await;
    let (other, _) = app.user_with(&["Cliente"], "Otto Other").await;
    for role in ["Administrator", "Admin", "Físico", "Laudos"] {
        let (_, token) = app.user_with(&[role], &format!("Reader {role}")).await;
        let list = app.get("/api/users?q=carla", &token).await.expect(200);
        assert_eq!(list["paging"]["total"], 1, "{role}");
        assert_eq!(list["list"][0]["_id"], client);
        app.get(&format!("/api/user/{client}"), &token)
            .await
            .expect(200);
        app.get(&format!("/api/user/{client}/facilities"), &token)
            .await
            .expect(200);
    }
    app.get("/api/users", &client_token)
        .await
        .expect_error(403, "permission_denied");
    let me = app
        .get(&format!("/api/user/{client}/"), &client_token)
        .await
        .expect(200);
    assert_eq!(me["name"], "Carla Cliente");
    assert!(!me.to_string().contains("argon2"));
    app.get(&format!("/api/user/{other}"), &client_token)
        .await
        .expect_error(404, "not_found");
    app.get(&format!("/api/user/{other}/facilities"), &client_token)
        .await
        .expect_error(404, "not_found");
    app.get("/api/user/nobody", &app.admin)
        .await
        .expect_error(404, "not_found");
    let all = app.admin_get("/api/users?pageSize=2").await;
    assert_eq!(all["list"].as_array().unwrap().len(), 2);
    assert!(all["paging"]["total"].as_i64().unwrap() >= 7);
}

async fn user_edits_follow_the_permission_table(app: TestApp) {
    let (client, client_token) = app.user_with(&["Cliente"], "Edu Cliente").await;
    let (laudos, laudos_token) = app.user_with(&["Laudos"], "Lia Laudos").await;
    let (_, fisico_token) = app.user_with(&["Físico"], "Fabio Fisico").await;
    // Self edit (no roles).
    let me = app.post("/api/edit/", &client_token, json!({"_id": client, "name": "Edu C.", "telephone": "(11) 91234-5678", "FMLicenseNumber": "FM-9", "FMLicenseValidity": "2027-06-30"})).await.expect(200);
    assert_eq!(me["name"], "Edu C.");
    assert_eq!(me["FMLicenseValidity"], "2027-06-30");
    edit(
        &app,
        &client_token,
        json!({"_id": client, "roles": ["Administrator"]}),
    )
    .await
    .expect_error(403, "permission_denied");
    edit(&app, &client_token, json!({"_id": laudos, "name": "X"}))
        .await
        .expect_error(404, "not_found");
    let res = edit(
        &app,
        &client_token,
        json!({"_id": client, "email": "nope", "FMLicenseValidity": "30/06/2027"}),
    )
    .await;
    let res = res.expect_error(422, "validation_failed");
    assert!(
        res.has_field_error("email", "invalid_email")
            && res.has_field_error("FMLicenseValidity", "invalid_value")
    );
    // Físico manages Cliente users only.
    edit(
        &app,
        &fisico_token,
        json!({"_id": client, "name": "Edu by Fisico"}),
    )
    .await
    .expect(200);
    edit(&app, &fisico_token, json!({"_id": laudos, "name": "X"}))
        .await
        .expect_error(403, "permission_denied");
    edit(
        &app,
        &fisico_token,
        json!({"_id": client, "roles": ["Laudos"]}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post_id("/api/exclude/", &laudos_token, &laudos)
        .await
        .expect(200);
    // Administrator: any role; a taken e-mail is a conflict.
    let upgraded = app
        .admin_post("/api/edit", json!({"_id": client, "roles": ["Físico"]}))
        .await;
    assert_eq!(upgraded["roles"], json!(["Físico"]));
    let res = app
        .post(
            "/api/edit",
            &app.admin,
            json!({"_id": client, "email": "admin@example.com"}),
        )
        .await;
    res.expect_error(409, "conflict");
    // A Cliente can deactivate themself, and is then locked out.
    let (_, quitter) = app.user_with(&["Cliente"], "Quitter").await;
    let who = app.admin_get("/api/users?q=quitter").await["list"][0]["_id"].clone();
    app.post_id("/api/exclude/", &quitter, &who)
        .await
        .expect(200);
    app.get("/api/facilities", &quitter)
        .await
        .expect_error(401, "unauthorized");
    let _ = PASSWORD;
}

/// A POST to `/api/edit/` (a user edit) by `token`.
async fn edit(app: &TestApp, token: &str, body: Value) -> Answer {
    app.post("/api/edit/", token, body).await
}
