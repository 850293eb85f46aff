use crate::helpers::TestApp;
use crate::on_both_databases;
use reqwest::Method;
use serde_json::json;

on_both_databases!(health_docs_and_unknown_routes);

async fn health_docs_and_unknown_routes(app: TestApp) {
    for path in ["/healthz", "/readyz"] {
        let res = app.call(Method::GET, path, None, None).await;
        assert_eq!(res.status, 200, "{path}");
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
    openapi_enums_are_the_wire_values,
    openapi_documents_every_error_status,
    undecodable_path_ids_and_bad_queries_answer_the_envelope,
    long_uri_answers_the_envelope,
    huge_page_numbers_never_break_the_connection,
    openapi_paging_parameters_start_at_one,
    openapi_lists_declare_their_paging,
    openapi_declares_what_the_server_reads,
    openapi_creates_require_what_the_server_requires,
);

/// Each create's request body names as required exactly the fields the server answers
/// `required` for when an empty object is sent (create and edit share a payload schema, whose
/// fields an edit may leave out).
async fn openapi_creates_require_what_the_server_requires(app: TestApp) {
    let doc = app.openapi().await;
    let facility = app
        .create_facility(crate::helpers::facility_payload("Exigências"))
        .await;
    let id = facility["_id"].as_str().unwrap();
    for path in [
        "/api/equipment/register",
        "/api/facility/equipment/register",
        "/api/group/register",
        "/api/register",
        "/api/test",
        "/api/typeOfEquipment/register",
        "/api/facility/{id}/waste",
    ] {
        let schema =
            &doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"];
        let mut documented: Vec<String> =
            serde_json::from_value(schema["allOf"][1]["required"].clone())
                .unwrap_or_else(|_| panic!("{path}: {schema}"));
        let answer = app
            .post(&path.replace("{id}", id), &app.admin, json!({}))
            .await;
        let mut required: Vec<String> = answer
            .field_errors()
            .into_iter()
            .filter(|(_, code)| code == "required")
            .map(|(field, _)| field)
            .collect();
        documented.sort();
        required.sort();
        assert_eq!(documented, required, "{path}: {}", answer.body);
    }
}

/// What a client generated from the document needs (audit of stop 40): the image upload's
/// `file` part and the two image kinds, the facility filters of a user's facilities, the token
/// the signed link of a document's file does without, the formats of dates and times, and the
/// limits the server enforces.
async fn openapi_declares_what_the_server_reads(app: TestApp) {
    let doc = app.openapi().await;
    let schema = |name: &str| doc["components"]["schemas"][name].clone();
    let image = &doc["paths"]["/api/facility/{id}/{kind}"];
    let form = &image["post"]["requestBody"]["content"]["multipart/form-data"]["schema"];
    let form = match form["$ref"].as_str() {
        Some(r) => schema(r.rsplit('/').next().unwrap()),
        None => form.clone(),
    };
    assert_eq!(form["properties"]["file"]["format"], "binary", "{form}");
    for method in ["get", "post", "delete"] {
        let kind = image[method]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "kind")
            .unwrap()
            .clone();
        assert_eq!(
            kind["schema"]["enum"],
            json!(["logo", "background"]),
            "{method}"
        );
    }
    let params = doc["paths"]["/api/user/{id}/facilities"]["get"]["parameters"].to_string();
    for name in ["\"department\"", "\"radioisotope\"", "\"q\""] {
        assert!(params.contains(name), "{name}: {params}");
    }
    let file = &doc["paths"]["/api/document/{id}/file"]["get"];
    assert_eq!(file["security"], json!([{}, {"bearer": []}]));
    assert!(file["parameters"].to_string().contains("If-None-Match"));
    let facility = schema("Facility");
    assert_eq!(facility["properties"]["createdAt"]["format"], "date-time");
    assert_eq!(schema("QcTest")["properties"]["date"]["format"], "date");
    assert_eq!(schema("GroupInput")["properties"]["name"]["maxLength"], 200);
    let days = &schema("TestTypeInput")["properties"]["expirationInDays"];
    assert_eq!(
        (days["minimum"].clone(), days["maximum"].clone()),
        (json!(1), json!(3650))
    );
    let cnpj = &schema("FacilityInput")["properties"]["cnpj"];
    assert_eq!(cnpj["maxLength"], 14, "{cnpj}");
}

