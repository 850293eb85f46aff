//! The OpenAPI document says what the server does: the creates' required fields, the fields and
//! filters it reads, the wire values of its enums, every error status, and the paging parameters
//! of every list.

use crate::helpers::TestApp;
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    openapi_creates_require_what_the_server_requires,
    openapi_declares_what_the_server_reads,
    openapi_enums_are_the_wire_values,
    openapi_documents_every_error_status,
    openapi_paging_parameters_start_at_one,
    openapi_lists_declare_their_paging,
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
            // Every 201 carries `Location` (tests/api's `post_created` reads each one back).
            if has("201") {
                assert!(
                    responses["201"]["headers"]["Location"].is_object(),
                    "{what}: its 201 declares no Location header"
                );
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
        // A facility's state is one state (the due lists' `state` is a list of states).
        "/api/facilities?state=SP&state=PE",
        // A plain parameter and `filters` are one set of keys, whichever comes first.
        "/api/group?pageNum=1&filters=%7B%22pageNum%22%3A2%7D",
        "/api/group?filters=%7B%22pageNum%22%3A2%7D&pageNum=1",
        "/api/facilities?q=a&filters=%7B%22q%22%3A%22b%22%7D",
        // `limit` is `pageSize` by another name.
        "/api/group?pageSize=5&limit=7",
        "/api/group?filters=%7B%22pageSize%22%3A3%2C%22limit%22%3A2%7D",
        // Each is read as a page number: one that is not is refused as such.
        "/api/group?pageNum=1&filters=%7B%22pageNum%22%3A%221.0%22%7D",
        // A value in another encoding than UTF-8 (Latin-1's `é`).
        "/api/facilities?q=Jos%E9",
    ])
    .await;
    // Twice with the same value is that value: a number and its text are the same, and a null
    // or blank one says nothing.
    let once = app.admin_get("/api/group?pageSize=5").await;
    for twice in [
        "pageSize=5&pageSize=5",
        "filters=%7B%22pageSize%22%3A5%7D&pageSize=5",
        "pageSize=5&filters=%7B%22pageSize%22%3A5%7D",
        "pageSize=5&limit=5",
        "pageSize=5&limit=05",
        "pageSize=5&filters=%7B%22pageSize%22%3A%22%205%22%7D",
        "pageSize=&filters=%7B%22pageSize%22%3A5%7D",
        "filters=%7B%22pageSize%22%3Anull%7D&pageSize=5",
    ] {
        assert_eq!(
            app.admin_get(&format!("/api/group?{twice}")).await,
            once,
            "{twice}"
        );
    }
    app.create_facility(crate::helpers::facility_payload("Duas Vezes"))
        .await;
    let once = app.admin_get("/api/facilities?state=SP").await;
    assert_eq!(once["paging"]["total"], 1, "{once}");
    assert_eq!(
        app.admin_get("/api/facilities?state=SP&state=sp").await,
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
