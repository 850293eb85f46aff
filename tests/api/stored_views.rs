//! A facility's view shows its child lists and its linked users' names as they are now. Those
//! lists are kept on the facility's row by triggers (PostgreSQL migration 0006, SQLite 0011):
//! every kind of write must leave them equal to what the child tables and the users say, and a
//! user's edit racing a facility's relinking must not leave an old name behind.

use crate::helpers::{Answer, Backend, TestApp, entries, facility_payload};
use crate::images::{PNG, upload};
use crate::on_both_databases;
use futures::future::join_all;
use serde_json::{Value, json};

on_both_databases!(
    renames_and_relinks_at_once_show_the_last_names,
    renames_beside_archives_moves_and_creates_never_deadlock,
    moves_back_and_forth_at_once_never_deadlock,
    a_client_list_shows_only_what_its_filter_selects_under_edits,
    kept_child_lists_follow_every_write
);

const ROUNDS: usize = 6;

/// Each round, at once: a facility's user list replaced (the round's two new users linked, the
/// earlier ones kept, their order swapped, so every link is written again), each linked user
/// renamed twice, two address edits and a logo set. Every request succeeds (no deadlock answered
/// 409), and afterwards the view names each user as their own record does and shows the last
/// edit's address (its version's), with the kept lists equal to the child tables. (Audit of stop
/// 35: a rename that locked the facilities linked when it started missed a link committed later,
/// and rebuilt lists read before waiting for another writer of the facility.)
async fn renames_and_relinks_at_once_show_the_last_names(app: TestApp) {
    let facility = app
        .create_facility(facility_payload("Clínica Vista Viva"))
        .await;
    let id = facility["_id"].as_str().unwrap();
    let path = format!("/api/facility/{id}");
    let mut linked: Vec<String> = Vec::new();
    for round in 0..ROUNDS {
        for who in ["Ana", "Bia"] {
            linked.push(
                app.user_with(&["Físico"], &format!("{who} Vista {round}"))
                    .await
                    .0,
            );
        }
        let order: Vec<Value> = linked
            .iter()
            .rev()
            .map(|user| json!({"_id": user, "responsabilities": []}))
            .collect();
        let relink = app.post(
            "/api/facility/users/edit",
            &app.admin,
            json!({"_id": id, "users": order}),
        );
        let renames = rename_each(&app, &linked, round, 2);
        let edit_path = format!("{path}/edit");
        let logo_path = format!("{path}/logo");
        let addresses = join_all((0..2).map(|k| {
            let street = format!("Rua {round}.{k}");
            let body = json!({"address": [{"street": street, "city": "Recife", "state": "PE"}]});
            app.put(&edit_path, &app.admin, body)
        }));
        let logo = upload(&app, &app.admin, &logo_path, PNG.to_vec());
        let (relinked, renamed, edited, (logo, _)) =
            futures::join!(relink, renames, addresses, logo);
        let answers = std::iter::once(relinked).chain(renamed).chain(edited);
        let statuses: Vec<u16> = answers.map(|a| a.status.as_u16()).collect();
        assert!(
            statuses.iter().all(|s| *s == 200) && logo == 200,
            "round {round}: {statuses:?}, logo {logo}"
        );
        let view = app.admin_get(&path).await;
        for shown in view["users"].as_array().unwrap() {
            let user = app
                .admin_get(&format!("/api/user/{}", shown["_id"].as_str().unwrap()))
                .await;
            assert_eq!(shown["name"], user["name"], "round {round}");
        }
        assert_eq!(
            view["users"].as_array().unwrap().len(),
            linked.len(),
            "round {round}"
        );
        let history = app.history("facility", id).await;
        // The newest change that wrote the whole facility (not an image's).
        let last = entries(&history)
            .iter()
            .find(|e| e["after"]["address"].is_array())
            .unwrap();
        assert_eq!(
            last["after"]["address"], view["address"],
            "round {round}: {last}"
        );
        assert_eq!(view["logo"], json!(format!("{path}/logo")), "round {round}");
        assert_eq!(
            stale_views(&app).await,
            Vec::<String>::new(),
            "round {round}"
        );
    }
}