/// The document's enums are the values the API accepts (the spec's Portuguese strings), not the
/// Rust variant names.
async fn openapi_enums_are_the_wire_values(app: TestApp) {
    use registry_core::values::{MainRole, Practice, Radioisotope, Role};
    let doc = app.openapi().await;
    let schemas = &doc["components"]["schemas"];
    let enum_of = |name: &str| -> Vec<String> {
        schemas[name]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has no enum: {}", schemas[name]))
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    fn wire<T: Copy>(all: &[T], s: fn(T) -> &'static str) -> Vec<String> {
        all.iter().map(|v| s(*v).to_owned()).collect()
    }
    assert_eq!(
        enum_of("Department"),
        ["Medicina Nuclear", "Radiodiagnóstico"]
    );
    assert_eq!(enum_of("Role"), wire(Role::ALL, Role::as_str));
    assert!(enum_of("Role").contains(&"Físico".to_owned()));
    assert_eq!(enum_of("Practice"), wire(Practice::ALL, Practice::as_str));
    assert_eq!(
        enum_of("Radioisotope"),
        wire(Radioisotope::ALL, Radioisotope::as_str)
    );
    assert!(enum_of("Radioisotope").contains(&"Tc(99m)".to_owned()));
    assert_eq!(enum_of("MainRole"), wire(MainRole::ALL, MainRole::as_str));
    assert_eq!(
        enum_of("Conclusion"),
        wire(
            registry_core::equipment::Conclusion::ALL,
            registry_core::equipment::Conclusion::as_str
        )
    );
    // No Rust variant name leaks anywhere in the document.
    let text = doc.to_string();
    for english in [
        "\"Physicist\"",
        "\"NuclearMedicine\"",
        "\"Tc99m\"",
        "\"Satisfactory\"",
        "\"Radiodiagnosis\"",
        "\"TechnicalResponsible\"",
    ] {
        assert!(
            !text.contains(english),
            "{english} is in the OpenAPI document"
        );
    }
}

/// Every operation lists the error statuses it can answer, each with the error envelope: 401
/// where a token is required, 400/413/422 where it reads a body, 400 where it reads query
/// parameters (422 for control characters in them), 404 where the path names a record, 429 where
/// a rate limit applies, 503 everywhere (database unreachable).
async fn openapi_documents_every_error_status(app: TestApp) {
    let doc = app.openapi().await;
    assert_eq!(doc["info"]["license"]["name"], "MIT");
    // OpenAPI: each operationId once (validators and client generators refuse repeats).
    let mut ids: Vec<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter_map(|op| op["operationId"].as_str())
        .collect();
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count, "repeated operationIds");
    let public = ["/api/login", "/api/password_recover"];
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !["get", "post", "put", "delete", "patch"].contains(&method.as_str()) {
                continue;
            }
            checked += 1;
            let what = format!("{method} {path}");
            let responses = op["responses"].as_object().unwrap();
            let has = |status: &str| responses.contains_key(status);
            for (status, response) in responses {
                // OpenAPI 3.1 requires it (strict validators and generators refuse the file).
                assert!(
                    response["description"]
                        .as_str()
                        .is_some_and(|d| !d.is_empty()),
                    "{what} {status} has no description"
                );
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        response["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/ErrorBody",
                        "{what} {status} is not the error envelope"
                    );
                }
            }
            if public.contains(&path.as_str()) || path == "/api/register" {
                assert!(has("429"), "{what} has no 429");
            }
            if !public.contains(&path.as_str()) {
                assert!(has("401"), "{what} has no 401");
                let security = op["security"].as_array();
                assert!(
                    security.is_some_and(|s| s.iter().any(|r| r.get("bearer").is_some())),
                    "{what} does not declare the bearer scheme"
                );
            }
            if op.get("requestBody").is_some() {
                for status in ["400", "413", "422"] {
                    assert!(has(status), "{what} reads a body and has no {status}");
                }
            }
            if let Some(params) = op.get("parameters") {
                assert!(params.is_array(), "{what}: parameters {params}");
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            if params.iter().any(|p| p["in"] == "path") {
                assert!(has("404"), "{what} has path parameters and no 404");
            }
            if params.iter().any(|p| p["in"] == "query") {
                assert!(has("400"), "{what} has query parameters and no 400");
                assert!(has("422"), "{what} has query parameters and no 422");
            }
            assert!(has("503"), "{what} has no 503");
        }
    }
    assert!(checked > 60, "only {checked} operations");
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
    for path in [
        "/api/facility/%ff",
        "/api/facility/%ff/history",
        "/api/facility/%ff/equipments",
        "/api/facility/%ff/logo",
        "/api/user/%ff",
        "/api/user/%ff/facilities",
        "/api/group/%ff",
        "/api/equipment/%ff",
        "/api/equipment/%ff/history",
        "/api/equipment/%ff/tests/due",
        "/api/document/%ff",
        "/api/document/%ff/file",
        "/api/documents/%ff",
        "/api/test/%ff",
        "/api/test/%ff/%fe",
        "/api/typeOfEquipment/%ff",
        "/api/typeOfTest/%ff",
    ] {
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

/// `pageNum` and `pageSize` below 1 are refused (400), so the document says they start at 1.
async fn openapi_paging_parameters_start_at_one(app: TestApp) {
    let doc = app.openapi().await;
    let mut seen = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for p in op["parameters"].as_array().into_iter().flatten() {
                if p["in"] == "query"
                    && ["pageNum", "pageSize", "limit"].contains(&p["name"].as_str().unwrap_or(""))
                {
                    seen += 1;
                    assert_eq!(p["schema"]["minimum"], 1, "{method} {path} {}", p["name"]);
                }
            }
        }
    }
    assert!(seen > 10, "only {seen} paging parameters");
    app.assert_bad_requests(&[
        "/api/group?pageNum=0",
        "/api/group?pageSize=0",
        // One key twice with different values: which one was meant is not known.
        "/api/group?pageSize=5&pageSize=6",
        "/api/facilities?q=a&q=b",
    ])
    .await;
    // Twice with the same value is that value.
    let once = app.admin_get("/api/group?pageSize=5").await;
    assert_eq!(
        app.admin_get("/api/group?pageSize=5&pageSize=5").await,
        once
    );
}

