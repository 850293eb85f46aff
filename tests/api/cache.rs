//! The read cache (`registry_server::cache`): answers are reused between writes, and every
//! committed write — of this instance, or on PostgreSQL of another — makes the next read of what
//! it changed fresh; a facility write leaves the other facilities, the token users (on SQLite; on
//! PostgreSQL they are always read afresh) and (unless what they show changed) the due lists
//! cached.

use crate::equipment::{DOSE_CALIBRATOR, equipment, id, test_type};
use crate::helpers::{Backend, TestApp, facility_payload, list_strs};
use crate::on_both_databases;
use crate::test_servers::LateNotifications;
use registry_server::changes::bucket_of;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_databases!(
    cached_reads_follow_every_write,
    answers_are_reused_until_a_write,
    a_facility_write_drops_only_what_depends_on_it,
    a_facility_cached_for_one_caller_is_judged_for_each
);

async fn cached_reads_follow_every_write(app: TestApp) {
    let (physicist, physicist_token) = app.user_with(&["Físico"], "Ana Cache").await;
    let group = app.create_group("Rede Cache").await;
    let mut payload = facility_payload("Clínica Cache");
    payload["group"] = group["_id"].clone();
    payload["users"] = json!([{"_id": physicist, "responsabilities": ["Responsável Técnico"]}]);
    let facility = app.create_facility(payload).await;
    let id = facility["_id"].as_str().unwrap();
    let path = format!("/api/facility/{id}");
    let search = "/api/facilities?q=cl%C3%ADnica%20cache";
    // Each read twice: the second one is answered from memory.
    let read = |path: String| {
        let app = &app;
        async move {
            app.admin_get(&path).await;
            app.get(&path, &app.admin).await
        }
    };
    assert_eq!(read(search.into()).await.expect(200)["paging"]["total"], 1);
    read(path.clone()).await.expect(200);

    // The facility's own fields, with a new ETag.
    app.admin_put(
        &format!("{path}/edit"),
        json!({"telephone": "(21) 2222-3333"}),
    )
    .await;
    let after = read(path.clone()).await;
    assert_eq!(after.headers["etag"], "W/\"2\"");
    assert_eq!(after.body["telephone"], "(21) 2222-3333");

    // Records the view is built from: the group's name and the linked user's name.
    app.admin_post(
        "/api/group/edit",
        json!({"_id": group["_id"], "name": "Rede Renomeada"}),
    )
    .await;
    app.admin_post(
        "/api/edit/",
        json!({"_id": physicist, "name": "Ana Renomeada"}),
    )
    .await;
    let view = read(path.clone()).await.expect(200);
    assert_eq!(view["group"]["name"], "Rede Renomeada");
    assert_eq!(view["users"][0]["name"], "Ana Renomeada");

    // Lists: a new facility counts at once, an archived one is gone at once.
    app.create_facility(facility_payload("Clínica Cache Dois"))
        .await;
    assert_eq!(read(search.into()).await.expect(200)["paging"]["total"], 2);
    app.admin_post_id("/api/facility/exclude", &id).await;
    app.assert_not_found(&path, &app.admin).await;
    assert_eq!(read(search.into()).await.expect(200)["paging"]["total"], 1);

    // The token's user: a deactivation ends its tokens on the next request.
    app.get_ok("/api/facilities", &physicist_token).await;
    app.admin_post_id("/api/exclude/", &physicist).await;
    app.assert_unauthorized("/api/facilities", &physicist_token)
        .await;

    // Visibility: a Cliente sees a facility as soon as they are linked to it.
    let other = app
        .create_facility(facility_payload("Clínica Cache Três"))
        .await;
    let other_path = format!("/api/facility/{}", other["_id"].as_str().unwrap());
    let (client, client_token) = app.user_with(&["Cliente"], "Cli Cache").await;
    app.assert_not_found(&other_path, &client_token).await;
    let mine = app.get_ok("/api/facilities", &client_token).await;
    assert_eq!(mine["paging"]["total"], 0);
    app.admin_post(
        "/api/facility/users/edit",
        json!({"_id": other["_id"], "users": [{"_id": client, "responsabilities": ["Titular"]}]}),
    )
    .await;
    app.get_ok(&other_path, &client_token).await;
    let mine = app.get_ok("/api/facilities", &client_token).await;
    assert_eq!(mine["list"][0]["_id"], other["_id"]);
}

