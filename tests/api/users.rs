use crate::helpers::{Answer, PASSWORD, TestApp};
use crate::on_both_databases;
use serde_json::{Value, json};

on_both_databases!(
    user_reads_follow_the_permission_table,
    user_edits_follow_the_permission_table,
    own_email_changes_are_limited_for_clients
);

/// Whether an address is taken shows in the answer to an e-mail change, so a `Cliente` (anyone,
/// with self-registration) may change their own e-mail five times an hour, taken or not; the
/// sixth is 429 and changes nothing. Staff, who list every user anyway, are not limited
/// (audit of stop 36: unlimited probing undid the care taken in `/register` and recovery).
async fn own_email_changes_are_limited_for_clients(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Paula Prova").await;
    let (staff, staff_token) = app.user_with(&["Físico"], "Fabio Fisico").await;
    let app = &app;
    let change = |id: &str, token: &str, email: String| {
        let (id, token) = (id.to_owned(), token.to_owned());
        async move {
            app.post("/api/edit/", &token, json!({"_id": id, "email": email}))
                .await
        }
    };
    let taken = app.admin_get(&format!("/api/user/{staff}")).await["email"]
        .as_str()
        .unwrap()
        .to_owned();
    change(&client, &token, taken.clone())
        .await
        .expect_error(409, "conflict");
    for k in 0..4 {
        change(&client, &token, format!("paula.{k}@example.com"))
            .await
            .expect(200);
    }
    let refused = change(&client, &token, "paula.9@example.com".into()).await;
    assert!(
        refused.headers.contains_key("retry-after"),
        "{}",
        refused.body
    );
    refused.expect_error(429, "rate_limited");
    let me = app.get_ok(&format!("/api/user/{client}"), &token).await;
    assert_eq!(me["email"], "paula.3@example.com");
    // Other edits of their own are not counted.
    change(&client, &token, "paula.3@example.com".into())
        .await
        .expect(200);
    for k in 0..7 {
        change(&staff, &staff_token, format!("fabio.{k}@example.com"))
            .await
            .expect(200);
    }
}

async fn user_reads_follow_the_permission_table(app: TestApp) {
    let (client, client_token) = app.user_with(&["Cliente"], "Carla Cliente").await;
    let (other, _) = app.user_with(&["Cliente"], "Otto Other").await;
    for role in ["Administrator", "Admin", "Físico", "Laudos"] {
        let (_, token) = app.user_with(&[role], &format!("Reader {role}")).await;
        let list = app.get_ok("/api/users?q=carla", &token).await;
        assert_eq!(list["paging"]["total"], 1, "{role}");
        assert_eq!(list["list"][0]["_id"], client);
        app.get_ok(&format!("/api/user/{client}"), &token).await;
        app.get_ok(&format!("/api/user/{client}/facilities"), &token)
            .await;
    }
    // The role filter: any case, with or without accents; an unknown role is a 400.
    for role in ["Físico", "fisico", "FÍSICO"] {
        let list = app.admin_get(&format!("/api/users?role={role}")).await;
        assert_eq!(list["paging"]["total"], 1, "{role}");
        assert_eq!(list["list"][0]["name"], "Reader Físico");
    }
    assert_eq!(app.total("/api/users?role=laudos", &app.admin).await, 1);
    app.assert_bad_requests(&["/api/users?role=Bogus"]).await;
    app.get("/api/users", &client_token)
        .await
        .expect_error(403, "permission_denied");
    let me = app
        .get_ok(&format!("/api/user/{client}/"), &client_token)
        .await;
    assert_eq!(me["name"], "Carla Cliente");
    assert!(!me.to_string().contains("argon2"));
    // Every field of product.md §3, whether set or not.
    let mut keys: Vec<&str> = me.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "ANLicenseNumber",
            "ANLicenseValidity",
            "FMLicenseNumber",
            "FMLicenseValidity",
            "_id",
            "active",
            "cpf",
            "createdAt",
            "email",
            "name",
            "roles",
            "telephone",
            "updatedAt"
        ]
    );
    app.assert_not_found(&format!("/api/user/{other}"), &client_token)
        .await;
    app.assert_not_found(&format!("/api/user/{other}/facilities"), &client_token)
        .await;
    app.assert_not_found("/api/user/nobody", &app.admin).await;
    // `active` filters the list; a value it cannot read is refused, never taken as false.
    for (active, total) in [("true", 1), ("false", 0)] {
        let list = app
            .admin_get(&format!("/api/users?q=carla&active={active}"))
            .await;
        assert_eq!(list["paging"]["total"], total, "active={active}");
    }
    app.assert_bad_requests(&["/api/users?active=1", "/api/users?active=yes"])
        .await;
    // A search matches within the name or the e-mail, not across the two.
    let across = app.admin_get("/api/users?q=cliente%20carla").await;
    assert_eq!(across["paging"]["total"], 0);
    let all = app.admin_get("/api/users?pageSize=2").await;
    assert_eq!(all["list"].as_array().unwrap().len(), 2);
    assert!(all["paging"]["total"].as_i64().unwrap() >= 7);
}

