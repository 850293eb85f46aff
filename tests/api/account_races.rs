//! Account changes made at the same moment (black-box audit 3, F1 and F2): each check that reads
//! what a concurrent request is changing still holds, on SQLite and on PostgreSQL.

use crate::common::PASSWORD;
use crate::helpers::{Answer, Backend, TestApp, facility_payload};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    administrators_removing_each_other_at_once_leave_one,
    password_changes_at_once_leave_one_password_and_one_session,
    a_write_whose_sender_is_revoked_while_it_arrives_is_refused,
);

/// Registers an Administrator with `token` and logs them in: `(id, email, token)`.
async fn administrator(app: &TestApp, token: &str, n: usize) -> (String, String, String) {
    let email = format!("admin-{n}@example.com");
    let body = json!({"name": format!("Admin {n}"), "email": email, "password": PASSWORD, "roles": ["Administrator"]});
    let user = app.post_created("/api/register/", token, body).await;
    let token = app.login(&email, PASSWORD).await;
    (user["_id"].as_str().unwrap().to_owned(), email, token)
}

/// The active Administrators, as `token` sees them.
async fn active_administrators(app: &TestApp, token: &str) -> Vec<String> {
    let list = app
        .get_ok("/api/users?role=Administrator&pageSize=200", token)
        .await;
    list["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["active"] == true)
        .map(|u| u["_id"].as_str().unwrap().to_owned())
        .collect()
}

/// Two Administrators, the only two, each deactivating (or demoting) the other at once: one wins
/// and the other is refused (409 as the last Administrator, or 401/403 when it was already
/// removed when its request arrived); never both, which would leave no Administrator at all.
async fn administrators_removing_each_other_at_once_leave_one(app: TestApp) {
    let mut keeper = active_administrators(&app, &app.admin).await[0].clone();
    let mut keeper_token = app.admin.clone();
    for round in 0..8 {
        let (challenger, _, challenger_token) = administrator(&app, &keeper_token, round).await;
        let remove = |token: &str, id: &str| {
            let token = token.to_owned();
            let id = id.to_owned();
            let app = &app;
            async move {
                if round % 2 == 0 {
                    app.post("/api/exclude/", &token, json!({"_id": id})).await
                } else {
                    let body = json!({"_id": id, "roles": ["Físico"]});
                    app.post("/api/edit/", &token, body).await
                }
            }
        };
        let (by_keeper, by_challenger): (Answer, Answer) = tokio::join!(
            remove(&keeper_token, &challenger),
            remove(&challenger_token, &keeper)
        );
        let statuses = [by_keeper.status.as_u16(), by_challenger.status.as_u16()];
        assert_eq!(
            statuses.iter().filter(|&&s| s == 200).count(),
            1,
            "round {round}: {statuses:?} {} {}",
            by_keeper.body,
            by_challenger.body
        );
        let loser = if statuses[0] == 200 {
            &by_challenger
        } else {
            &by_keeper
        };
        let loser_status = loser.status.as_u16();
        assert!(matches!(loser_status, 401 | 403 | 409), "{}", loser.body);
        if loser_status == 409 {
            assert_eq!(loser.body["code"], "conflict", "{}", loser.body);
        }
        if statuses[1] == 200 {
            keeper = challenger;
            keeper_token = challenger_token;
        }
        assert_eq!(
            active_administrators(&app, &keeper_token).await,
            vec![keeper.clone()]
        );
    }
}

async fn change_password(app: &TestApp, token: &str, new: &str) -> Answer {
    let body = json!({"currentPassword": PASSWORD, "newPassword": new});
    app.post("/api/changePassword/", token, body).await
}

/// One user changing their password from two sessions at once, both with the right current
/// password: the first change makes the other's current password wrong (422, as when they come
/// one after the other), only the winner's new password logs in, and only the winner's new
/// token works.
async fn password_changes_at_once_leave_one_password_and_one_session(app: TestApp) {
    for round in 0..4 {
        let (id, first) = app
            .user_with(&["Físico"], &format!("Pass Word {round}"))
            .await;
        let me = app.admin_get(&format!("/api/user/{id}")).await;
        let email = me["email"].as_str().unwrap().to_owned();
        let second = app.login(&email, PASSWORD).await;
        let (a, b) = tokio::join!(
            change_password(&app, &first, "first-new-pass"),
            change_password(&app, &second, "second-new-pass")
        );
        let answers = [(a, "first-new-pass"), (b, "second-new-pass")];
        let winners: Vec<&(Answer, &str)> = answers
            .iter()
            .filter(|(a, _)| a.status.as_u16() == 200)
            .collect();
        assert_eq!(
            winners.len(),
            1,
            "round {round}: {} / {}",
            answers[0].0.body,
            answers[1].0.body
        );
        let (won, won_password) = winners[0];
        let (lost, lost_password) = answers
            .iter()
            .find(|(a, _)| a.status.as_u16() != 200)
            .unwrap();
        // Refused by the check of the current password, or (arriving after the change) as a
        // session the change ended.
        if lost.status.as_u16() == 422 {
            assert!(
                lost.has_field_error("currentPassword", "invalid_value"),
                "{}",
                lost.body
            );
        } else {
            assert_eq!(lost.status.as_u16(), 401, "{}", lost.body);
        }
        let fresh = won.body["token"].as_str().unwrap();
        app.get_ok("/api/facilities", fresh).await;
        for old in [&first, &second] {
            app.assert_unauthorized("/api/facilities", old).await;
        }
        app.login(&email, won_password).await;
        let refused = app
            .post_anon(
                "/api/login/",
                json!({"email": email, "password": lost_password}),
            )
            .await;
        assert_eq!(refused.status.as_u16(), 401, "{}", refused.body);
    }
}

/// A write whose body is still arriving when its sender is deactivated, demoted or has their
/// password set by an Administrator is refused (401, or 403 for new roles) and stores nothing:
/// the sender's account is judged again in the write's transaction (audit of stop 40), not only
/// when the request's headers came. The same for a user edit, which judges the sender's roles as
/// they now are.
async fn a_write_whose_sender_is_revoked_while_it_arrives_is_refused(app: TestApp) {
    let (client, _) = app.user_with(&["Cliente"], "Cliente Em Voo").await;
    let revocations = ["deactivate", "demote", "password"];
    for (n, revoke) in revocations.into_iter().enumerate() {
        for write in ["group", "user"] {
            let email = format!("in-flight-{n}-{write}@example.com");
            let body = json!({"name": format!("In Flight {n}"), "email": email, "password": PASSWORD, "roles": ["Físico"]});
            let user = app.post_created("/api/register/", &app.admin, body).await;
            let id = user["_id"].as_str().unwrap().to_owned();
            let token = app.login(&email, PASSWORD).await;
            let name = format!("Em voo {n} {write}");
            let (path, payload) = match write {
                "group" => ("/api/group/register", json!({"name": name})),
                _ => ("/api/edit/", json!({"_id": client, "name": name})),
            };
            let revocation = match revoke {
                "deactivate" => ("/api/exclude/", json!({"_id": id})),
                "demote" => ("/api/edit/", json!({"_id": id, "roles": ["Cliente"]})),
                _ => (
                    "/api/changePassword/",
                    json!({"_id": id, "newPassword": "Another-pass-123"}),
                ),
            };
            let status = sent_while_revoked(&app, &token, path, payload, revocation).await;
            // A demoted sender of a user edit no longer manages users: the user is not found
            // for them, as for any `Cliente`.
            let expected = match (revoke, write) {
                ("demote", "group") => 403,
                ("demote", _) => 404,
                _ => 401,
            };
            assert_eq!(status, expected, "{revoke} {write}");
            let written = [
                app.get_ok("/api/group?pageSize=200", &app.admin).await,
                app.admin_get(&format!("/api/user/{client}")).await,
            ];
            assert!(
                !json!(written).to_string().contains(&name),
                "{revoke} {write}"
            );
        }
    }
    // One's own password change whose session ends meanwhile: 401, and the password stays.
    for (n, revoke) in ["deactivate", "password"].into_iter().enumerate() {
        let email = format!("own-password-{n}@example.com");
        let body = json!({"name": "Own Password", "email": email, "password": PASSWORD, "roles": ["Físico"]});
        let id = app.post_created("/api/register/", &app.admin, body).await["_id"].clone();
        let token = app.login(&email, PASSWORD).await;
        let (revocation, kept) = match revoke {
            "deactivate" => (("/api/exclude/", json!({"_id": id})), PASSWORD),
            _ => {
                let set = json!({"_id": id, "newPassword": "Set-by-admin-123"});
                (("/api/changePassword/", set), "Set-by-admin-123")
            }
        };
        let change = json!({"currentPassword": PASSWORD, "newPassword": "Own-new-pass-123"});
        let status =
            sent_while_revoked(&app, &token, "/api/changePassword/", change, revocation).await;
        assert_eq!(status, 401, "{revoke}");
        if revoke == "deactivate" {
            app.admin_post("/api/edit/", json!({"_id": id, "active": true}))
                .await;
        }
        app.login(&email, kept).await;
    }
}

/// The status of a POST of `payload` to `path` by `token` whose body is held back until the
/// Administrator has made the `revocation` (path, body).
async fn sent_while_revoked(
    app: &TestApp,
    token: &str,
    path: &str,
    payload: serde_json::Value,
    revocation: (&str, serde_json::Value),
) -> u16 {
    let payload = payload.to_string().into_bytes();
    let (first, rest) = payload.split_at(5);
    let (send, receive) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(2);
    send.send(Ok(first.to_vec())).await.unwrap();
    let chunks = futures::stream::unfold(receive, |mut receive| async move {
        receive.recv().await.map(|chunk| (chunk, receive))
    });
    let request = reqwest::Client::new()
        .post(app.url(path))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(chunks))
        .send();
    let pending = tokio::spawn(request);
    // Long enough for the headers to be judged with the account as it was.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    app.admin_post(revocation.0, revocation.1).await;
    send.send(Ok(rest.to_vec())).await.unwrap();
    drop(send);
    pending.await.unwrap().unwrap().status().as_u16()
}

