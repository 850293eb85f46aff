//! Editing facilities: partial changes in both forms, main role holders and user links, the
//! `If-Match` guard, and archiving with its history.

use crate::helpers::{TestApp, facility_payload, history_actions};
use crate::on_both_databases;
use reqwest::header::HeaderValue;
use serde_json::json;

on_both_databases!(
    both_edit_forms_apply_partial_changes,
    each_part_edited_alone_is_saved,
    main_role_holders_are_replaced_on_edit,
    users_edit_replaces_links_with_the_same_rules,
    if_match_guards_against_lost_updates,
    archive_hides_and_history_keeps,
    an_edit_without_id_lists_every_failing_field
);

/// A missing `_id` is reported with the payload's own errors, not alone (product.md §1).
async fn an_edit_without_id_lists_every_failing_field(app: TestApp) {
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"name": "", "cnpj": "123"}),
    )
    .await
    .expect_field_errors(&[
        ("_id", "required"),
        ("name", "required"),
        ("cnpj", "invalid_cnpj"),
    ]);
    app.post("/api/facility/users/edit", &app.admin, json!({}))
        .await
        .expect_field_errors(&[("_id", "required"), ("users", "required")]);
    app.post(
        "/api/facility/users/edit",
        &app.admin,
        json!({"users": [{"_id": 5}]}),
    )
    .await
    .expect_field_errors(&[("_id", "required"), ("users[0]._id", "invalid_value")]);
    app.post("/api/group/edit", &app.admin, json!({"name": ""}))
        .await
        .expect_field_errors(&[("_id", "required"), ("name", "required")]);
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
    let edited = app.admin_post("/api/facility/edit/", json!({"_id": id, "name": "Parcial 2", "radioisotopes": [{"name": "Lu(177)", "quantity": 0.75}], "practices": [], "CNENregistry": null, "address": {"street": "Rua Nova, 5", "city": "Campinas", "state": "SP", "zipCode": "13000-000"}})).await;
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
    assert_eq!(app.admin_get(&format!("/api/facility/{id}")).await, edited);
    let same = app
        .admin_post(
            "/api/facility/edit",
            json!({"_id": id, "name": "Parcial 2"}),
        )
        .await;
    assert_eq!(same["version"], 3);
}

/// An edit writes only the parts of the facility that changed: each part changed alone is saved
/// (as the answer and a later read show) and the others are kept.
async fn each_part_edited_alone_is_saved(app: TestApp) {
    let (user, _) = app.user_with(&["Físico"], "Parte Única").await;
    let f = app.create_facility(facility_payload("Partes")).await;
    let id = f["_id"].as_str().unwrap();
    let path = format!("/api/facility/{id}");
    let changes = [
        ("telephone", json!("(31) 3222-1111")),
        (
            "address",
            json!([{"street": "Rua Um, 1", "city": "Belo Horizonte", "state": "MG"}]),
        ),
        (
            "users",
            json!([{"_id": user, "responsabilities": ["Supervisor"]}]),
        ),
        (
            "radioisotopes",
            json!([{"name": "F(18)", "quantity": 42.5}]),
        ),
        ("practices", json!(["Terapia com Internação"])),
    ];
    let mut expected = f.clone();
    for (key, value) in changes {
        let edited = app
            .admin_put(&format!("{path}/edit"), json!({ key: value.clone() }))
            .await;
        expected["version"] = edited["version"].clone();
        expected["updatedAt"] = edited["updatedAt"].clone();
        expected[key] = edited[key].clone();
        assert_eq!(edited, expected, "after an edit of {key} alone");
        assert_eq!(app.admin_get(&path).await, expected, "{key} as stored");
    }
    assert_eq!(expected["users"][0]["_id"], user);
    assert_eq!(
        expected["radioisotopes"],
        json!([{"name": "F(18)", "quantity": 42.5}])
    );
    assert_eq!(expected["practices"], json!(["Terapia com Internação"]));
    assert_eq!(expected["address"][0]["city"], "Belo Horizonte");
    assert_eq!(expected["version"], 6);
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
        .admin_put(&format!("/api/facility/{id}/edit"), body)
        .await;
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
    let history = app.history("facility", id).await;
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
    app.post("/api/facility/edit", &app.admin, body)
        .await
        .expect_field_error("users[1].responsabilities[0]", "duplicate_role");
}

