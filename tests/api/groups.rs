use crate::helpers::{TestApp, facility_payload, history_actions};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(groups_lifecycle_and_permissions);

async fn groups_lifecycle_and_permissions(app: TestApp) {
    let [client, admin_role] = app
        .role_tokens([("Cliente", "Cli"), ("Admin", "Adm")])
        .await;
    app.assert_post_denied("/api/group/register", &client, json!({"name": "G"}))
        .await;
    let g = app
        .post_created(
            "/api/group/register/",
            &admin_role,
            json!({"name": "Rede Norte", "description": "Hospitais do Norte"}),
        )
        .await;
    let id = g["_id"].as_str().unwrap();
    assert_eq!(g["description"], "Hospitais do Norte");
    app.post(
        "/api/group/register",
        &app.admin,
        json!({"name": "rede norte"}),
    )
    .await
    .expect_error(409, "conflict");
    app.post(
        "/api/group/register",
        &app.admin,
        json!({"description": "x"}),
    )
    .await
    .expect_field_error("name", "required");
    let edited = app
        .post_ok(
            "/api/group/edit",
            &admin_role,
            json!({"_id": id, "name": "Rede Norte e Nordeste"}),
        )
        .await;
    assert_eq!(edited["name"], "Rede Norte e Nordeste");
    assert_eq!(edited["description"], "Hospitais do Norte");
    let list = app.get_ok("/api/group", &client).await;
    assert_eq!(list["paging"]["total"], 1);
    let mut p = facility_payload("No Grupo");
    p["group"] = json!({"_id": id});
    let f = app.create_facility(p).await;
    assert_eq!(
        f["group"],
        json!({"_id": id, "name": "Rede Norte e Nordeste"})
    );
    let shown = app.admin_get(&format!("/api/group/{id}")).await;
    assert_eq!(shown["facilities"][0]["_id"], f["_id"]);
    // Deleting: Administrator only, and not while facilities use the group.
    app.assert_exclude_guarded("/api/group/exclude", &admin_role, id)
        .await;
    app.admin_post(
        "/api/facility/edit",
        json!({"_id": f["_id"], "group": null}),
    )
    .await;
    // An archived facility that names the group does not keep it; it lets go of it, audited.
    let mut p = facility_payload("Arquivada No Grupo");
    p["group"] = json!({"_id": id});
    let archived = app.create_facility(p).await;
    let archived = archived["_id"].as_str().unwrap();
    app.admin_post_id("/api/facility/exclude/", &archived).await;
    app.admin_post_id("/api/group/exclude/", &id).await;
    app.assert_not_found(&format!("/api/group/{id}"), &app.admin)
        .await;
    let history = app.history("facility", archived).await;
    assert_eq!(
        history_actions(&history),
        ["edit", "archive", "create"],
        "{history}"
    );
    assert_eq!(
        history["list"][0]["before"]["group"],
        json!({"_id": id, "name": "Rede Norte e Nordeste"})
    );
    assert!(history["list"][0]["after"]["group"].is_null());
}