/// A facility create waits for the ranks lock that every create, archive and department move
/// takes (PostgreSQL; on SQLite writes run one at a time). Its sender is judged after that wait
/// (regression audit of stop 41): deactivated while the create was queued, the create is 401
/// and nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_queued_for_the_ranks_lock_judges_its_sender_after_the_wait() {
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let email = "queued-creator@example.com";
    let body = json!({"name": "Queued Creator", "email": email, "password": PASSWORD, "roles": ["Físico"]});
    let id = app.post_created("/api/register/", &app.admin, body).await["_id"].clone();
    let token = app.login(email, PASSWORD).await;
    // Another writer holds the ranks lock (`store::Writers::Ranks`) until it commits.
    let mut other = app.outside_connection().await;
    for sql in ["BEGIN", "SELECT pg_advisory_xact_lock(7306110372957181001)"] {
        sqlx::query(sql).execute(&mut other).await.unwrap();
    }
    let create = tokio::spawn({
        let request = reqwest::Client::new()
            .post(app.url("/api/facility/register/"))
            .bearer_auth(&token)
            .json(&facility_payload("Criada Na Fila"));
        async move { request.send().await.unwrap().status().as_u16() }
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    app.admin_post("/api/exclude/", json!({"_id": id})).await;
    sqlx::query("COMMIT").execute(&mut other).await.unwrap();
    assert_eq!(create.await.unwrap(), 401);
    let listed = app.admin_get("/api/facilities?q=criada").await;
    assert_eq!(listed["paging"]["total"], 0, "{listed}");
}
