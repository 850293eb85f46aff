//! Login limits: parallel guesses, per-client limits, the per-account delay and its forgetting.

use super::{client_user, expect_rate_limited, login, other_client, recovery_code};
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, Answer, PASSWORD, TestApp};
use crate::on_both_databases;
use reqwest::Method;
use serde_json::json;
use std::time::{Duration, Instant};

on_both_databases!(
    forgotten_login_counts_are_dropped,
    parallel_successful_logins_of_one_account_all_pass,
);

on_both_databases!(
    configured(|c| c.limits.login_delay = std::time::Duration::from_secs(600));
    parallel_wrong_passwords_check_at_most_the_allowed_number
);

async fn parallel_wrong_passwords_check_at_most_the_allowed_number(app: TestApp) {
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

on_both_databases!(
    configured(|c| c.limits.login_failures_per_client_per_minute = 10);
    one_client_address_meets_a_login_limit
);

async fn one_client_address_meets_a_login_limit(app: TestApp) {
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

on_both_databases!(
    configured(|c| {
        c.limits.login_free_failures = 2;
        c.limits.login_delay = std::time::Duration::from_secs(3);
        c.limits.login_max_delay = std::time::Duration::from_secs(6);
    });
    failed_logins_slow_the_account_without_locking_the_owner_out
);

async fn failed_logins_slow_the_account_without_locking_the_owner_out(app: TestApp) {
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
    app.admin_post("/api/edit/", json!({"_id": id, "active": true}))
        .await;
    login(&app, email, PASSWORD).await.expect(200);
    // So does a successful password recovery.
    fail_twice().await;
    expect_rate_limited(login(&app, email, PASSWORD).await);
    app.post_anon("/api/password_recover/", json!({"email": email}))
        .await
        .expect(202);
    let code = recovery_code(&app, email).await;
    app.post_anon(
        "/api/password_recover/",
        json!({"token": code, "newPassword": "recovered-pass-1"}),
    )
    .await
    .expect(200);
    login(&app, email, "recovered-pass-1").await.expect(200);
}

async fn forgotten_login_counts_are_dropped(app: TestApp) {
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
async fn parallel_successful_logins_of_one_account_all_pass(app: TestApp) {
    let answers =
        futures::future::join_all((0..16).map(|_| login(&app, ADMIN_EMAIL, ADMIN_PASSWORD))).await;
    for a in answers {
        a.expect(200);
    }
}
