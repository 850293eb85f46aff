//! Abuse limits (issue 11): parallel password guesses, per-client limits, the per-account delay,
//! recovery throttling, registration that does not reveal accounts, connection timeouts, and the
//! token and download hardening. Each test starts its own server with the limits it exercises.

use crate::documents::{new_facility, pdf, upload};
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, Answer, Backend, PASSWORD, TestApp};
use crate::on_both_backends;
use base64::Engine;
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

on_both_backends!(
    parallel_wrong_passwords_check_at_most_the_allowed_number,
    one_client_address_meets_a_login_limit,
    failed_logins_slow_the_account_without_locking_the_owner_out,
    password_recovery_is_throttled_per_client_and_per_address,
    anonymous_registration_is_limited_per_client,
    anonymous_registration_does_not_reveal_accounts,
    half_sent_requests_and_idle_connections_are_closed,
    downloads_are_not_sniffed,
    tokens_issued_in_the_future_are_refused,
    forgotten_login_counts_are_dropped,
    parallel_successful_logins_of_one_account_all_pass,
);

/// A client whose connections come from another loopback address: another client to the server.
fn other_client() -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap()
}

#[track_caller]
fn expect_rate_limited(answer: Answer) -> u64 {
    let retry: u64 = answer
        .headers
        .get("retry-after")
        .unwrap_or_else(|| panic!("429 without Retry-After: {}", answer.body))
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1, "Retry-After {retry}");
    answer.expect_error(429, "rate_limited");
    retry
}

async fn login(app: &TestApp, email: &str, password: &str) -> Answer {
    app.post_anon("/api/login/", json!({"email": email, "password": password}))
        .await
}

/// Registers a `Cliente` with a known e-mail address (as the Administrator).
async fn client_user(app: &TestApp, email: &str) -> String {
    let body = json!({"name": "Owner", "email": email, "password": PASSWORD});
    app.post("/api/register/", &app.admin, body)
        .await
        .expect(201)["_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The raw messages in the mail outbox.
fn outbox(app: &TestApp) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(app.data_dir.path().join("outbox")) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// The recovery code of the newest recovery mail to `email`.
fn recovery_code(app: &TestApp, email: &str) -> String {
    outbox(app)
        .iter()
        .filter(|m| m.contains(email) && m.contains("recovery code"))
        .flat_map(|m| {
            m.lines()
                .map(str::trim)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .find(|l| l.len() == 64 && l.chars().all(|c| c.is_ascii_hexdigit()))
        .expect("a recovery code in the outbox")
}

async fn parallel_wrong_passwords_check_at_most_the_allowed_number(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.limits.login_delay = Duration::from_secs(600);
    })
    .await
    else {
        return;
    };
    let allowed = app.state.config.limits.login_free_failures as usize;
    let guesses: Vec<String> = (0..40).map(|i| format!("guess-{i}-wrong")).collect();
    let answers =
        futures::future::join_all(guesses.iter().map(|g| login(&app, ADMIN_EMAIL, g))).await;
    let checked: Vec<&Answer> = answers.iter().filter(|a| a.status != 429).collect();
    assert!(
        checked.len() <= allowed,
        "{} of 40 parallel guesses were checked; at most {allowed} may be",
        checked.len()
    );
    assert!(checked.iter().all(|a| a.status == 401));
    for a in answers.into_iter().filter(|a| a.status == 429) {
        expect_rate_limited(a);
    }
    // The right password waits too: the account is slowed down, whoever asks.
    expect_rate_limited(login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await);
}

async fn one_client_address_meets_a_login_limit(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.limits.login_failures_per_client_per_minute = 10;
    })
    .await
    else {
        return;
    };
    // Successful logins take nothing from the client's allowance.
    for _ in 0..15 {
        login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await.expect(200);
    }
    // Different e-mail addresses each time: the per-account rule never triggers.
    let start = Instant::now();
    let mut answers = Vec::new();
    for i in 0..16 {
        answers.push(login(&app, &format!("probe-{i}@example.com"), "wrong-password").await);
    }
    // 10 failures at once (successful logins, such as the Administrator's at start, take
    // nothing), then one every 6 s.
    let allowed = 10 + (start.elapsed().as_secs() / 6) as usize;
    let checked = answers.iter().filter(|a| a.status == 401).count();
    assert!(
        checked <= allowed,
        "{checked} checked, at most {allowed} allowed"
    );
    let refused = answers.iter().filter(|a| a.status == 429).count();
    assert_eq!(checked + refused, 16);
    assert!(refused >= 16 - allowed, "only {refused} of 16 were refused");
    expect_rate_limited(answers.pop().unwrap());
    // The same client cannot log in even with the right password until the limit refills...
    expect_rate_limited(login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await);
    // ...but another client address can.
    let other = other_client();
    app.call_as(
        &other,
        Method::POST,
        "/api/login/",
        None,
        Some(&json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})),
    )
    .await
    .expect(200);
}