/// Creates a facility named `name`, reads it once (so the answer is cached), then renames it to
/// `renamed` outside the server: the facility's path.
/// A facility's view is cached once for every caller who may see it (it is the same for each),
/// and who asks is judged on every request, whether the view came from the cache or not: a
/// `Cliente` not linked to the facility gets its 404 after staff read it, a linked one the view,
/// and a deactivated caller 401 — also for a facility that does not exist (401 before 404).
async fn a_facility_cached_for_one_caller_is_judged_for_each(app: TestApp) {
    let (linked, linked_token) = app.user_with(&["Cliente"], "Cliente Ligado").await;
    let (_, outsider_token) = app.user_with(&["Cliente"], "Cliente De Fora").await;
    let (gone, gone_token) = app.user_with(&["Físico"], "Fisico Saindo").await;
    let mut payload = facility_payload("Clínica Partilhada");
    payload["users"] = json!([{"_id": linked, "responsabilities": ["Titular"]}]);
    let facility = app.create_facility(payload).await;
    let path = format!("/api/facility/{}", facility["_id"].as_str().unwrap());
    for _ in 0..2 {
        let seen = app.get(&path, &app.admin).await.expect(200);
        assert_eq!(seen, facility);
        app.get(&path, &outsider_token)
            .await
            .expect_error(404, "not_found");
        assert_eq!(app.get(&path, &linked_token).await.expect(200), facility);
        assert_eq!(app.get(&path, &gone_token).await.expect(200), facility);
    }
    app.admin_post("/api/exclude/", json!({"_id": gone})).await;
    for path in [path.as_str(), "/api/facility/no-such-facility"] {
        app.get(path, &gone_token)
            .await
            .expect_error(401, "unauthorized");
    }
    app.get("/api/facility/no-such-facility", &linked_token)
        .await
        .expect_error(404, "not_found");
}

async fn read_then_rename_outside(app: &TestApp, name: &str, renamed: &str) -> String {
    let facility = app.create_facility(facility_payload(name)).await;
    let id = facility["_id"].as_str().unwrap();
    let path = format!("/api/facility/{id}");
    app.admin_get(&path).await;
    rename_outside(&mut app.outside_connection().await, id, renamed).await;
    path
}

async fn rename_outside(conn: &mut sqlx::AnyConnection, id: &str, name: &str) {
    sqlx::query("UPDATE facilities SET name = $1 WHERE id = $2")
        .bind(name)
        .bind(id)
        .execute(conn)
        .await
        .unwrap();
}

async fn answers_are_reused_until_a_write(app: TestApp) {
    let path = read_then_rename_outside(&app, "Clínica Memória", "Renomeada por fora").await;
    // Served from memory: the unannounced change is not seen…
    assert_eq!(app.admin_get(&path).await["name"], "Clínica Memória");
    // …until a write is committed through the server (one that is not narrowed to some
    // facilities drops every answer).
    app.create_group("Rede Memória").await;
    assert_eq!(app.admin_get(&path).await["name"], "Renomeada por fora");

    // With the cache off, every read goes to the database.
    let backend = app.backend;
    let Some(uncached) = TestApp::spawn_with(backend, |c| c.read_cache_mib = 0).await else {
        return;
    };
    let path = read_then_rename_outside(&uncached, "Clínica Sem Cache", "Vista na hora").await;
    assert_eq!(uncached.admin_get(&path).await["name"], "Vista na hora");
}

