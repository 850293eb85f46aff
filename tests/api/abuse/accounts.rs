//! Password recovery throttling and anonymous registration limits.

use super::{client_user, expect_rate_limited, login, other_client};
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, PASSWORD, TestApp, eventually, outbox};
use crate::on_both_databases;
use reqwest::Method;
use serde_json::json;
use std::time::Duration;

on_both_databases!(anonymous_registration_does_not_reveal_accounts);

on_both_databases!(
    configured(|c| {
        c.limits.recovery_per_client_per_hour = 4;
        c.limits.mails_per_address_per_hour = 2;
    });
    password_recovery_is_throttled_per_client_and_per_address
);

async fn password_recovery_is_throttled_per_client_and_per_address(app: TestApp) {
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
    // The mails go out in the background: wait for the allowance, then make sure no more come.
    let mails = || {
        outbox(&app)
            .into_iter()
            .filter(|m| m.contains(email))
            .count()
    };
    eventually("the recovery mails", mails, |n| *n >= 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(mails(), 2, "recovery mails to one address per hour");
}

on_both_databases!(
    configured(|c| c.limits.register_per_client_per_hour = 2);
    anonymous_registration_is_limited_per_client
);

async fn anonymous_registration_is_limited_per_client(app: TestApp) {
    let me = |i: u32| json!({"name": "Self Made", "email": format!("self-{i}@example.com"), "password": PASSWORD});
    for i in 0..2 {
        app.post_anon("/api/register/", me(i)).await.expect(202);
    }
    expect_rate_limited(app.post_anon("/api/register/", me(2)).await);
    // Staff registrations are not limited.
    for i in 3..6 {
        app.post_created("/api/register/", &app.admin, me(i)).await;
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

async fn anonymous_registration_does_not_reveal_accounts(app: TestApp) {
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
    // With the CLI command that asks for a recovery code (audit of stop 36).
    let command = format!("`registry user recover {ADMIN_EMAIL}`");
    assert!(
        outbox(&app).iter().any(|m| m.contains(&command)),
        "{command}"
    );
    // Staff still get the conflict, which they need to do their work.
    app.post(
        "/api/register/",
        &app.admin,
        json!({"name": "Dup", "email": "newcomer@example.com", "password": PASSWORD}),
    )
    .await
    .expect_error(409, "conflict");
}