async fn failed_logins_slow_the_account_without_locking_the_owner_out(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.limits.login_free_failures = 2;
        c.limits.login_delay = Duration::from_secs(3);
        c.limits.login_max_delay = Duration::from_secs(6);
    })
    .await
    else {
        return;
    };
    let email = "owner@example.com";
    let id = client_user(&app, email).await;
    let fail_twice = || async {
        for _ in 0..2 {
            login(&app, email, "wrong-password")
                .await
                .expect_error(401, "unauthorized");
        }
    };
    fail_twice().await;
    // After the free failures, the next attempt waits the first delay...
    let wait = expect_rate_limited(login(&app, email, PASSWORD).await);
    assert!(wait <= 3, "first delay {wait}");
    tokio::time::sleep(Duration::from_secs(wait) + Duration::from_millis(300)).await;
    // ...then is checked; a further failure doubles the delay (up to the maximum).
    login(&app, email, "wrong-password")
        .await
        .expect_error(401, "unauthorized");
    let wait = expect_rate_limited(login(&app, email, PASSWORD).await);
    assert!((4..=6).contains(&wait), "second delay {wait}");
    // The owner is slowed down, never locked out: after the delay the right password works.
    tokio::time::sleep(Duration::from_secs(wait) + Duration::from_millis(300)).await;
    login(&app, email, PASSWORD).await.expect(200);
    // A success cleared the failures: two free failures again.
    fail_twice().await;
    expect_rate_limited(login(&app, email, PASSWORD).await);
    // An Administrator clears the delay by (re)activating the account.
    app.post("/api/edit/", &app.admin, json!({"_id": id, "active": true}))
        .await
        .expect(200);
    login(&app, email, PASSWORD).await.expect(200);
    // So does a successful password recovery.
    fail_twice().await;
    expect_rate_limited(login(&app, email, PASSWORD).await);
    app.post_anon("/api/password_recover/", json!({"email": email}))
        .await
        .expect(202);
    let code = recovery_code(&app, email);
    app.post_anon(
        "/api/password_recover/",
        json!({"token": code, "newPassword": "recovered-pass-1"}),
    )
    .await
    .expect(200);
    login(&app, email, "recovered-pass-1").await.expect(200);
}

async fn password_recovery_is_throttled_per_client_and_per_address(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.limits.recovery_per_client_per_hour = 4;
        c.limits.mails_per_address_per_hour = 2;
    })
    .await
    else {
        return;
    };
    let email = "forgetful@example.com";
    client_user(&app, email).await;
    let ask = |client: reqwest::Client, email: &'static str| {
        let app = &app;
        async move {
            app.call_as(
                &client,
                Method::POST,
                "/api/password_recover/",
                None,
                Some(&json!({"email": email})),
            )
            .await
        }
    };
    let mut bodies = Vec::new();
    for _ in 0..4 {
        bodies.push(ask(app.client.clone(), email).await.expect(202));
    }
    // One client address: refused past its hourly allowance, whatever the address asked for.
    expect_rate_limited(ask(app.client.clone(), "nobody@example.com").await);
    expect_rate_limited(
        app.post_anon(
            "/api/password_recover/",
            json!({"token": "0".repeat(64), "newPassword": "whatever-123"}),
        )
        .await,
    );
    // Another client is answered the same, but the address gets no more than its allowance of
    // mails, so the owner cannot be flooded (and the codes already sent stay valid).
    bodies.push(ask(other_client(), email).await.expect(202));
    bodies.push(ask(other_client(), "nobody@example.com").await.expect(202));
    assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{bodies:?}");
    let mails = outbox(&app)
        .into_iter()
        .filter(|m| m.contains(email))
        .count();
    assert_eq!(mails, 2, "recovery mails to one address per hour");
}