async fn a_facility_write_drops_only_what_depends_on_it(app: TestApp) {
    let (physicist, token) = app.user_with(&["Físico"], "Rui Preciso").await;
    let one = id(&app
        .create_facility(facility_payload("Clínica Precisa Um"))
        .await);
    // Facilities are tracked in buckets by id; one that shares facility one's bucket is archived
    // and made again, so the second facility's answer can only be dropped by a mistake.
    let two = loop {
        let two = id(&app
            .create_facility(facility_payload("Clínica Precisa Dois"))
            .await);
        if bucket_of(&two) != bucket_of(&one) {
            break two;
        }
        app.admin_post_id("/api/facility/exclude", &two).await;
    };
    let eq = equipment(&app, &one, DOSE_CALIBRATOR).await;
    test_type(&app, DOSE_CALIBRATOR, "Exatidão Precisa", 30).await;
    let (one_path, two_path) = (
        format!("/api/facility/{one}"),
        format!("/api/facility/{two}"),
    );
    let search = "/api/facilities?q=precisa";
    let due = format!("/api/equipment/{eq}/tests/due");
    let name_of = async |path: &str| app.admin_get(path).await["name"].clone();
    let due_facility = async || app.admin_get(&due).await["list"][0]["facility"]["name"].clone();
    let search_names = async || -> Vec<String> {
        let answer = app.admin_get(search).await;
        let mut names = list_strs(&answer, "name");
        names.sort();
        names.into_iter().map(str::to_owned).collect()
    };
    // Every answer cached once (the physicist's token user too).
    app.admin_get(&one_path).await;
    app.admin_get(&two_path).await;
    app.admin_get(search).await;
    assert_eq!(due_facility().await, "Clínica Precisa Um");
    app.get_ok("/api/facilities", &token).await;

    // Changes the server does not see, then an edit of facility one's telephone.
    let mut outside = app.outside_connection().await;
    rename_outside(&mut outside, &one, "Um Por Fora").await;
    rename_outside(&mut outside, &two, "Dois Por Fora").await;
    sqlx::query("UPDATE users SET active = FALSE WHERE id = $1")
        .bind(&physicist)
        .execute(&mut outside)
        .await
        .unwrap();
    app.admin_put(
        &format!("{one_path}/edit"),
        json!({"telephone": "(11) 4444-5555"}),
    )
    .await;
    // Dropped: facility one's answer and the lists…
    let edited = app.admin_get(&one_path).await;
    assert_eq!(edited["telephone"], "(11) 4444-5555");
    assert_eq!(edited["name"], "Um Por Fora");
    assert_eq!(search_names().await, ["Dois Por Fora", "Um Por Fora"]);
    // …kept: the other facility, the due list (the telephone is not in it), and on SQLite the
    // token user (on PostgreSQL it is never cached: another instance may have changed it).
    assert_eq!(name_of(&two_path).await, "Clínica Precisa Dois");
    assert_eq!(due_facility().await, "Clínica Precisa Um");
    let token_user_cached = async || match app.backend {
        Backend::Sqlite => {
            app.get_ok("/api/facilities", &token).await;
        }
        Backend::Postgres => app.assert_unauthorized("/api/facilities", &token).await,
    };
    token_user_cached().await;

    // Renaming facility one changes what the due lists show: they are dropped too.
    app.admin_put(
        &format!("{one_path}/edit"),
        json!({"name": "Clínica Precisa Renomeada"}),
    )
    .await;
    assert_eq!(due_facility().await, "Clínica Precisa Renomeada");
    assert_eq!(name_of(&two_path).await, "Clínica Precisa Dois");

    // A new facility changes the lists only.
    app.create_facility(facility_payload("Clínica Precisa Três"))
        .await;
    assert_eq!(app.admin_get(search).await["paging"]["total"], 3);
    assert_eq!(name_of(&two_path).await, "Clínica Precisa Dois");
    token_user_cached().await;

    // Any other write drops everything.
    app.create_group("Rede Precisa").await;
    assert_eq!(name_of(&two_path).await, "Dois Por Fora");
    app.assert_unauthorized("/api/facilities", &token).await;
}

