//! The OpenAPI description at `/api/openapi.json` and Swagger UI at `/api/docs`: the routes
//! describe their endpoints (`routes/describe.rs`); this adds the title, the bearer scheme and the
//! shared error statuses.

use crate::state::AppState;
use axum::Router;
use serde_json::json;
use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa_swagger_ui::SwaggerUi;

#[derive(OpenApi)]
#[openapi(info(
    title = "Facility Registry API",
    description = "Facilities, users, groups, equipment, QC tests, documents, radioactive material, waste and notices of radiation-related healthcare sites (nuclear medicine and radiodiagnosis). Every path also answers with a trailing slash."
))]
struct ApiDoc;

/// The document as served: utoipa's, completed with the shared error statuses.
pub fn document() -> serde_json::Value {
    let mut doc = ApiDoc::openapi().merge_from(crate::routes::openapi());
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("JWT")
                .build(),
        ),
    );
    let value = serde_json::to_value(&doc).expect("the OpenAPI document serialises");
    let value = paging_parameters(unique_operation_ids(complete_error_responses(value)));
    required_on_create(value)
}

/// The fields each create answers `required` for when they are missing. A resource's create and
/// edit share one payload schema, whose fields an edit may leave out; the create's request body
/// adds this list to it (`allOf`). Held to the server's answers by
/// `service::openapi_creates_require_what_the_server_requires`. Not the facility and the test type
/// creates: with their required fields, Schemathesis 4.32 can no longer generate a body for their
/// schemas (`.ci/schemathesis`); their schemas' descriptions name what a create requires.
const REQUIRED_ON_CREATE: &[(&str, &[&str])] = &[
    ("/api/equipment/register", &["facility", "typeOfEquipment"]),
    (
        "/api/facility/equipment/register",
        &["facility", "typeOfEquipment"],
    ),
    ("/api/group/register", &["name"]),
    ("/api/register", &["name", "email", "password"]),
    (
        "/api/test",
        &["date", "conclusion", "equipment", "typeOfTest"],
    ),
    ("/api/typeOfEquipment/register", &["name"]),
    (
        "/api/facility/{id}/waste",
        &["form", "contents", "mass", "location"],
    ),
];

fn required_on_create(mut value: serde_json::Value) -> serde_json::Value {
    for (path, fields) in REQUIRED_ON_CREATE {
        let pointer = format!(
            "/paths/{}/post/requestBody/content/application~1json/schema",
            path.replace('/', "~1")
        );
        if let Some(schema) = value.pointer_mut(&pointer) {
            *schema = json!({"allOf": [schema.take(), {"required": fields}]});
        }
    }
    value
}

/// Every list (a GET answering a `ListEnvelope`) reads its paging and filters from `?filters=<json>`
/// too, and `limit` as a synonym of `pageSize` (product.md §1, `extract::ListParams`): both are
/// declared on each, whatever its annotation lists.
fn paging_parameters(mut value: serde_json::Value) -> serde_json::Value {
    let shared = [
        json!({"name": "filters", "in": "query", "required": false,
               "description": "JSON object with pageNum, pageSize (or limit) and filter keys",
               "schema": {"type": "string"}}),
        json!({"name": "limit", "in": "query", "required": false,
               "description": "A synonym of pageSize",
               "schema": {"type": "integer", "format": "int64", "minimum": 1}}),
    ];
    let paths = value["paths"].as_object_mut().into_iter();
    for op in paths
        .flat_map(|p| p.values_mut())
        .filter_map(|item| item.get_mut("get"))
    {
        if !op["responses"]["200"].to_string().contains("ListEnvelope") {
            continue;
        }
        if !op["parameters"].is_array() {
            op["parameters"] = json!([]);
        }
        let parameters = op["parameters"].as_array_mut().expect("an array");
        for parameter in &shared {
            if !parameters.iter().any(|p| p["name"] == parameter["name"]) {
                parameters.push(parameter.clone());
            }
        }
    }
    value
}