async fn user_edits_follow_the_permission_table(app: TestApp) {
    let (client, client_token) = app.user_with(&["Cliente"], "Edu Cliente").await;
    let (laudos, laudos_token) = app.user_with(&["Laudos"], "Lia Laudos").await;
    let (_, fisico_token) = app.user_with(&["Físico"], "Fabio Fisico").await;
    // Self edit (no roles).
    let me = app.post_ok("/api/edit/", &client_token, json!({"_id": client, "name": "Edu C.", "telephone": "(11) 91234-5678", "FMLicenseNumber": "FM-9", "FMLicenseValidity": "2027-06-30"})).await;
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
    edit(
        &app,
        &client_token,
        json!({"_id": client, "email": "nope", "FMLicenseValidity": "30/06/2027"}),
    )
    .await
    .expect_field_errors(&[
        ("email", "invalid_email"),
        ("FMLicenseValidity", "invalid_value"),
    ]);
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
    // Permission is settled before the fields are read.
    edit(&app, &fisico_token, json!({"_id": laudos, "email": "bad"}))
        .await
        .expect_error(403, "permission_denied");
    for body in [
        json!({"_id": client, "roles": ["Laudos"]}),
        // A role that may not be granted is a 403 whatever else fails.
        json!({"_id": client, "roles": ["Físico", "Cliente"], "email": "bad"}),
        json!({"_id": client, "roles": ["Físico", 5]}),
    ] {
        edit(&app, &fisico_token, body)
            .await
            .expect_error(403, "permission_denied");
    }
    // Roles the editor may grant, or malformed ones, leave the other fields to be judged.
    edit(
        &app,
        &fisico_token,
        json!({"_id": client, "roles": ["Cliente"], "email": "bad"}),
    )
    .await
    .expect_field_errors(&[("email", "invalid_email")]);
    edit(
        &app,
        &fisico_token,
        json!({"_id": client, "roles": ["Chefe"], "email": "bad"}),
    )
    .await
    .expect_field_errors(&[("email", "invalid_email"), ("roles[0]", "invalid_value")]);
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
    app.assert_unauthorized("/api/facilities", &quitter).await;
    // Deactivating by an edit is logged as `/exclude/` logs it; reactivating is an edit.
    let (other, _) = app.user_with(&["Cliente"], "Otavio Edit").await;
    for active in [false, true] {
        app.admin_post("/api/edit/", json!({"_id": other, "active": active}))
            .await;
    }
    assert_eq!(
        app.audit_actions("user", &other).await,
        ["create", "deactivate", "edit"]
    );
    let _ = PASSWORD;
}

/// A POST to `/api/edit/` (a user edit) by `token`.
async fn edit(app: &TestApp, token: &str, body: Value) -> Answer {
    app.post("/api/edit/", token, body).await
}