/// Every list (an answer in the paged envelope) declares its paging and `filters` parameters, so
/// that clients and the fuzzer know them and the 400 their bad values get.
async fn openapi_lists_declare_their_paging(app: TestApp) {
    let doc = app.openapi().await;
    let mut lists = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !op["responses"]["200"].to_string().contains("ListEnvelope") {
                continue;
            }
            lists += 1;
            let declared: Vec<&str> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query")
                .filter_map(|p| p["name"].as_str())
                .collect();
            // Each once: `filters` (JSON) and `limit` too, which every list reads (product.md §1).
            for name in ["pageNum", "pageSize", "filters", "limit"] {
                let times = declared.iter().filter(|d| **d == name).count();
                assert_eq!(times, 1, "{method} {path}: {name} in {declared:?}");
            }
            assert!(
                op["responses"]["400"].is_object(),
                "{method} {path} lacks its 400"
            );
        }
    }
    assert!(lists > 15, "only {lists} lists");
    let listed = &doc["paths"]["/api/documents"]["get"]["parameters"];
    for name in [
        "status",
        "facilityId",
        "equipmentId",
        "testId",
        "dateGte",
        "dateLt",
        "q",
    ] {
        assert!(
            listed.as_array().unwrap().iter().any(|p| p["name"] == name),
            "GET /api/documents lacks {name}"
        );
    }
}