/// Each round: an older facility, then four facilities linking two new users (two of them
/// edited, so their rows no longer lie in id order); then at once: the older one archived (the
/// ranks above it move down), each user renamed three times, the two edited ones edited again,
/// every other round one of the four archived, and a facility linking both users created. Every
/// request succeeds, and no kept list is stale. (Re-audit of stop 35: a rank shift locked the
/// facilities in the order it scanned them, and a create reached the users only at its links'
/// foreign keys after moving ranks; both deadlocked with a rename's rebuild, answered 409.)
async fn renames_beside_archives_moves_and_creates_never_deadlock(app: TestApp) {
    let address =
        |street: String| json!({"address": [{"street": street, "city": "Recife", "state": "PE"}]});
    for round in 0..ROUNDS {
        let older = app
            .create_facility(facility_payload(&format!("Antiga {round}")))
            .await;
        let users = [
            app.user_with(&["Físico"], &format!("Rita {round}")).await.0,
            app.user_with(&["Físico"], &format!("Rui {round}")).await.0,
        ];
        let linking = |name: String| {
            let mut payload = facility_payload(&name);
            payload["users"] = json!(
                users
                    .iter()
                    .map(|u| json!({"_id": u, "responsabilities": []}))
                    .collect::<Vec<_>>()
            );
            payload
        };
        let mut four = Vec::new();
        for k in 0..4 {
            four.push(
                app.create_facility(linking(format!("Ligada {round}.{k}")))
                    .await["_id"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
        }
        for id in four.iter().take(2).rev() {
            app.admin_put(
                &format!("/api/facility/{id}/edit"),
                address(format!("Rua {id}")),
            )
            .await;
        }
        let mut archives = vec![older["_id"].clone()];
        if round % 2 == 1 {
            archives.push(json!(four[3]));
        }
        let archived = join_all(
            archives
                .into_iter()
                .map(|id| app.post("/api/facility/exclude", &app.admin, json!({"_id": id}))),
        );
        let renamed = rename_each(&app, &users, round, 3);
        let paths: Vec<String> = four
            .iter()
            .take(2)
            .map(|id| format!("/api/facility/{id}/edit"))
            .collect();
        let edited = join_all(
            paths
                .iter()
                .map(|p| app.put(p, &app.admin, address(format!("Rua {p} {round}")))),
        );
        let created = app.post(
            "/api/facility/register/",
            &app.admin,
            linking(format!("Nova {round}")),
        );
        let (archived, renamed, edited, created) =
            futures::join!(archived, renamed, edited, created);
        let statuses: Vec<u16> = archived
            .into_iter()
            .chain(renamed)
            .chain(edited)
            .chain([created])
            .map(|a| a.status.as_u16())
            .collect();
        assert!(
            statuses.iter().all(|s| [200, 201].contains(s)),
            "round {round}: {statuses:?}"
        );
        assert_eq!(
            stale_views(&app).await,
            Vec::<String>::new(),
            "round {round}"
        );
    }
}

/// Each round, at once: one facility moved to the other department and back by alternating
/// edits, beside an archive and a create of other facilities. Every request succeeds, and the
/// department lists count what they list. (Audit of stop 36: an edit that read "no move" before
/// a concurrent move committed found the facility in the other department only after locking
/// it, and moved ranks without having locked them first: 409s on PostgreSQL.)
async fn moves_back_and_forth_at_once_never_deadlock(app: TestApp) {
    let moving = app.create_facility(facility_payload("Vai e Vem")).await;
    let path = format!("/api/facility/{}/edit", moving["_id"].as_str().unwrap());
    for round in 0..ROUNDS {
        let other = app
            .create_facility(facility_payload(&format!("Arquivada {round}")))
            .await;
        let moves = join_all((0..6).map(|k| {
            let department = ["Radiodiagnóstico", "Medicina Nuclear"][k % 2];
            app.put(&path, &app.admin, json!({"department": department}))
        }));
        let archived = app.post(
            "/api/facility/exclude",
            &app.admin,
            json!({"_id": other["_id"]}),
        );
        let created = app.post(
            "/api/facility/register/",
            &app.admin,
            facility_payload(&format!("Nova {round}")),
        );
        let (moves, archived, created) = futures::join!(moves, archived, created);
        let statuses: Vec<u16> = moves
            .into_iter()
            .chain([archived, created])
            .map(|a| a.status.as_u16())
            .collect();
        assert!(
            statuses.iter().all(|s| [200, 201].contains(s)),
            "round {round}: {statuses:?}"
        );
    }
    for list in [
        "/api/nuclearmedicinefacilities",
        "/api/radiodiagnosisfacilities",
    ] {
        let page = app.get(&format!("{list}?pageSize=200"), &app.admin).await;
        assert_eq!(
            page.body["paging"]["total"].as_u64().unwrap() as usize,
            entries(&page.body).len(),
            "{list}"
        );
    }
}

/// A `Cliente`'s list, read while their facilities are unlinked from them and linked again, never
/// shows a facility without them, and its total always counts what it lists. (Audit of stop 36:
/// the page's ids and its views were read by two statements, and an unlink committed between them
/// showed the facility as it was after the unlink.)
async fn a_client_list_shows_only_what_its_filter_selects_under_edits(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Clara Lista").await;
    let mut paths = Vec::new();
    for k in 0..4 {
        let f = app
            .create_facility_of(&client, &format!("Ligada {k}"))
            .await;
        paths.push(format!("/api/facility/{}/edit", f["_id"].as_str().unwrap()));
    }
    let linked = json!([{"_id": client, "responsabilities": ["Titular"]}]);
    for round in 0..ROUNDS * 2 {
        let users = if round % 2 == 0 {
            json!([])
        } else {
            linked.clone()
        };
        let edits = join_all(
            paths
                .iter()
                .map(|p| app.put(p, &app.admin, json!({"users": users.clone()}))),
        );
        // Two readers, each reading again as soon as it has its answer, while the edits commit.
        let reader = || async {
            let mut answers = Vec::new();
            for _ in 0..8 {
                answers.push(app.get("/api/facilities?pageSize=200", &token).await);
            }
            answers
        };
        let (edits, first, second) = futures::join!(edits, reader(), reader());
        assert!(edits.iter().all(|e| e.status == 200), "round {round}");
        for read in first.into_iter().chain(second) {
            let list = entries(&read.body);
            assert_eq!(read.body["paging"]["total"], list.len(), "round {round}");
            for f in list {
                assert!(
                    f["users"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|u| u["_id"] == client),
                    "round {round}: {f}"
                );
            }
        }
    }
}

/// Each of `users` renamed `times` times at once (after the round), by the Administrator.
async fn rename_each(app: &TestApp, users: &[String], round: usize, times: usize) -> Vec<Answer> {
    let names = users.iter().flat_map(|user| {
        (0..times).map(move |k| json!({"_id": user, "name": format!("{user} {round}.{k}")}))
    });
    join_all(names.map(|body| app.post("/api/edit/", &app.admin, body))).await
}

/// Each kept list of a facility `f` built from the child tables now, as PostgreSQL's triggers
/// build it (migrations 0006, 0007 and 0009), written here again to judge them.
const POSTGRES_LISTS: [(&str, &str); 5] = [
    (
        "address_json",
        "SELECT coalesce(json_agg(json_build_object('street', a.street, 'city', a.city, 'state', a.state, \
         'complement', a.complement, 'zipCode', a.zip_code) ORDER BY a.position), '[]'::json) \
         FROM facility_addresses a WHERE a.facility_id = f.id",
    ),
    (
        "users_json",
        "SELECT coalesce(json_agg(json_build_object('_id', fu.user_id, 'responsabilities', fu.responsibilities, \
         'name', u.name, 'email', u.email, 'active', u.active, 'ANLicenseNumber', u.an_license_number, \
         'ANLicenseValidity', to_char(u.an_license_validity, 'YYYY-MM-DD'), 'FMLicenseNumber', u.fm_license_number, \
         'FMLicenseValidity', to_char(u.fm_license_validity, 'YYYY-MM-DD')) ORDER BY fu.position), '[]'::json) \
         FROM facility_users fu JOIN users u ON u.id = fu.user_id WHERE fu.facility_id = f.id",
    ),
    (
        "isotopes_json",
        "SELECT coalesce(json_agg(json_build_object('name', r.name, 'quantity', r.quantity) ORDER BY r.position), \
         '[]'::json) FROM facility_radioisotopes r WHERE r.facility_id = f.id",
    ),
    (
        "practices_json",
        "SELECT coalesce(json_agg(p.practice), '[]'::json) FROM facility_practices p WHERE p.facility_id = f.id",
    ),
    (
        "image_kinds",
        "SELECT string_agg(i.kind, ',') FROM facility_images i WHERE i.facility_id = f.id",
    ),
];

/// The facilities whose kept lists differ from the lists built from the child tables now (on
/// PostgreSQL by [`POSTGRES_LISTS`]; on SQLite by the view of its migration 0011).
async fn stale_views(app: &TestApp) -> Vec<String> {
    let (differ, from): (Vec<String>, _) = match app.backend {
        Backend::Postgres => (
            POSTGRES_LISTS
                .iter()
                .map(|(l, built)| format!("f.{l}::text IS DISTINCT FROM ({built})::text"))
                .collect(),
            "facilities f",
        ),
        Backend::Sqlite => (
            POSTGRES_LISTS
                .iter()
                .map(|(l, _)| format!("f.{l} IS NOT l.{l}"))
                .collect(),
            "facilities f JOIN facility_lists l ON l.id = f.id",
        ),
    };
    let sql = format!(
        "SELECT f.id FROM {from} WHERE {} ORDER BY f.id",
        differ.join(" OR ")
    );
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .fetch_all(&mut app.outside_connection().await)
        .await
        .unwrap()
}

/// Every write that changes what a view lists — a create, an edit of each child list, a user
/// list replaced, a linked user's name, licences and being active, an image set and removed — leaves the
/// facility's kept lists equal to the child tables.
async fn kept_child_lists_follow_every_write(app: TestApp) {
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
    assert_eq!(linked["active"], true);
    // A linked user's deactivation shows in the link, and so does the reactivation.
    for active in [false, true] {
        app.admin_post("/api/edit/", json!({"_id": titular, "active": active}))
            .await;
        assert_eq!(
            stale_views(&app).await,
            Vec::<String>::new(),
            "after active: {active}"
        );
        let users = &app.admin_get(&path).await["users"];
        assert_eq!(
            (&users[0]["active"], &users[1]["active"]),
            (&json!(true), &json!(active))
        );
    }
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