/// Polls `path` on `app` until `done` holds for its answer (other instances learn of a commit
/// through a PostgreSQL notification, a moment later).
async fn eventually(app: &TestApp, path: &str, token: &str, done: impl Fn(u16, &Value) -> bool) {
    let started = Instant::now();
    loop {
        let res = app.get(path, token).await;
        if done(res.status.as_u16(), &res.body) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{path} still answers {} {}",
            res.status,
            res.body
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_on_one_postgres_see_each_others_writes() {
    let Some(first) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let second = first.second_instance(None).await;
    let facility = first
        .create_facility(facility_payload("Clínica Duas Instâncias"))
        .await;
    let path = format!("/api/facility/{}", facility["_id"].as_str().unwrap());
    let token = second.admin.clone();
    second.get_ok(&path, &token).await;
    second.get_ok(&path, &token).await;
    first
        .admin_put(
            &format!("{path}/edit"),
            json!({"telephone": "(31) 3333-4444"}),
        )
        .await;
    eventually(&second, &path, &token, |status, body| {
        status == 200 && body["telephone"] == "(31) 3333-4444"
    })
    .await;

    // A user deactivated through one instance is refused by the other.
    let (user, user_token) = first.user_with(&["Físico"], "Bia Instâncias").await;
    second.get_ok("/api/facilities", &user_token).await;
    first.admin_post_id("/api/exclude/", &user).await;
    eventually(&second, "/api/facilities", &user_token, |status, _| {
        status == 401
    })
    .await;
}

/// Who may make a request is never answered from memory on PostgreSQL: right after a user is
/// deactivated or demoted through one instance, the very next request with their old token on
/// another instance is refused (before that instance hears of the commit), and a demoted user is
/// not served the answers cached for their former role. Several rounds, each warming the other
/// instance's cache with the user's token first. The other instance hears of commits 300 ms late
/// (its notifications pass a lagging relay), so that the notification surely comes after the next
/// request: on one machine it often comes first, and a cache would pass unnoticed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_instance_refuses_a_deactivated_or_demoted_user_at_once() {
    let Some(first) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let relay =
        LateNotifications::start(first.postgres_address(), Duration::from_millis(300)).await;
    let second = first.second_instance(Some(relay.port)).await;
    // A facility no test user is linked to: staff see it, a Cliente does not.
    first
        .create_facility(facility_payload("Clínica Só Equipe"))
        .await;
    let search = "/api/facilities?q=s%C3%B3%20equipe";
    for round in 0..10 {
        let (user, token) = first
            .user_with(&["Físico"], &format!("Saindo {round}"))
            .await;
        for _ in 0..2 {
            second.get_ok(search, &token).await;
        }
        first.admin_post_id("/api/exclude/", &user).await;
        second
            .get(search, &token)
            .await
            .expect_error(401, "unauthorized");

        let (user, token) = first
            .user_with(&["Físico"], &format!("Rebaixado {round}"))
            .await;
        for _ in 0..2 {
            second.get_ok("/api/users", &token).await;
            assert_eq!(second.total(search, &token).await, 1, "staff see it");
        }
        first
            .admin_post("/api/edit/", json!({"_id": user, "roles": ["Cliente"]}))
            .await;
        assert_eq!(
            second.total(search, &token).await,
            0,
            "round {round}: a Cliente served the answer cached for the Físico they were"
        );
        second
            .get("/api/users", &token)
            .await
            .expect_error(403, "permission_denied");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_readers_cannot_write() {
    let app = TestApp::spawn(Backend::Sqlite).await.expect("SQLite app");
    let mut conn = app.state.db.read().await.unwrap();
    let registry_server::db::BackendConn::Sqlite(conn) = conn.backend().await.unwrap() else {
        panic!("a SQLite app reads SQLite");
    };
    let refused = sqlx::query("UPDATE facilities SET name = 'x'")
        .execute(conn)
        .await;
    assert!(
        refused.is_err(),
        "a reader connection wrote, bypassing the generation"
    );
}