async fn anonymous_registration_is_limited_per_client(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.limits.register_per_client_per_hour = 2;
    })
    .await
    else {
        return;
    };
    let me = |i: u32| json!({"name": "Self Made", "email": format!("self-{i}@example.com"), "password": PASSWORD});
    for i in 0..2 {
        app.post_anon("/api/register/", me(i)).await.expect(202);
    }
    expect_rate_limited(app.post_anon("/api/register/", me(2)).await);
    // Staff registrations are not limited.
    for i in 3..6 {
        app.post("/api/register/", &app.admin, me(i))
            .await
            .expect(201);
    }
    // Another client address has its own allowance.
    app.call_as(
        &other_client(),
        Method::POST,
        "/api/register/",
        None,
        Some(&me(6)),
    )
    .await
    .expect(202);
}

async fn anonymous_registration_does_not_reveal_accounts(backend: Backend) {
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    let anon = |email: &str, password: &str| {
        app.post_anon(
            "/api/register/",
            json!({"name": "Some One", "email": email, "password": password}),
        )
    };
    let new = anon("newcomer@example.com", PASSWORD).await.expect(202);
    let taken = anon(&ADMIN_EMAIL.to_uppercase(), "attackers-password")
        .await
        .expect(202);
    assert_eq!(
        new, taken,
        "the same answer whether or not the address has an account"
    );
    assert!(new.to_string().contains("e-mail"), "{new}");
    // The newcomer's account exists and works; the existing account is untouched...
    login(&app, "newcomer@example.com", PASSWORD)
        .await
        .expect(200);
    login(&app, ADMIN_EMAIL, "attackers-password")
        .await
        .expect_error(401, "unauthorized");
    login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await.expect(200);
    // ...and its owner is told by e-mail (sent in the background).
    let mut told = false;
    for _ in 0..50 {
        told = outbox(&app)
            .iter()
            .any(|m| m.contains(ADMIN_EMAIL) && m.contains("already has an account"));
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(told, "the owner of the address is told by e-mail");
    // Staff still get the conflict, which they need to do their work.
    app.post(
        "/api/register/",
        &app.admin,
        json!({"name": "Dup", "email": "newcomer@example.com", "password": PASSWORD}),
    )
    .await
    .expect_error(409, "conflict");
}

/// How long until the server closes the connection (reading and dropping whatever it sends), or
/// `None` when it is still open after `limit`.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at((start + limit).into(), stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(start.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

async fn half_sent_requests_and_idle_connections_are_closed(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.limits.read_timeout = Duration::from_secs(1);
        c.limits.body_timeout = Duration::from_secs(1);
    })
    .await
    else {
        return;
    };
    let addr = app.base.trim_start_matches("http://").to_owned();
    let limit = Duration::from_secs(5);
    // Half a request line and headers.
    let mut half = TcpStream::connect(&addr).await.unwrap();
    half.write_all(b"POST /api/login/ HTTP/1.1\r\nHost: registry\r\nContent-Le")
        .await
        .unwrap();
    assert!(
        closed_within(&mut half, limit).await.is_some(),
        "a half-sent request head is still open after {limit:?}"
    );
    // A complete head, half a body.
    let mut body = TcpStream::connect(&addr).await.unwrap();
    body.write_all(
        b"POST /api/login/ HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\": ",
    )
    .await
    .unwrap();
    assert!(
        closed_within(&mut body, limit).await.is_some(),
        "a half-sent body is still open after {limit:?}"
    );
    // A kept-alive connection that goes idle after its answer.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: registry\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(
        closed_within(&mut idle, limit).await.is_some(),
        "an idle kept-alive connection is still open after {limit:?}"
    );
    // A prompt client is unaffected.
    app.get("/api/users", &app.admin).await.expect(200);
}

