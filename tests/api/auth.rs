use crate::helpers::{
    ADMIN_EMAIL, ADMIN_PASSWORD, Backend, PASSWORD, TestApp, eventually, outbox, recovery_code_in,
};
use crate::on_both_databases;
use base64::Engine;
use serde_json::{Value, json};

on_both_databases!(
    login_gives_a_token_with_the_documented_claims,
    wrong_email_and_wrong_password_look_the_same,
    repeated_failed_logins_are_rate_limited,
    password_change_ends_older_tokens,
    deactivated_users_are_locked_out,
    register_grants_only_what_the_caller_may,
    password_recovery_by_mail,
    recovery_codes_end_with_an_address_change_or_a_deactivation,
);

fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

async fn login_gives_a_token_with_the_documented_claims(app: TestApp) {
    let res = app
        .post_anon(
            "/api/login",
            // Read as registration reads it: case aside, and the blanks around it (a zero-width
            // space, a byte-order mark pasted with it) too.
            json!({"email": "\u{200b}ADMIN@example.com\u{feff} ", "password": ADMIN_PASSWORD}),
        )
        .await
        .expect(200);
    assert_eq!(res["user"]["email"], ADMIN_EMAIL);
    assert_eq!(res["user"]["roles"], json!(["Administrator"]));
    assert!(
        !res.to_string().contains("password"),
        "no password or hash in the answer: {res}"
    );
    let c = claims(res["token"].as_str().unwrap());
    assert_eq!(c["sub"], res["user"]["_id"]);
    assert_eq!(c["id"], res["user"]["_id"]);
    assert_eq!(c["email"], ADMIN_EMAIL);
    assert_eq!(c["type"], "Administrator");
    assert_eq!(c["roles"], json!(["Administrator"]));
    assert!(c["exp"].as_i64().unwrap() > chrono::Utc::now().timestamp());
    app.post_anon("/api/login/", json!({"email": ADMIN_EMAIL}))
        .await
        .expect_error(422, "validation_failed");
    // The scheme's name is case-insensitive (RFC 9110 §11.1); another scheme is refused.
    let token = res["token"].as_str().unwrap();
    for (scheme, status) in [
        ("BEARER", 200),
        ("BeArEr", 200),
        ("bearer", 200),
        ("Basic", 401),
    ] {
        let got = app
            .client
            .get(app.url("/api/users"))
            .header("authorization", format!("{scheme} {token}"))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(got.as_u16(), status, "{scheme}");
    }
    // Two Authorization headers are one too many, whichever holds the token.
    for second in ["Bearer forged", &format!("Bearer {token}")] {
        let res = app
            .client
            .get(app.url("/api/users"))
            .header("authorization", format!("Bearer {token}"))
            .header("authorization", second)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 401, "{second}");
    }
}

async fn wrong_email_and_wrong_password_look_the_same(app: TestApp) {
    let a = app
        .post_anon(
            "/api/login/",
            json!({"email": ADMIN_EMAIL, "password": "wrong-password"}),
        )
        .await;
    let b = app
        .post_anon(
            "/api/login/",
            json!({"email": "nobody@example.com", "password": "wrong-password"}),
        )
        .await;
    let a = a.expect_error(401, "unauthorized").body;
    let b = b.expect_error(401, "unauthorized").body;
    assert_eq!(a, b);
    // A password past the policy's 256 characters is refused before any check (docs/decisions.md).
    app.post_anon(
        "/api/login/",
        json!({"email": ADMIN_EMAIL, "password": "x".repeat(257)}),
    )
    .await
    .expect_field_error("password", "invalid_value");
}

async fn repeated_failed_logins_are_rate_limited(app: TestApp) {
    let (_, _) = app.user_with(&["Cliente"], "Target").await;
    let attempt = |password: &'static str| {
        app.post_anon(
            "/api/login/",
            json!({"email": ADMIN_EMAIL, "password": password}),
        )
    };
    for _ in 0..5 {
        attempt("wrong-password")
            .await
            .expect_error(401, "unauthorized");
    }
    let blocked = attempt(ADMIN_PASSWORD).await;
    let retry: u64 = blocked.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 0 && retry <= 15 * 60);
    blocked.expect_error(429, "rate_limited");

    // Guessing the current password through a token counts against the account the same way.
    let (_, token) = app.user_with(&["Físico"], "Guessed").await;
    let guess = |current: String| {
        app.post(
            "/api/changePassword/",
            &token,
            json!({"currentPassword": current, "newPassword": "another-password-1"}),
        )
    };
    // One past the policy's length is refused unread: it is no attempt.
    for _ in 0..6 {
        let refused = guess("x".repeat(257))
            .await
            .expect_field_error("currentPassword", "invalid_value");
        assert_eq!(refused.body["errors"].as_array().map(Vec::len), Some(1));
    }
    for _ in 0..5 {
        guess("wrong-password".into())
            .await
            .expect_field_error("currentPassword", "invalid_value");
    }
    guess(PASSWORD.into())
        .await
        .expect_error(429, "rate_limited");
}

