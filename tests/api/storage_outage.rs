//! An object-store outage (the S3 service unreachable) is answered as a database outage is: 503
//! `unavailable` with `Retry-After`, within a few seconds, without details, and an upload that
//! could not store its file leaves no document behind. A genuinely missing object stays an
//! internal error.

use crate::documents::{admin_upload, new_facility, pdf, sha256, upload};
use crate::helpers::{Answer, Backend, TestApp};
use crate::on_both_backends;
use crate::test_servers::{S3Server, free_port};
use std::time::{Duration, Instant};

on_both_backends!(
    an_unreachable_s3_store_answers_503,
    an_s3_store_going_away_answers_503
);

/// Well above the store's few quick retries, well below the ten seconds an upload took before.
const QUICK: Duration = Duration::from_secs(5);

/// Asserts a 503 `unavailable` with `Retry-After`, answered within [`QUICK`], that names nothing
/// of the store.
#[track_caller]
fn expect_unavailable(answer: Answer, took: Duration, port: u16) {
    assert!(took < QUICK, "answered after {took:?}");
    let retry = answer
        .headers
        .get("retry-after")
        .unwrap_or_else(|| panic!("no Retry-After: {} {}", answer.status, answer.body))
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(retry, "5");
    let answer = answer.expect_error(503, "unavailable");
    let message = answer.body["message"].as_str().unwrap();
    for internal in [
        &port.to_string(),
        "127.0.0.1",
        "S3",
        "http",
        "Error performing",
    ] {
        assert!(!message.contains(internal), "no internals: {message}");
    }
}

/// Times `call`.
async fn timed<F: Future<Output = Answer>>(call: F) -> (Answer, Duration) {
    let started = Instant::now();
    let answer = call.await;
    (answer, started.elapsed())
}

async fn an_unreachable_s3_store_answers_503(backend: Backend) {
    // Nothing listens on this port.
    let port = free_port();
    let url = format!(
        "s3://registry/documents?endpoint=http://127.0.0.1:{port}&region=us-east-1&allow_http=true&access_key_id=test&secret_access_key=test"
    );
    let Some(app) = TestApp::spawn_with(backend, |c| c.object_store_url = Some(url)).await else {
        return;
    };
    let facility = new_facility(&app, "Clínica Sem Armazenamento").await;
    for seed in 0..2 {
        let (answer, took) = timed(upload(&app, &app.admin, &facility, pdf(2000, seed), &[])).await;
        expect_unavailable(answer, took, port);
    }
    assert_eq!(
        app.total("/api/documents", &app.admin).await,
        0,
        "an upload whose file was not stored leaves no document"
    );
}

async fn an_s3_store_going_away_answers_503(backend: Backend) {
    let Some(s3) = S3Server::start().await else {
        return;
    };
    let (url, port) = (s3.url(), s3.server.port);
    let Some(app) = TestApp::spawn_with(backend, |c| c.object_store_url = Some(url)).await else {
        return;
    };
    let facility = new_facility(&app, "Clínica Armazenamento Instável").await;
    let kept = admin_upload(&app, &facility, pdf(3000, 1), &[]).await;
    let kept = kept["_id"].as_str().unwrap().to_owned();
    // A genuinely missing object (the file row names one the store never had) stays an
    // internal error.
    let lost = admin_upload(&app, &facility, pdf(3000, 2), &[]).await;
    let lost = lost["_id"].as_str().unwrap().to_owned();
    sqlx::query("UPDATE document_files SET sha256 = $1 WHERE document_id = $2")
        .bind(sha256(b"never stored"))
        .bind(&lost)
        .execute(&mut app.outside_connection().await)
        .await
        .unwrap();
    app.get(&format!("/api/document/{lost}/file"), &app.admin)
        .await
        .expect_error(500, "internal");

    // The store goes away.
    drop(s3);
    let path = format!("/api/document/{kept}/file");
    let (answer, took) = timed(app.get(&path, &app.admin)).await;
    expect_unavailable(answer, took, port);
    let (answer, took) = timed(upload(&app, &app.admin, &facility, pdf(3000, 3), &[])).await;
    expect_unavailable(answer, took, port);
    assert_eq!(
        app.total("/api/documents", &app.admin).await,
        2,
        "the refused upload left no document"
    );
}