async fn users_edit_replaces_links_with_the_same_rules(app: TestApp) {
    let (sup, _) = app.user_with(&["Físico"], "Sup Old").await;
    let (sup2, _) = app.user_with(&["Físico"], "Sup New").await;
    let mut p = facility_payload("Vínculos");
    p["users"] = json!([{"_id": sup, "responsabilities": ["Supervisor"]}]);
    let f = app.create_facility(p).await;
    let id = f["_id"].as_str().unwrap();
    let body = json!({"_id": id, "users": [{"_id": sup, "responsabilities": ["Supervisor"]}, {"_id": sup2, "responsabilities": ["Supervisor"]}]});
    let edited = app.admin_post("/api/facility/users/edit/", body).await;
    assert_eq!(edited["users"][0]["responsabilities"], json!([]));
    assert_eq!(
        edited["users"][1]["responsabilities"],
        json!(["Supervisor"])
    );
    assert_eq!(edited["name"], f["name"]);
    // The user list is required, and referenced users must exist.
    app.post_id("/api/facility/users/edit", &app.admin, &id)
        .await
        .expect_field_error("users", "required");
    let res = app
        .post(
            "/api/facility/users/edit",
            &app.admin,
            json!({"_id": id, "users": [{"_id": "nobody"}]}),
        )
        .await;
    res.expect_field_error("users[0]._id", "user_not_found");
    // The user's facilities list the link.
    let mine = app.admin_get(&format!("/api/user/{sup2}/facilities")).await;
    assert_eq!(mine["list"][0]["_id"], id);
    // An empty list unlinks everyone.
    let emptied = app
        .admin_post("/api/facility/users/edit", json!({"_id": id, "users": []}))
        .await;
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
    // Tags of another form name no version, even with the current number in them: 412.
    for tag in [
        &b"W/3\""[..],
        b"W/\"+03\"",
        b"W/W/\"3\"",
        b"\"\"3\"\"",
        b"W/\"\xc3\xa9\"",
        b"\"3",
        b"\"03\"",
    ] {
        let res = app
            .client
            .put(app.url(&format!("/api/facility/{id}/edit")))
            .bearer_auth(&app.admin)
            .header("If-Match", HeaderValue::from_bytes(tag).unwrap())
            .json(&json!({"name": "Malformed tag"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 412, "{}", String::from_utf8_lossy(tag));
    }
    assert_eq!(
        put("3").await.unwrap().status(),
        200,
        "a bare number is read"
    );
    assert_eq!(put("*").await.unwrap().status(), 200);
    // An archive made on a stale copy is refused too; on the current one it goes through.
    let archive = |tag: &'static str| {
        app.client
            .post(app.url("/api/facility/exclude"))
            .bearer_auth(&app.admin)
            .header("If-Match", tag)
            .json(&json!({"_id": id}))
            .send()
    };
    let stale = archive("W/\"4\"").await.unwrap();
    assert_eq!(stale.status(), 412);
    app.get_ok(&format!("/api/facility/{id}"), &app.admin).await;
    assert_eq!(archive("W/\"5\"").await.unwrap().status(), 200);
    app.assert_not_found(&format!("/api/facility/{id}"), &app.admin)
        .await;
}

async fn archive_hides_and_history_keeps(app: TestApp) {
    let f = app.create_facility(facility_payload("Arquivável")).await;
    let id = f["_id"].as_str().unwrap();
    app.admin_post(
        "/api/facility/edit",
        json!({"_id": id, "name": "Arquivável 2"}),
    )
    .await;
    let res = app.admin_post_id("/api/facility/exclude/", &id).await;
    assert_eq!(res["_id"], id);
    app.assert_not_found(&format!("/api/facility/{id}"), &app.admin)
        .await;
    assert_eq!(app.admin_get("/api/facilities").await["paging"]["total"], 0);
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": id, "name": "Ghost"}),
    )
    .await
    .expect_error(404, "not_found");
    app.post_id("/api/facility/exclude", &app.admin, &id)
        .await
        .expect_error(404, "not_found");
    let history = app.history("facility", id).await;
    assert_eq!(history_actions(&history), ["archive", "edit", "create"]);
    assert_eq!(history["list"][1]["before"]["name"], "Arquivável");
    assert_eq!(history["list"][1]["after"]["name"], "Arquivável 2");
    assert_eq!(history["list"][1]["actor"]["name"], "Administrator");
    // An event is a record like any other: `createdAt` and `updatedAt` (product.md §1), the
    // instant of the change.
    for event in history["list"].as_array().unwrap() {
        assert!(event["at"].as_str().unwrap().ends_with('Z'), "{event}");
        assert_eq!(event["createdAt"], event["at"], "{event}");
        assert_eq!(event["updatedAt"], event["at"], "{event}");
    }
}
