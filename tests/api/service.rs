use crate::helpers::TestApp;
use crate::on_both_databases;
use reqwest::Method;

on_both_databases!(health_docs_and_unknown_routes);

async fn health_docs_and_unknown_routes(app: TestApp) {
    for path in ["/healthz", "/readyz"] {
        let res = app.call(Method::GET, path, None, None).await;
        assert_eq!(res.status, 200, "{path}");
    }
    // A client's request id is kept when it is fit for the log, else one is made.
    assert_eq!(request_id(&app, "proxy-7f3a.1_b").await, "proxy-7f3a.1_b");
    for unfit in ["", "<script>", "a b", &"a".repeat(65)] {
        let made = request_id(&app, unfit).await;
        assert!(uuid::Uuid::parse_str(&made).is_ok(), "{unfit:?} → {made}");
    }
    // /readyz says which deployment answers (REGISTRY_ENV; the tests run the default).
    let ready = app.call(Method::GET, "/readyz", None, None).await;
    assert_eq!(ready.body["environment"], "development");
    let doc = app.openapi().await;
    let paths = doc["paths"].as_object().unwrap();
    for path in [
        "/api/login",
        "/api/register",
        "/api/edit",
        "/api/exclude",
        "/api/changePassword",
        "/api/password_recover",
        "/api/users",
        "/api/user/{id}",
        "/api/user/{id}/facilities",
        "/api/facilities",
        "/api/nuclearmedicinefacilities",
        "/api/radiodiagnosisfacilities",
        "/api/facility/{id}",
        "/api/facility/register",
        "/api/facility/edit",
        "/api/facility/{id}/edit",
        "/api/facility/users/edit",
        "/api/facility/exclude",
        "/api/facility/{id}/history",
        "/api/facility/{id}/{kind}",
        "/api/facility/removeLogo",
        "/api/facility/removeBackgroundImage",
        "/api/group",
        "/api/group/{id}",
        "/api/group/register",
        "/api/group/edit",
        "/api/group/exclude",
    ] {
        assert!(paths.contains_key(path), "{path} is not documented");
    }
    assert!(doc["components"]["schemas"]["Facility"]["properties"]["CNENregistry"].is_object());
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    let ui = app.client.get(app.url("/api/docs/")).send().await.unwrap();
    assert_eq!(ui.status(), 200);
    assert!(ui.text().await.unwrap().contains("swagger"));
    // Unknown paths and methods answer the error envelope too.
    app.assert_not_found("/api/nothing-here", &app.admin).await;
    let res = app
        .call(Method::DELETE, "/api/facilities", Some(&app.admin), None)
        .await;
    res.expect_error(405, "method_not_allowed");
}

on_both_databases!(
    undecodable_path_ids_and_bad_queries_answer_the_envelope,
    long_uri_answers_the_envelope,
    huge_page_numbers_never_break_the_connection,
);

/// The request id answered to a `/healthz` sent with `given` as its `X-Request-Id` (none when
/// empty).
async fn request_id(app: &TestApp, given: &str) -> String {
    let mut req = app.client.get(app.url("/healthz"));
    if !given.is_empty() {
        req = req.header("x-request-id", given);
    }
    let res = req.send().await.unwrap();
    res.headers()["x-request-id"].to_str().unwrap().to_owned()
}

async fn expect_json_error(app: &TestApp, path: &str, status: u16, code: &str) {
    let res = app.call(Method::GET, path, Some(&app.admin), None).await;
    let path: String = path.chars().take(80).collect();
    let content_type = res
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "{path}: {content_type} {}",
        res.body
    );
    let status_code = res.status;
    let body = res.body.clone();
    assert_eq!(status_code.as_u16(), status, "{path}: {body}");
    // Every answer, the envelope's own included, carries the security headers.
    for header in ["x-content-type-options", "cache-control", "x-frame-options"] {
        assert!(res.headers.contains_key(header), "{path}: no {header}");
    }
    res.expect_error(status, code);
}

/// A path id that is not valid UTF-8 cannot name a record (404); a query string the endpoint
/// cannot read is a bad request (400); both in the error envelope, not axum's plain text.
async fn undecodable_path_ids_and_bad_queries_answer_the_envelope(app: TestApp) {
    // Every GET of the API description with a path parameter, each given `%ff`.
    let doc = app.openapi().await;
    let mut paths = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if path.contains('{') && item.get("get").is_some() {
            let mut undecodable = String::new();
            for (i, part) in path.split('{').enumerate() {
                match part.split_once('}') {
                    Some((_, rest)) if i > 0 => undecodable.push_str(&format!("%ff{rest}")),
                    _ => undecodable.push_str(part),
                }
            }
            paths.push(undecodable);
        }
    }
    assert!(paths.len() > 20, "only {} paths: {paths:?}", paths.len());
    assert!(paths.contains(&"/api/waste/%ff".to_owned()), "{paths:?}");
    for path in &paths {
        expect_json_error(&app, path, 404, "not_found").await;
    }
    for path in [
        "/api/document/some-id/file?version=abc",
        "/api/document/some-id/file?version=%ff",
        "/api/facilities?pageNum=abc",
        "/api/facilities?filters=%ff",
    ] {
        expect_json_error(&app, path, 400, "bad_request").await;
    }
}