async fn downloads_are_not_sniffed(backend: Backend) {
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    let facility = new_facility(&app, "Clínica Nosniff").await;
    let doc = upload(&app, &app.admin, &facility, pdf(1000, 3), &[])
        .await
        .expect(201);
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(png).file_name("logo.png"),
    );
    let res = reqwest::Client::new()
        .post(app.url(&format!("/api/facility/{facility}/logo")))
        .bearer_auth(&app.admin)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    for path in [
        format!("/api/document/{}/file", doc["_id"].as_str().unwrap()),
        format!("/api/facility/{facility}/logo"),
    ] {
        let res = app
            .client
            .get(app.url(&path))
            .bearer_auth(&app.admin)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(
            res.headers()
                .get("x-content-type-options")
                .map(|v| v.to_str().unwrap()),
            Some("nosniff"),
            "{path}"
        );
    }
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

/// The server's own token with `claims` changed, signed with the server's secret.
fn resigned(app: &TestApp, token: &str, change: impl FnOnce(&mut Value)) -> String {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut parts = token.split('.');
    let header = parts.next().unwrap();
    let mut claims: Value =
        serde_json::from_slice(&b64.decode(parts.next().unwrap()).unwrap()).unwrap();
    change(&mut claims);
    let signed = format!("{header}.{}", b64.encode(claims.to_string()));
    let secret = app.state.config.jwt_secret.as_ref().unwrap().0.as_bytes();
    let signature = b64.encode(hmac_sha256(secret, signed.as_bytes()));
    format!("{signed}.{signature}")
}

async fn tokens_issued_in_the_future_are_refused(backend: Backend) {
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    let now = chrono::Utc::now().timestamp();
    // Re-signing with the same claims is accepted (the forging itself is right)...
    let same = resigned(&app, &app.admin, |_| {});
    app.get("/api/users", &same).await.expect(200);
    // ...a few seconds of clock skew too...
    let skewed = resigned(&app, &app.admin, |c| c["iat"] = json!(now + 20));
    app.get("/api/users", &skewed).await.expect(200);
    // ...but not a token issued an hour from now.
    let future = resigned(&app, &app.admin, |c| {
        c["iat"] = json!(now + 3600);
        c["exp"] = json!(now + 7200);
    });
    app.get("/api/users", &future)
        .await
        .expect_error(401, "unauthorized");
}

async fn forgotten_login_counts_are_dropped(backend: Backend) {
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    login(&app, "guessed@example.com", "wrong-password")
        .await
        .expect_error(401, "unauthorized");
    let db = &app.state.db;
    let forget = |at: chrono::DateTime<chrono::Utc>| async move {
        let mut tx = db.begin().await.unwrap();
        let n = registry_server::store::users::forget_old_login_failures(&mut tx, at)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        n
    };
    // A count still in its window stays; one past it goes (the hourly sweep in `run_until`).
    let now = chrono::Utc::now();
    assert_eq!(forget(now - chrono::Duration::minutes(5)).await, 0);
    assert_eq!(forget(now + chrono::Duration::minutes(5)).await, 1);
}

/// A script's workers sharing one account log in at once: none of them is refused, since each
/// success clears the account's count before the next login of it is counted.
async fn parallel_successful_logins_of_one_account_all_pass(backend: Backend) {
    let Some(app) = TestApp::spawn(backend).await else {
        return;
    };
    let answers =
        futures::future::join_all((0..16).map(|_| login(&app, ADMIN_EMAIL, ADMIN_PASSWORD))).await;
    for a in answers {
        a.expect(200);
    }
}