async fn password_change_ends_older_tokens(app: TestApp) {
    let (id, old_token) = app.user_with(&["Físico"], "Fis Ico").await;
    let change = |current: &str, new: &str| {
        let body = json!({"currentPassword": current, "newPassword": new});
        app.post("/api/changePassword/", &old_token, body)
    };
    change("not-it-at-all", "new-password-1")
        .await
        .expect_field_error("currentPassword", "invalid_value");
    change(PASSWORD, "short")
        .await
        .expect_field_error("newPassword", "weak_password");
    // An `_id` that is not a string is a field error, not read as a change of one's own.
    app.post(
        "/api/changePassword/",
        &old_token,
        json!({"_id": 5, "newPassword": "short"}),
    )
    .await
    .expect_field_errors(&[("_id", "invalid_value"), ("newPassword", "weak_password")]);
    // A blank `_id` names nobody else: the caller's own change, which needs the current password.
    let blank = json!({"_id": " ", "newPassword": "new-password-1"});
    app.post("/api/changePassword/", &old_token, blank)
        .await
        .expect_field_error("currentPassword", "required");
    // Both at once when both fail.
    change("not-it-at-all", "short")
        .await
        .expect_field_errors(&[
            ("currentPassword", "invalid_value"),
            ("newPassword", "weak_password"),
        ]);
    let res = change(PASSWORD, "new-password-1").await.expect(200);
    let fresh = res["token"].as_str().unwrap().to_owned();
    app.assert_unauthorized("/api/facilities", &old_token).await;
    app.get_ok("/api/facilities", &fresh).await;
    // The snake_case alias works; a non-Administrator may not set someone else's password.
    let (other, other_token) = app.user_with(&["Admin"], "Adm In").await;
    app.assert_post_denied(
        "/api/change_password/",
        &fresh,
        json!({"_id": other, "newPassword": "whatever-123"}),
    )
    .await;
    // An Administrator may, and that user's tokens end too.
    app.admin_post(
        "/api/change_password",
        json!({"_id": other, "newPassword": "set-by-admin-1"}),
    )
    .await;
    app.assert_unauthorized("/api/facilities", &other_token)
        .await;
    let email = email_of(&app, &other).await;
    app.login(&email, "set-by-admin-1").await;
    let _ = id;
}

async fn deactivated_users_are_locked_out(app: TestApp) {
    let (id, token) = app.user_with(&["Laudos"], "Lau Dos").await;
    let email = email_of(&app, &id).await;
    app.admin_post_id("/api/exclude/", &id).await;
    app.assert_unauthorized("/api/facilities", &token).await;
    app.post_anon("/api/login/", json!({"email": email, "password": PASSWORD}))
        .await
        .expect_error(401, "unauthorized");
    // History is kept: the user is still there, inactive.
    assert_eq!(
        app.admin_get(&format!("/api/user/{id}")).await["active"],
        false
    );
    // The last active Administrator cannot be deactivated.
    let me = app.admin_get("/api/users?role=Administrator").await["list"][0]["_id"].clone();
    app.post_id("/api/exclude/", &app.admin, &me)
        .await
        .expect_error(409, "conflict");
}

