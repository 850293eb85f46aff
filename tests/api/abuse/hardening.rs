//! Connection timeouts, downloads that are not sniffed, and tokens issued in the future.

use crate::documents::{admin_upload, new_facility, pdf};
use crate::helpers::TestApp;
use crate::on_both_databases;
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

on_both_databases!(
    downloads_are_not_sniffed,
    tokens_issued_in_the_future_are_refused,
    an_answer_before_the_body_is_read_closes_the_connection,
    an_unreadable_query_names_the_parameter_in_plain_words,
);

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

/// A new connection to `addr` on which `bytes` were sent.
async fn sent(addr: &str, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    stream
}

on_both_databases!(
    configured(|c| {
        c.limits.read_timeout = std::time::Duration::from_secs(1);
        c.limits.body_timeout = std::time::Duration::from_secs(1);
    });
    half_sent_requests_and_idle_connections_are_closed
);

async fn half_sent_requests_and_idle_connections_are_closed(app: TestApp) {
    let addr = app.base.trim_start_matches("http://").to_owned();
    let limit = Duration::from_secs(5);
    let half_sent: [(&str, &[u8]); 2] = [
        // Half a request line and headers.
        (
            "request head",
            b"POST /api/login/ HTTP/1.1\r\nHost: registry\r\nContent-Le",
        ),
        // A complete head, half a body.
        (
            "body",
            b"POST /api/login/ HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\": ",
        ),
    ];
    for (what, bytes) in half_sent {
        let mut stream = sent(&addr, bytes).await;
        assert!(
            closed_within(&mut stream, limit).await.is_some(),
            "a half-sent {what} is still open after {limit:?}"
        );
    }
    // A JSON body that never pauses long but never ends: refused once the body timeout has
    // passed since it began, not held for as long as it trickles.
    let mut trickled = sent(
        &addr,
        b"POST /api/login/ HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    )
    .await;
    let start = Instant::now();
    let mut answer = [0u8; 12];
    let answered = loop {
        assert!(
            start.elapsed() < limit,
            "a trickled body is still read after {limit:?}"
        );
        let _ = trickled.write_all(b" ").await;
        match tokio::time::timeout(Duration::from_millis(300), trickled.read(&mut answer)).await {
            Err(_) => continue,
            Ok(read) => break read.unwrap_or_default(),
        }
    };
    assert_eq!(&answer[..answered], b"HTTP/1.1 400");
    // A kept-alive connection that goes idle after its answer.
    let mut idle = sent(&addr, b"GET /healthz HTTP/1.1\r\nHost: registry\r\n\r\n").await;
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(
        closed_within(&mut idle, limit).await.is_some(),
        "an idle kept-alive connection is still open after {limit:?}"
    );
    // A prompt client is unaffected.
    app.admin_get("/api/users").await;
}

on_both_databases!(
    configured(|c| c.limits.max_connections_per_client = 8);
    a_client_holds_a_limited_number_of_connections
);

/// One more connection than a client may hold is closed at once; one given up frees its place.
async fn a_client_holds_a_limited_number_of_connections(app: TestApp) {
    let addr = app.base.trim_start_matches("http://").to_owned();
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(TcpStream::connect(&addr).await.unwrap());
    }
    // Eight here (the test's own client may hold one more, idle): the next is closed unanswered.
    let mut one_more = sent(&addr, b"GET /healthz HTTP/1.1\r\nHost: registry\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = one_more.read_to_end(&mut answer).await;
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    // The first one held is served.
    let first = &mut held[0];
    first
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: registry\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 12];
    first.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    app.admin_get("/api/users").await;
}

async fn downloads_are_not_sniffed(app: TestApp) {
    let facility = new_facility(&app, "Clínica Nosniff").await;
    let doc = admin_upload(&app, &facility, pdf(1000, 3), &[]).await;
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
        assert_eq!(header(&res, "cache-control"), "private, no-cache", "{path}");
    }
    // Answers with tokens or people's data are kept by no cache, and no page is framed.
    let login = app
        .client
        .post(app.url("/api/login/"))
        .json(&serde_json::json!({"email": crate::helpers::ADMIN_EMAIL, "password": crate::helpers::ADMIN_PASSWORD}))
        .send()
        .await
        .unwrap();
    let users = app
        .client
        .get(app.url("/api/users"))
        .bearer_auth(&app.admin)
        .send()
        .await
        .unwrap();
    let docs = app.client.get(app.url("/api/docs/")).send().await.unwrap();
    for res in [&login, &users, &docs] {
        assert_eq!(res.status(), 200, "{}", res.url());
        assert_eq!(header(res, "cache-control"), "no-store", "{}", res.url());
        assert_eq!(header(res, "x-frame-options"), "DENY", "{}", res.url());
    }
}

fn header<'a>(res: &'a reqwest::Response, name: &str) -> &'a str {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_default()
}

/// The lower-cased head of the answer to `request`, sent on a connection of its own.
async fn answer_head(addr: &str, request: &[u8]) -> String {
    let mut stream = sent(addr, request).await;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).await.expect("an answer");
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap().to_ascii_lowercase()
}

/// A request refused before its body was read leaves the rest of the body on the connection,
/// which hyper then closes: the answer must say so, or a client reusing the connection fails.
async fn an_answer_before_the_body_is_read_closes_the_connection(app: TestApp) {
    let addr = app.base.trim_start_matches("http://").to_owned();
    let with_body = |path: &str, content_type: &str, body: &[u8]| {
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: registry\r\nAuthorization: Bearer {}\r\n\
             Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            app.admin,
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        request
    };
    let large = format!("{{\"name\": \"{}\"}}", "x".repeat(100_000));
    let refused = answer_head(
        &addr,
        &with_body(
            "/api/document/register/",
            "application/json",
            large.as_bytes(),
        ),
    )
    .await;
    assert!(refused.starts_with("http/1.1 400"), "{refused}");
    assert!(refused.contains("connection: close"), "{refused}");
    // A body read to its end keeps the connection.
    let read = answer_head(
        &addr,
        &with_body("/api/group/register", "application/json", b"{\"name\": 5}"),
    )
    .await;
    assert!(read.starts_with("http/1.1 422"), "{read}");
    assert!(!read.contains("connection: close"), "{read}");
}

async fn an_unreadable_query_names_the_parameter_in_plain_words(app: TestApp) {
    let facility = new_facility(&app, "Clínica Versões").await;
    let doc = admin_upload(&app, &facility, pdf(1000, 4), &[]).await;
    let path = format!(
        "/api/document/{}/file?version=abc",
        doc["_id"].as_str().unwrap()
    );
    let answer = app
        .get(&path, &app.admin)
        .await
        .expect_error(400, "bad_request");
    let message = answer.body["message"].as_str().unwrap();
    assert!(message.contains("version"), "{message}");
    assert!(!message.contains("Failed to deserialize"), "{message}");
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

async fn tokens_issued_in_the_future_are_refused(app: TestApp) {
    let now = chrono::Utc::now().timestamp();
    // Re-signing with the same claims is accepted (the forging itself is right)...
    let same = resigned(&app, &app.admin, |_| {});
    app.get_ok("/api/users", &same).await;
    // ...a few seconds of clock skew too...
    let skewed = resigned(&app, &app.admin, |c| c["iat"] = json!(now + 20));
    app.get_ok("/api/users", &skewed).await;
    // ...but not a token issued an hour from now.
    let future = resigned(&app, &app.admin, |c| {
        c["iat"] = json!(now + 3600);
        c["exp"] = json!(now + 7200);
    });
    app.assert_unauthorized("/api/users", &future).await;
}
