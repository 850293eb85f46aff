//! Password recovery through SMTP (product.md §3: "202 always, no account enumeration"): the
//! answer never waits for the mail server, so an address with an account is answered as fast as
//! one without, even when the mail server hangs; with a working server the mail still arrives.

use crate::helpers::{Backend, PASSWORD, TestApp, eventually, outbox, recovery_code_in};
use crate::test_servers::SmtpSink;
use crate::{on_both_backends, on_both_databases};
use registry_server::config::Secret;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

on_both_backends!(
    recovery_answers_do_not_wait_for_a_hanging_mail_server,
    recovery_mail_arrives_through_smtp
);

on_both_databases!(a_recovery_for_an_account_answers_before_its_code_is_stored);

/// Well above a recovery's own work (a lookup, and for an account one insert), well below what
/// the hanging mail server makes a delivery take (lettre's SMTP timeout, a minute).
const FAST: Duration = Duration::from_millis(500);

/// A "mail server" that accepts connections and never says a word (not even its greeting): a
/// delivery to it hangs until the SMTP client gives up. Counts the connections it accepted.
async fn silent_smtp() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("smtp://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(socket);
        }
    });
    (url, accepted)
}

/// Registers a `Cliente` (by the Administrator): their e-mail address.
async fn account(app: &TestApp, name: &str) -> String {
    let email = format!("{name}-{}@example.com", uuid::Uuid::new_v4().simple());
    app.post_created(
        "/api/register/",
        &app.admin,
        json!({"name": name, "email": email, "password": PASSWORD}),
    )
    .await;
    email
}

async fn recovery_answers_do_not_wait_for_a_hanging_mail_server(backend: Backend) {
    let (url, accepted) = silent_smtp().await;
    let Some(app) = TestApp::spawn_with(backend, |c| c.smtp_url = Some(Secret(url))).await else {
        return;
    };
    let email = account(&app, "forgetful").await;
    let ask = async |email: &str| {
        let started = Instant::now();
        let answer = tokio::time::timeout(
            Duration::from_secs(10),
            app.post_anon("/api/password_recover/", json!({"email": email})),
        )
        .await
        .unwrap_or_else(|_| panic!("no answer within 10 s for {email}"));
        (started.elapsed(), answer.expect(202))
    };
    for round in 0..3 {
        let (unknown_took, unknown) = ask(&format!("nobody-{round}@example.com")).await;
        let (known_took, known) = ask(&email).await;
        assert_eq!(unknown, known, "the same answer, account or not");
        assert!(
            unknown_took < FAST && known_took < FAST,
            "round {round}: unknown address answered in {unknown_took:?}, an account's in \
             {known_took:?}"
        );
    }
    // The mails were really attempted, and are still hanging on the mail server.
    eventually(
        "connections to the mail server",
        || accepted.load(Ordering::SeqCst),
        |n| *n >= 1,
    )
    .await;
    // A wrong code is refused as such, and the server still answers at once while its mails
    // hang.
    let started = Instant::now();
    app.post_anon(
        "/api/password_recover/",
        json!({"token": "0".repeat(64), "newPassword": "recovered-pass-1"}),
    )
    .await
    .expect_field_error("token", "invalid_value");
    assert!(started.elapsed() < FAST);
}

async fn recovery_mail_arrives_through_smtp(backend: Backend) {
    let Some(smtp) = SmtpSink::start().await else {
        return;
    };
    let url = smtp.url();
    let Some(app) = TestApp::spawn_with(backend, |c| c.smtp_url = Some(Secret(url))).await else {
        return;
    };
    let email = account(&app, "forgetful").await;
    app.post_anon(
        "/api/password_recover/",
        json!({"email": "nobody@example.com"}),
    )
    .await
    .expect(202);
    app.post_anon("/api/password_recover/", json!({"email": email}))
        .await
        .expect(202);
    let mails = eventually(
        "the recovery mail through SMTP",
        || smtp.messages(),
        |m| !m.is_empty(),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(smtp.messages().len(), 1, "one mail, to the account only");
    assert!(mails[0].contains(&email), "{}", mails[0]);
    let code = recovery_code_in(&mails[0]).expect("a recovery code in the mail");
    app.post_anon(
        "/api/password_recover/",
        json!({"token": code, "newPassword": "recovered-pass-1"}),
    )
    .await
    .expect(200);
    app.login(&email, "recovered-pass-1").await;
}

/// The answer to a recovery for an account does not wait for its code to be stored, or it would
/// be slower than for an unknown address (which is only read), telling which addresses have
/// accounts. With the codes' table locked by another connection, it still answers at once; the
/// mail follows once the lock is gone.
async fn a_recovery_for_an_account_answers_before_its_code_is_stored(app: TestApp) {
    use sqlx::Executor;
    let (id, _) = app.user_with(&["Cliente"], "Locked Out").await;
    let email = app.admin_get(&format!("/api/user/{id}")).await["email"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut outside = app.outside_connection().await;
    let lock = match app.backend {
        Backend::Sqlite => "BEGIN IMMEDIATE",
        Backend::Postgres => "BEGIN; LOCK TABLE password_resets IN EXCLUSIVE MODE",
    };
    outside.execute(lock).await.unwrap();
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        app.post_anon("/api/password_recover/", json!({"email": email})),
    )
    .await
    .expect("the answer waited for the code to be stored");
    assert_eq!(answer.status, 202);
    outside.execute("COMMIT").await.unwrap();
    eventually("the recovery mail", || outbox(&app), |m| !m.is_empty()).await;
}