/// A URI longer than the server reads answers 414 in the envelope, whatever the path.
async fn long_uri_answers_the_envelope(app: TestApp) {
    let long = "a".repeat(10 * 1024);
    for path in [
        format!("/api/facilities?q={long}"),
        format!("/api/facility/{long}"),
        format!("/nowhere/{long}"),
    ] {
        expect_json_error(&app, &path, 414, "uri_too_long").await;
    }
}

/// Found by schemathesis: a page number whose offset overflows 64 bits closed the connection
/// (a panic in a debug build; a negative OFFSET, 500, on PostgreSQL in a release build). Such a
/// page is empty, or refused as out of range: never a dropped connection or a server error.
async fn huge_page_numbers_never_break_the_connection(app: TestApp) {
    for path in [
        "/api/typeOfTest?pageNum=461168601842738792",
        "/api/facilities?pageNum=9223372036854775807&pageSize=200",
        "/api/users?pageNum=9223372036854775807",
        "/api/group?pageNum=9223372036854775807",
        "/api/typeOfEquipment?pageNum=9223372036854775807",
        "/api/documents?pageNum=9223372036854775807",
        "/api/tests/due?pageNum=9223372036854775807",
    ] {
        let res = app.get(path, &app.admin).await;
        if res.status == 200 {
            assert_eq!(res.body["list"], serde_json::json!([]), "{path}");
        } else {
            res.expect_error(400, "bad_request");
        }
    }
}

on_both_databases!(requests_hyper_cannot_parse_answer_the_envelope);

/// Sends raw bytes and reads the whole answer (the server closes the connection after refusing
/// a request it cannot parse): status, lower-cased head, body.
async fn raw_exchange(app: &TestApp, request: &[u8]) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        stream.read_to_end(&mut answer),
    )
    .await
    .expect("the server closes the connection")
    .unwrap();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let status = head[9..12].parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

on_both_databases!(declared_oversize_bodies_are_refused_before_they_are_sent);

/// A body declared (`Content-Length`) larger than its endpoint takes is refused with 413 before
/// any of it is read: a client waiting for `100 Continue` before sending hears the refusal
/// instead, on a JSON endpoint and on the upload.
async fn declared_oversize_bodies_are_refused_before_they_are_sent(app: TestApp) {
    let facility = app
        .create_facility(crate::helpers::facility_payload("Clínica Grande"))
        .await;
    let logo = format!("/api/facility/{}/logo", facility["_id"].as_str().unwrap());
    let multipart = "multipart/form-data; boundary=x";
    for (path, content_type, length) in [
        ("/api/group/register", "application/json", 2_000_000),
        ("/api/document/edit", "application/json", 2_000_000),
        ("/api/document/register/", multipart, 50_000_000),
        (&logo, multipart, 3_000_000),
    ] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
             Content-Type: {content_type}\r\nContent-Length: {length}\r\n\
             Expect: 100-continue\r\n\r\n",
            app.admin
        );
        let (status, head, body) = raw_exchange(&app, head.as_bytes()).await;
        assert_eq!(status, 413, "{path}: {head}");
        assert!(body.contains("payload_too_large"), "{path}: {body}");
    }
}

/// What hyper refuses before the router sees it — a URI over its 64 KiB limit, a header it
/// cannot parse, a head over its buffer — answers the error envelope too, not an empty body.
async fn requests_hyper_cannot_parse_answer_the_envelope(app: TestApp) {
    let long = "a".repeat(70 * 1024);
    let huge_header = "b".repeat(500 * 1024);
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (
            format!("GET /api/facilities?q={long} HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes(),
            414,
            "uri_too_long",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n".to_vec(),
            400,
            "bad_request",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: x\r\n\r\n".to_vec(),
            400,
            "bad_request",
        ),
        (
            format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {huge_header}\r\n\r\n")
                .into_bytes(),
            431,
            "request_header_fields_too_large",
        ),
    ];
    for (request, status, code) in cases {
        let (got, head, body) = raw_exchange(&app, &request).await;
        assert_eq!(got, status, "{head}\n{body}");
        assert!(
            head.contains("content-type: application/json"),
            "{status}: {head}"
        );
        let body: serde_json::Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("{status}: body {body:?} is not JSON: {e}"));
        assert_eq!(body["code"], code, "{body}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    // The server still answers afterwards.
    let res = app.call(Method::GET, "/healthz", None, None).await;
    assert_eq!(res.status, 200);
}
