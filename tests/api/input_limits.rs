//! Control characters and sizes (issue 11, items 5 and 8): refused with 422 naming the field,
//! the same way on SQLite and PostgreSQL (where a NUL byte used to become a 500), and nothing
//! is stored.

use crate::answer::Answer;
use crate::documents::{new_facility, pdf, send_form};
use crate::helpers::{TestApp, facility_payload};
use crate::on_both_databases;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

on_both_databases!(
    control_characters_are_refused_everywhere,
    sizes_and_numbers_are_bounded,
    the_openapi_document_states_the_limits,
);

async fn facility_total(app: &TestApp) -> i64 {
    app.admin_get("/api/facilities").await["paging"]["total"]
        .as_i64()
        .unwrap()
}

/// A facility create refused with each `(field, code)` error, and nothing stored.
async fn create_refused(app: &TestApp, payload: Value, errors: &[(&str, &str)]) -> Answer {
    let before = facility_total(app).await;
    let answer = app
        .post("/api/facility/register/", &app.admin, payload)
        .await
        .expect_field_errors(errors);
    assert_eq!(facility_total(app).await, before, "nothing stored");
    answer
}

async fn control_characters_are_refused_everywhere(app: TestApp) {
    // Without a token: login, self-registration, password recovery.
    for (path, body, field) in [
        (
            "/api/login/",
            json!({"email": "a\u{0}@example.com", "password": "x"}),
            "email",
        ),
        (
            "/api/register/",
            json!({"name": "Ana\u{0}", "email": "ana@example.com", "password": "a-good-password"}),
            "name",
        ),
        ("/api/password_recover/", json!({"email": "\u{0}"}), "email"),
    ] {
        let answer = app
            .post_anon(path, body)
            .await
            .expect_error(422, "validation_failed");
        assert!(
            answer.has_field_error(field, "invalid_value"),
            "{path}: {}",
            answer.body
        );
    }

    let mut payload = facility_payload("Clínica \u{0}");
    payload["companyName"] = json!("Clínica Ltda");
    payload["address"][0]["city"] = json!("São\u{1b}Paulo");
    payload["notes"] = json!("tab\tand\nnew line are fine in prose");
    let errors = [
        ("name", "invalid_value"),
        ("address[0].city", "invalid_value"),
    ];
    let answer = create_refused(&app, payload, &errors).await;
    assert_eq!(answer.field_errors().len(), 2, "{}", answer.body);
    // A line break inside a name-like field: a name only its `_id` could find again.
    let mut payload = facility_payload("Clínica\nBoa Vista");
    payload["address"][0]["street"] = json!("Rua A,\r\n1");
    let errors = [
        ("name", "invalid_value"),
        ("address[0].street", "invalid_value"),
    ];
    create_refused(&app, payload, &errors).await;

    // Query strings, plain and as the `filters` JSON.
    app.get("/api/facilities?q=%00", &app.admin)
        .await
        .expect_field_error("q", "invalid_value");
    app.get(
        "/api/facilities?filters=%7B%22q%22%3A%22%5Cu0000%22%7D",
        &app.admin,
    )
    .await
    .expect_field_error("q", "invalid_value");
    app.get("/api/tests/due?state=%00", &app.admin)
        .await
        .expect_error(422, "validation_failed");
    // The token is checked first, then permission, then the query's values (decisions.md).
    app.call(Method::GET, "/api/facilities?q=%01", None, None)
        .await
        .expect_error(401, "unauthorized");
    let (_, client) = app.user_with(&["Cliente"], "Query Cliente").await;
    app.get("/api/users?q=%01", &client)
        .await
        .expect_error(403, "permission_denied");

    // Path ids: no record holds a control character.
    for path in [
        "/api/facility/%00",
        "/api/user/%00",
        "/api/document/ab%00cd",
        "/api/equipment/%1F",
    ] {
        app.assert_not_found(path, &app.admin).await;
    }
    // Multipart form fields of an upload.
    let facility = new_facility(&app, "Com documentos").await;
    let form = Form::new()
        .text("name", "Relatório\u{0}")
        .text("facility", facility)
        .text("date", "2026-11-01")
        .text("validity", "2027-11-01")
        .part("file", Part::bytes(pdf(1000, 1)).file_name("r.pdf"));
    send_form(&app, "/api/document/register/", &app.admin, form)
        .await
        .expect_field_error("name", "invalid_value");

    // Free JSON keys too, named with the control character escaped (never echoed raw).
    app.post(
        "/api/group/register",
        &app.admin,
        json!({"name": "Rede", "extra": {"a\u{0}": 1, "b\u{1b}[31m": 2}}),
    )
    .await
    .expect_field_errors(&[
        ("extra.a\\u{0}", "invalid_value"),
        ("extra.b\\u{1b}[31m", "invalid_value"),
    ]);
}