/// utoipa names an operation after its handler, and handlers of different resources share names
/// (`edit`, `show`…); OpenAPI wants each `operationId` once. A shared one becomes the method and
/// path (`post_api_group_edit`); the others stay as they are.
fn unique_operation_ids(mut value: serde_json::Value) -> serde_json::Value {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    let items = value["paths"]
        .as_object()
        .into_iter()
        .flat_map(|p| p.values());
    for op in items.flat_map(|item| item.as_object().into_iter().flat_map(|i| i.values())) {
        if let Some(id) = op["operationId"].as_str() {
            *seen.entry(id.to_owned()).or_default() += 1;
        }
    }
    for (path, item) in value["paths"].as_object_mut().into_iter().flatten() {
        for (method, op) in item.as_object_mut().into_iter().flatten() {
            let shared = op["operationId"]
                .as_str()
                .is_some_and(|id| seen.get(id).is_some_and(|n| *n > 1));
            if shared {
                let name: String = format!("{method}{path}")
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                op["operationId"] = json!(name.trim_end_matches('_'));
            }
        }
    }
    value
}

/// Operations that take no token.
const PUBLIC: &[&str] = &["/api/login", "/api/password_recover"];
/// Operations where a token is optional: without one, self-registration as `Cliente`, and the
/// signed link of an e-mailed document's file.
const TOKEN_OPTIONAL: &[&str] = &["/api/register", "/api/document/{id}/file"];
/// Operations under a per-client or per-account limit (`limits.rs`, the login rule).
const RATE_LIMITED: &[&str] = &["/api/login", "/api/register", "/api/password_recover"];

/// Adds to every operation the error statuses that come from the shared extractors and layers
/// rather than from its handler, so that no annotation can forget them: 401 with the bearer
/// scheme wherever a token is read, 400/413/422 wherever a JSON body is read (malformed, too
/// large, `_id` or fields invalid), 400 for unreadable query parameters, 404 for a path that
/// names no record, 429 where a rate limit applies, 503 while the database is unreachable. Every error
/// response gets the envelope schema.
fn complete_error_responses(mut value: serde_json::Value) -> serde_json::Value {
    let envelope =
        json!({"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}});
    let Some(paths) = value["paths"].as_object_mut() else {
        return value;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            if !["get", "post", "put", "delete", "patch"].contains(&method.as_str()) {
                continue;
            }
            let mut statuses: Vec<(&str, &str)> = Vec::new();
            if !PUBLIC.contains(&path.as_str()) {
                op["security"] = if TOKEN_OPTIONAL.contains(&path.as_str()) {
                    json!([{}, {"bearer": []}])
                } else {
                    json!([{"bearer": []}])
                };
                statuses.push(("401", "Missing, malformed, forged or expired token"));
            }
            if op.get("requestBody").is_some() {
                statuses.push(("400", "Malformed JSON or wrong content type"));
                statuses.push(("413", "The body is larger than allowed"));
                statuses.push(("422", "Field errors, all at once"));
            }
            // Paging starts at 1 (`ListParams` refuses 0 and below with 400).
            let params = op.get_mut("parameters").and_then(|p| p.as_array_mut());
            for p in params.into_iter().flatten() {
                if p["in"] == "query" && (p["name"] == "pageNum" || p["name"] == "pageSize") {
                    p["schema"]["minimum"] = json!(1);
                }
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            if params.iter().any(|p| p["in"] == "query") {
                statuses.push(("400", "A query parameter could not be read"));
                statuses.push((
                    "422",
                    "A query value holds control characters or is too long",
                ));
            }
            if params.iter().any(|p| p["in"] == "path") {
                statuses.push(("404", "No such record, or not visible to the caller"));
            }
            if RATE_LIMITED.contains(&path.as_str()) {
                statuses.push((
                    "429",
                    "Too many requests or failed attempts; retry after `Retry-After` seconds",
                ));
            }
            statuses.push((
                "503",
                "The database cannot be reached right now; retry after `Retry-After` seconds",
            ));
            let responses = op["responses"]
                .as_object_mut()
                .expect("every operation has responses");
            for (status, description) in statuses {
                responses
                    .entry(status)
                    .or_insert_with(|| json!({"description": description}));
            }
            for (status, response) in responses.iter_mut() {
                // OpenAPI requires a description on every response; an annotation that gave
                // only a body gets the status's reason phrase.
                if response["description"].as_str().is_none_or(str::is_empty) {
                    let reason = status
                        .parse::<u16>()
                        .ok()
                        .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                        .and_then(|s| s.canonical_reason())
                        .unwrap_or("Response");
                    response["description"] = json!(reason);
                }
                if status.starts_with('4') || status.starts_with('5') {
                    response["content"] = envelope.clone();
                }
            }
        }
    }
    value
}

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(SwaggerUi::new("/api/docs").external_url_unchecked("/api/openapi.json", document()))
}
