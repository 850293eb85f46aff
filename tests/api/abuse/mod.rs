//! Abuse limits (issue 11): parallel password guesses, per-client limits, the per-account delay
//! (in `logins`), recovery throttling and registration that does not reveal accounts (in
//! `accounts`), connection timeouts and the token and download hardening (in `hardening`). Each
//! test starts its own server with the limits it exercises.

mod accounts;
mod hardening;
mod logins;

use crate::helpers::{Answer, PASSWORD, TestApp, eventually, outbox, recovery_code_in};
use serde_json::json;

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
    app.post_created("/api/register/", &app.admin, body).await["_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The recovery code of the newest recovery mail to `email` (sent in the background: waited for).
async fn recovery_code(app: &TestApp, email: &str) -> String {
    let mails = eventually(
        "a recovery code in the outbox",
        || {
            outbox(app)
                .into_iter()
                .filter(|m| m.contains(email) && m.contains("recovery code"))
                .collect::<Vec<_>>()
        },
        |mails| !mails.is_empty(),
    )
    .await;
    mails
        .iter()
        .find_map(|m| recovery_code_in(m))
        .expect("a recovery code in the mail")
}