async fn sizes_and_numbers_are_bounded(app: TestApp) {
    let address = json!({"street": "Rua A, 1", "city": "Santos", "state": "SP"});

    // Thousands of addresses used to exceed SQLite's variable limit (a 500).
    let mut payload = facility_payload("Muitos endereços");
    payload["address"] = json!(vec![address.clone(); 3641]);
    app.post("/api/facility/register/", &app.admin, payload)
        .await
        .expect_field_error("address", "invalid_value");

    // A one-million-character name.
    let mut payload = facility_payload("x");
    payload["name"] = json!("N".repeat(1_000_000));
    let answer = app
        .post("/api/facility/register/", &app.admin, payload)
        .await
        .expect_field_error("name", "invalid_value");
    // The message gives the name's limit, not the bound of any text in a body.
    assert_eq!(
        answer.body["errors"][0]["message"],
        "must be at most 200 characters"
    );

    // Name-like fields stop at 200 characters; prose at 10,000; arrays at 1,000 items.
    let mut payload = facility_payload("x");
    payload["name"] = json!("N".repeat(201));
    payload["companyName"] = json!("C".repeat(200));
    let answer = app
        .post("/api/facility/register/", &app.admin, payload)
        .await
        .expect_field_error("name", "invalid_value");
    assert!(!answer.has_field_error("companyName", "invalid_value"));
    let mut payload = facility_payload("x");
    payload["practices"] = json!(vec!["Diagnóstico"; 1001]);
    app.post("/api/facility/register/", &app.admin, payload)
        .await
        .expect_field_error("practices", "invalid_value");
    app.post(
        "/api/group/register",
        &app.admin,
        json!({"name": "Rede", "description": "d".repeat(10_001)}),
    )
    .await
    .expect_field_error("description", "invalid_value");

    // Quantities far outside any licence, and subnormal ones.
    let mut payload = facility_payload("Quantidades");
    payload["radioisotopes"] =
        json!([{"name": "Tc(99m)", "quantity": 1e300}, {"name": "I(131)", "quantity": 1e-320}]);
    let errors = [
        ("radioisotopes[0].quantity", "invalid_quantity"),
        ("radioisotopes[1].quantity", "invalid_quantity"),
    ];
    create_refused(&app, payload, &errors).await;

    // The largest of each is accepted.
    let mut payload = facility_payload(&"N".repeat(200));
    payload["companyName"] = json!("C".repeat(200));
    payload["address"] = json!(vec![address; 20]);
    payload["radioisotopes"] =
        json!([{"name": "Tc(99m)", "quantity": 1_000_000}, {"name": "I(131)", "quantity": 0.001}]);
    app.create_facility(payload).await;

    // Page numbers: huge ones are refused, not overflowed; deep ones answer an empty page.
    app.get("/api/facilities?pageNum=9223372036854775807", &app.admin)
        .await
        .expect_error(400, "bad_request");
    let deep = app
        .admin_get("/api/facilities?pageNum=1000000000&pageSize=200")
        .await;
    assert_eq!(deep["list"], json!([]));
    assert_eq!(deep["paging"]["pageNum"], 1_000_000_000);
    app.admin_get("/api/users?pageNum=1000000000").await;
    app.get("/api/users?pageNum=99999999999999999999", &app.admin)
        .await
        .expect_error(400, "bad_request");
    // A page size past any number is cut to the maximum, as one of 201 is.
    for size in ["201", "99999999999999999999"] {
        let page = app.admin_get(&format!("/api/users?pageSize={size}")).await;
        assert_eq!(page["paging"]["pageSize"], 200, "{size}");
    }
    // JSON nested deeper than the parser follows is well-formed: it is named for what it is.
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    let res = app
        .post(
            "/api/group/register",
            &app.admin,
            json!({"name": "Fundo", "attributes": deep}),
        )
        .await
        .expect_error(400, "bad_request");
    let message = res.body["message"].as_str().unwrap();
    assert!(message.contains("nests too deeply"), "{message}");
}

async fn the_openapi_document_states_the_limits(app: TestApp) {
    let doc: serde_json::Value = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let schemas = &doc["components"]["schemas"];
    let facility = &schemas["FacilityInput"]["properties"];
    assert_eq!(facility["name"]["maxLength"], 200, "{facility}");
    assert_eq!(facility["companyName"]["maxLength"], 200);
    assert_eq!(facility["address"]["maxItems"], 20);
    assert_eq!(facility["users"]["maxItems"], 100);
    assert_eq!(schemas["Address"]["properties"]["city"]["maxLength"], 200);
    let quantity = &schemas["RadioisotopeView"]["properties"]["quantity"];
    assert_eq!(quantity["minimum"], 0.001);
    assert_eq!(quantity["maximum"], 1_000_000.0);
    assert_eq!(
        schemas["UserInput"]["allOf"][1]["properties"]["email"]["maxLength"],
        200
    );
}
