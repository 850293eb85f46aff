//! A facility's view shows its child lists and its linked users' names as they are now. On
//! PostgreSQL those lists are kept on the facility's row by triggers (migration 0006): every kind
//! of write must leave them equal to what the child tables and the users say, and a user's edit
//! racing a facility's relinking must not leave an old name behind.

use crate::helpers::{TestApp, facility_payload};
use crate::images::{PNG, upload};
use crate::on_both_databases;
use futures::future::join_all;
use serde_json::{Value, json};

on_both_databases!(renames_and_relinks_at_once_show_the_last_names);

const ROUNDS: usize = 6;

/// Each round renames two linked users while the facility's user list is replaced (the two
/// swapped, so every link is written again): afterwards the view names each user as their own
/// record does.
async fn renames_and_relinks_at_once_show_the_last_names(app: TestApp) {
    let (ana, _) = app.user_with(&["Físico"], "Ana Vista").await;
    let (bia, _) = app.user_with(&["Físico"], "Bia Vista").await;
    let link = |first: &str, second: &str| {
        json!([{"_id": first, "responsabilities": ["Titular"]},
               {"_id": second, "responsabilities": ["Supervisor"]}])
    };
    let mut payload = facility_payload("Clínica Vista Viva");
    payload["users"] = link(&ana, &bia);
    let facility = app.create_facility(payload).await;
    let id = facility["_id"].as_str().unwrap();
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 {
            link(&bia, &ana)
        } else {
            link(&ana, &bia)
        };
        let relink = app.post(
            "/api/facility/users/edit",
            &app.admin,
            json!({"_id": id, "users": order}),
        );
        let renames = join_all([&ana, &bia].map(|user| {
            app.post(
                "/api/edit/",
                &app.admin,
                json!({"_id": user, "name": format!("{user} {round}")}),
            )
        }));
        let (relinked, renamed) = futures::join!(relink, renames);
        relinked.expect(200);
        for answer in renamed {
            answer.expect(200);
        }
        let view = app.admin_get(&format!("/api/facility/{id}")).await;
        let names: Vec<(&str, &str)> = view["users"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| (u["_id"].as_str().unwrap(), u["name"].as_str().unwrap()))
            .collect();
        assert_eq!(names.len(), 2, "round {round}: {view}");
        for (user, name) in names {
            assert_eq!(name, format!("{user} {round}"), "round {round}");
        }
    }
}

/// The kept lists of every facility, compared with the lists built from the child tables now.
async fn stale_views(app: &TestApp) -> Vec<String> {
    use registry_server::db::BackendConn;
    let mut conn = app.state.db.read().await.unwrap();
    let BackendConn::Postgres(pg) = conn.backend().await.unwrap() else {
        unreachable!("a PostgreSQL server")
    };
    sqlx::query_scalar(
        "SELECT id FROM facilities WHERE \
         address_json::text IS DISTINCT FROM facility_address_json(id)::text \
         OR users_json::text IS DISTINCT FROM facility_users_json(id)::text \
         OR isotopes_json::text IS DISTINCT FROM facility_isotopes_json(id)::text \
         OR practices_json::text IS DISTINCT FROM facility_practices_json(id)::text \
         OR image_kinds IS DISTINCT FROM facility_image_kinds(id) ORDER BY id",
    )
    .fetch_all(pg)
    .await
    .unwrap()
}

/// Every write that changes what a view lists — a create, an edit of each child list, a user
/// list replaced, a linked user's name and licences, an image set and removed — leaves the
/// facility's kept lists equal to the child tables.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_child_lists_follow_every_write_on_postgres() {
    let Some(app) = TestApp::spawn(crate::helpers::Backend::Postgres).await else {
        return;
    };
    let (titular, _) = app.user_with(&["Físico"], "Titular Guardado").await;
    let (other, _) = app.user_with(&["Físico"], "Outro Guardado").await;
    let mut payload = facility_payload("Clínica Guardada");
    payload["users"] = json!([{"_id": titular, "responsabilities": ["Titular"]}]);
    let facility = app.create_facility(payload).await;
    let id = facility["_id"].as_str().unwrap();
    let path = format!("/api/facility/{id}");
    let untouched = app
        .create_facility(facility_payload("Clínica Ao Lado"))
        .await;
    assert_eq!(
        stale_views(&app).await,
        Vec::<String>::new(),
        "after the creates"
    );

    let edits = [
        json!({"address": [{"street": "Rua Nova, 1", "city": "Recife", "state": "PE"},
                           {"street": "Rua Dois, 2", "city": "Olinda", "state": "PE", "zipCode": "53000-000"}]}),
        json!({"radioisotopes": [{"name": "F(18)", "quantity": 12.5}]}),
        json!({"practices": ["Terapia com Internação"]}),
        json!({"users": [{"_id": other, "responsabilities": ["Titular"]},
                         {"_id": titular, "responsabilities": ["Supervisor"]}]}),
    ];
    for edit in edits {
        let answer = app.admin_put(&format!("{path}/edit"), edit.clone()).await;
        assert_eq!(
            stale_views(&app).await,
            Vec::<String>::new(),
            "after {edit}"
        );
        let key = edit.as_object().unwrap().keys().next().unwrap().clone();
        assert_eq!(app.admin_get(&path).await[&key], answer[&key], "{key}");
    }
    app.admin_post(
        "/api/edit/",
        json!({"_id": titular, "name": "Titular Renomeado", "ANLicenseNumber": "AN-77", "ANLicenseValidity": "2028-01-31"}),
    )
    .await;
    assert_eq!(
        stale_views(&app).await,
        Vec::<String>::new(),
        "after a user edit"
    );
    let shown = app.admin_get(&path).await;
    let linked = &shown["users"][1];
    assert_eq!(
        (
            &linked["name"],
            &linked["ANLicenseNumber"],
            &linked["ANLicenseValidity"]
        ),
        (
            &json!("Titular Renomeado"),
            &json!("AN-77"),
            &json!("2028-01-31")
        )
    );
    for image in ["logo", "background"] {
        let (status, _) = upload(&app, &app.admin, &format!("{path}/{image}"), PNG.to_vec()).await;
        assert_eq!(status, 200);
    }
    assert_eq!(
        stale_views(&app).await,
        Vec::<String>::new(),
        "after the images"
    );
    app.admin_post_id("/api/facility/removeLogo", id).await;
    assert_eq!(
        stale_views(&app).await,
        Vec::<String>::new(),
        "after a removal"
    );
    let shown = app.admin_get(&path).await;
    assert_eq!(
        (&shown["logo"], &shown["backgroundImage"]),
        (&Value::Null, &json!(format!("{path}/background")))
    );
    let beside = app
        .admin_get(&format!(
            "/api/facility/{}",
            untouched["_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(beside["users"], json!([]));
    assert_eq!(beside["address"], untouched["address"]);
}