async fn register_grants_only_what_the_caller_may(app: TestApp) {
    let anon = |body: Value| app.post_anon("/api/register/", body);
    // Self-registration answers 202 without the user (tests/api/abuse.rs: it must not tell
    // whether the address already had an account); the new user logs in to see themself.
    anon(json!({"name": "Self Made", "email": "Self@Example.com", "password": PASSWORD}))
        .await
        .expect(202);
    let me = app
        .post_anon(
            "/api/login/",
            json!({"email": "self@example.com", "password": PASSWORD}),
        )
        .await
        .expect(200)["user"]
        .clone();
    assert_eq!(me["roles"], json!(["Cliente"]));
    assert_eq!(me["email"], "self@example.com");
    assert_eq!(me["active"], true);
    assert!(me.get("password").is_none() && me.get("password_hash").is_none());
    anon(json!({"name": "Sneaky", "email": "sneaky@example.com", "password": PASSWORD, "roles": ["Administrator"]})).await.expect_error(403, "permission_denied");
    // Permission before validation: a role that may not be granted is a 403 whatever else fails.
    anon(json!({"name": "x", "email": "bad", "password": "p", "roles": ["Administrator"]}))
        .await
        .expect_error(403, "permission_denied");
    anon(json!({"email": "ok@example.com", "roles": ["Cliente", "Administrator"]}))
        .await
        .expect_error(403, "permission_denied");
    // Malformed roles stay field errors.
    anon(json!({"email": "bad", "roles": ["Chefe"]}))
        .await
        .expect_field_errors(&[
            ("name", "required"),
            ("email", "invalid_email"),
            ("password", "required"),
            ("roles[0]", "invalid_value"),
        ]);
    anon(json!({"email": "bad", "password": "short"}))
        .await
        .expect_field_errors(&[
            ("name", "required"),
            ("email", "invalid_email"),
            ("password", "weak_password"),
        ]);
    // Staff other than Administrator may create only Cliente users; a Cliente none.
    for role in ["Admin", "Físico", "Laudos"] {
        let (_, token) = app.user_with(&[role], &format!("Grantor {role}")).await;
        let ok = json!({"name": "C", "email": format!("c-{}@example.com", role.len()), "password": PASSWORD, "roles": ["Cliente"]});
        let mut ok = ok;
        ok["email"] = json!(format!(
            "client-by-{}@example.com",
            role.to_lowercase().replace('í', "i")
        ));
        app.post_created("/api/register/", &token, ok).await;
        let bad = json!({"name": "F", "email": format!("f-by-{}@example.com", role.len()), "password": PASSWORD, "roles": ["Físico"]});
        app.post("/api/register/", &token, bad)
            .await
            .expect_error(403, "permission_denied");
    }
    let (_, client) = app.user_with(&["Cliente"], "Plain Client").await;
    app.assert_post_denied(
        "/api/register/",
        &client,
        json!({"name": "X", "email": "x@example.com", "password": PASSWORD}),
    )
    .await;
    let admin = app.post("/api/register/", &app.admin, json!({"name": "Adm", "email": "adm@example.com", "password": PASSWORD, "roles": ["Admin", "Físico"]})).await;
    assert_eq!(admin.expect(201)["roles"], json!(["Admin", "Físico"]));
    // Facility side or staff, not both.
    app.post("/api/register/", &app.admin, json!({"name": "Both", "email": "both@example.com", "password": PASSWORD, "roles": ["Cliente", "Admin"]}))
        .await
        .expect_field_error("roles", "invalid_value");
    // Staff may register an account already deactivated; it cannot log in.
    let off = app.post("/api/register/", &app.admin, json!({"name": "Off", "email": "off@example.com", "password": PASSWORD, "active": false})).await;
    assert_eq!(off.expect(201)["active"], false);
    app.post_anon(
        "/api/login/",
        json!({"email": "off@example.com", "password": PASSWORD}),
    )
    .await
    .expect_error(401, "unauthorized");
    anon(json!({"name": "Self Off", "email": "self.off@example.com", "password": PASSWORD, "active": false}))
        .await
        .expect(202);
    app.post_anon(
        "/api/login/",
        json!({"email": "self.off@example.com", "password": PASSWORD}),
    )
    .await
    .expect(200);
    // The deployer can turn self-registration off: registering then takes a staff token (401
    // without one, with the challenge), and a staff token still registers.
    if let Some(closed) = TestApp::spawn_with(app.backend, |c| c.self_registration = false).await {
        let refused = closed
            .post_anon(
                "/api/register/",
                json!({"name": "N", "email": "n@example.com", "password": PASSWORD}),
            )
            .await
            .expect_error(401, "unauthorized");
        assert_eq!(refused.headers["www-authenticate"], "Bearer");
        closed
            .post_created(
                "/api/register/",
                &closed.admin,
                json!({"name": "N", "email": "n@example.com", "password": PASSWORD}),
            )
            .await;
    }
    let _ = Backend::Sqlite;
}

async fn password_recovery_by_mail(app: TestApp) {
    let (id, _) = app.user_with(&["Cliente"], "Forgetful").await;
    let email = email_of(&app, &id).await;
    let unknown = app
        .post_anon(
            "/api/password_recover/",
            json!({"email": "nobody@example.com"}),
        )
        .await;
    let known = app
        .post_anon(
            "/api/password_recover/",
            json!({"email": format!("\u{200b}{email}")}),
        )
        .await;
    assert_eq!(unknown.status, 202);
    assert_eq!(known.status, 202);
    assert_eq!(unknown.body, known.body, "no account enumeration");
    // Sent in the background, a moment after the answer.
    eventually("the recovery mail", || outbox(&app), |m| !m.is_empty()).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let mails = outbox(&app);
    assert_eq!(mails.len(), 1, "exactly one mail, for the known address");
    assert!(mails[0].contains(&email));
    assert!(mails[0].contains("Message-ID: <"), "{}", mails[0]);
    assert!(
        mails[0].contains("@localhost>"),
        "in the sender's domain: {}",
        mails[0]
    );
    // The CLI command the mail gives is the one that exists (audit of stop 36).
    assert!(
        mails[0].contains("registry user reset-password --code <code>"),
        "{}",
        mails[0]
    );
    let token = recovery_code_in(&mails[0]).expect("token in mail");
    // A second code, asked for before the first is used, ends when the password is set.
    app.post_anon("/api/password_recover/", json!({"email": email}))
        .await
        .expect(202);
    let mails = eventually("the second mail", || outbox(&app), |m| m.len() == 2).await;
    let second = mails
        .iter()
        .filter_map(|m| recovery_code_in(m))
        .find(|code| *code != token)
        .expect("a second code");
    let set = |t: &str, p: &str| {
        app.post_anon(
            "/api/password_recover/",
            json!({"token": t, "newPassword": p}),
        )
    };
    set("0".repeat(64).as_str(), "recovered-pass-1")
        .await
        .expect_field_error("token", "invalid_value");
    // A bad code and a weak password are named together; a weak password leaves a good code
    // unused.
    set("0".repeat(64).as_str(), "short")
        .await
        .expect_field_errors(&[("token", "invalid_value"), ("newPassword", "weak_password")]);
    let weak = set(&token, "short").await;
    weak.assert_field_errors(&[("newPassword", "weak_password")]);
    assert!(
        !weak.has_field_error("token", "invalid_value"),
        "{}",
        weak.body
    );
    set(&token, "recovered-pass-1").await.expect(200);
    app.login(&email, "recovered-pass-1").await;
    set(&token, "recovered-pass-2")
        .await
        .expect_error(422, "validation_failed");
    set(&second, "recovered-pass-3")
        .await
        .expect_field_error("token", "invalid_value");
}

/// The e-mail of user `id`, read by the Administrator.
async fn email_of(app: &TestApp, id: &str) -> String {
    let user = app.admin_get(&format!("/api/user/{id}")).await;
    user["email"].as_str().unwrap().to_owned()
}

/// A code mailed before the account's address changed, or before it was deactivated, no longer
/// opens it (reactivated or not); the old address is told of the change.
async fn recovery_codes_end_with_an_address_change_or_a_deactivation(app: TestApp) {
    let (id, _) = app.user_with(&["Cliente"], "Mudou").await;
    let (_, admin_role) = app.user_with(&["Admin"], "Equipe").await;
    let email = app.admin_get(&format!("/api/user/{id}")).await["email"]
        .as_str()
        .unwrap()
        .to_owned();
    let code_for = |n: usize| {
        let app = &app;
        let email = email.clone();
        async move {
            app.post_anon("/api/password_recover/", json!({"email": email}))
                .await
                .expect(202);
            let codes = || {
                outbox(app)
                    .iter()
                    .filter_map(|m| recovery_code_in(m))
                    .collect()
            };
            eventually("the recovery mail", codes, |c: &Vec<_>| c.len() >= n).await
        }
    };
    let set = |code: String| {
        app.post_anon(
            "/api/password_recover/",
            json!({"token": code, "newPassword": "recovered-pass-9"}),
        )
    };
    // Deactivated, then reactivated: the code sent before is void.
    let void = code_for(1).await;
    app.admin_post_id("/api/exclude/", &id).await;
    app.admin_post("/api/edit/", json!({"_id": id, "active": true}))
        .await;
    set(void[0].clone())
        .await
        .expect_field_error("token", "invalid_value");
    // The address changed by staff: the code sent to the old one is void, and the old one is told.
    let fresh = code_for(2)
        .await
        .into_iter()
        .find(|c| *c != void[0])
        .unwrap();
    app.post(
        "/api/edit/",
        &admin_role,
        json!({"_id": id, "email": "outro.endereco@example.com"}),
    )
    .await
    .expect(200);
    set(fresh)
        .await
        .expect_field_error("token", "invalid_value");
    let mails = eventually(
        "the change notice",
        || outbox(&app),
        |m| m.iter().any(|m| m.contains("outro.endereco@example.com")),
    )
    .await;
    let notice = mails
        .iter()
        .find(|m| m.contains("outro.endereco@example.com"))
        .unwrap();
    assert!(notice.contains(&format!("To: {email}")), "{notice}");
    assert!(notice.contains("Equipe"), "names who changed it: {notice}");
}
