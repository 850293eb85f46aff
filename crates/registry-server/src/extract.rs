//! Request extractors: the JSON body (read lazily, so permission checks come before parse
//! errors) and list parameters (`?filters=<json>` as the web client sends them, or plain params).

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub const DEFAULT_PAGE_SIZE: i64 = 20;
/// JSON bodies are small; uploads have their own limits on their routes.
pub const JSON_BODY_LIMIT: usize = 1024 * 1024;

pub const MAX_PAGE_SIZE: i64 = 200;
/// The deepest page that may be asked for: beyond it `(pageNum − 1) × pageSize` would approach
/// the range of a 64-bit offset; no list is that long.
pub const MAX_PAGE_NUM: i64 = 1_000_000_000;

/// A request body that must be JSON; parsed when the handler asks for it. A body that could not
/// be read (over the limit, cut off) is answered only then too: permission comes before body
/// (docs/decisions.md), so a caller who may not act learns nothing from the body's size.
pub struct JsonBody {
    bytes: Result<Bytes, StatusCode>,
    is_json: bool,
    /// A `Content-Encoding` other than `identity` (a compressed body), named for the answer.
    encoding: Option<String>,
}

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|m| {
                let m = m.trim().to_ascii_lowercase();
                m == "application/json" || m.ends_with("+json")
            })
            .unwrap_or(false);
        let encoding = req
            .headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
            .filter(|e| !e.eq_ignore_ascii_case("identity"));
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|rejection| rejection.status());
        Ok(JsonBody {
            bytes,
            is_json,
            encoding,
        })
    }
}

/// `bytes` read as JSON, or why they cannot be.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Value, String> {
    registry_core::json::parse(bytes).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            // Well-formed, but deeper than the parser follows (serde_json's 128 levels).
            format!("The JSON nests too deeply (at most 127 levels of arrays and objects): {e}.")
        } else {
            format!("Malformed JSON: {e}.")
        }
    })
}

impl JsonBody {
    /// The body: a JSON object, within the limits of `payload::check_body_limits`.
    pub fn value(&self) -> Result<Value, ApiError> {
        let bytes = self.bytes()?;
        if !self.is_json {
            return Err(ApiError::BadRequest(
                "Expected a JSON body with Content-Type: application/json.".into(),
            ));
        }
        // Read as sent, a compressed body would be judged as the wrong bytes.
        if let Some(encoding) = &self.encoding {
            return Err(ApiError::BadRequest(format!(
                "Content-Encoding \"{encoding}\" is not accepted: send the body uncompressed."
            )));
        }
        let value = parse_json(bytes).map_err(ApiError::BadRequest)?;
        // Every body of the API is an object: other JSON (`[]`, `"x"`) is refused as a whole, not
        // read as an object whose fields are all missing.
        if !value.is_object() {
            return Err(not_an_object());
        }
        let errors = registry_core::payload::check_body_limits(&value);
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(value)
    }

    /// The bytes as sent, or why they could not be read.
    fn bytes(&self) -> Result<&Bytes, ApiError> {
        self.bytes.as_ref().map_err(|status| {
            if *status == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge("The request body is larger than allowed.".into())
            } else {
                ApiError::BadRequest("The request body could not be read.".into())
            }
        })
    }

    /// The body as a JSON object; other JSON is a validation error of the whole body (field `""`),
    /// as a field of the wrong type is.
    pub fn object(&self) -> Result<Map<String, Value>, ApiError> {
        match self.value()? {
            Value::Object(fields) => Ok(fields),
            _ => Err(not_an_object()),
        }
    }

    /// The body of a request whose path names the record (`PUT /facility/{id}/edit`): an `_id`
    /// in the body may repeat the path's, never name another record (422 `_id`, with the
    /// payload's own field errors, `others`, so that one 422 names every failing field).
    pub fn value_for(
        &self,
        path_id: &str,
        others: impl FnOnce(&Value) -> Vec<registry_core::FieldError>,
    ) -> Result<Value, ApiError> {
        let value = self.value()?;
        let refused = match value.get("_id") {
            None | Some(Value::Null) => None,
            Some(Value::String(body_id)) if body_id.trim() == path_id => None,
            Some(Value::String(_)) => {
                Some(format!("does not match the record in the path ({path_id})"))
            }
            Some(_) => Some("must be a string".to_owned()),
        };
        match refused {
            Some(message) => {
                let id = registry_core::FieldError::new(
                    "_id",
                    registry_core::FieldCode::InvalidValue,
                    message,
                );
                let others = others(&value).into_iter().filter(|e| e.field != "_id");
                Err(ApiError::Validation(
                    std::iter::once(id).chain(others).collect(),
                ))
            }
            None => Ok(value),
        }
    }

    /// For a request whose path names the record and that needs no body (`POST /test/{id}`):
    /// no body at all, or one that [`JsonBody::value_for`] takes. A malformed body is refused
    /// rather than ignored: the request may not be what its sender meant.
    pub fn nothing_or_for(&self, path_id: &str) -> Result<(), ApiError> {
        if self.bytes()?.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        self.value_for(path_id, |_| Vec::new()).map(drop)
    }

    /// The body's `_id`, as [`JsonBody::id`]; when it is refused, the answer also lists the
    /// payload's own field errors (`others`), so that one 422 names every failing field
    /// (product.md §1). With an `_id` the handler reads the payload itself.
    pub fn id_along(
        value: &Value,
        others: impl FnOnce() -> Vec<registry_core::FieldError>,
    ) -> Result<String, ApiError> {
        Self::id(value).map_err(|e| match e {
            ApiError::Validation(mut errors) => {
                errors.extend(others());
                ApiError::Validation(errors)
            }
            other => other,
        })
    }

    /// The body's `_id` (a required string), for the POST forms that carry the id in the body.
    pub fn id(value: &Value) -> Result<String, ApiError> {
        match value.get("_id") {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
            Some(Value::String(_) | Value::Null) | None => Err(ApiError::field(
                "_id",
                registry_core::FieldCode::Required,
                "is required",
            )),
            Some(_) => Err(ApiError::field(
                "_id",
                registry_core::FieldCode::InvalidValue,
                "must be a string",
            )),
        }
    }
}

/// A body that is JSON but not an object (`[]`, `"x"`): a validation error of the whole body
/// (field `""`), as a field of the wrong type is.
fn not_an_object() -> ApiError {
    ApiError::field(
        "",
        registry_core::FieldCode::InvalidValue,
        "the body must be a JSON object",
    )
}

/// Path parameters, refused in the envelope: a segment that cannot be decoded (`%ff` is not
/// UTF-8) names no record, so the answer is 404 like any other unknown id.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| Path(value))
            .map_err(|_| ApiError::NotFound("No such record: the path is not valid.".into()))
    }
}

/// Query parameters, refused in the envelope with 400.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| Query(value))
            .map_err(|e| {
                // axum's text names the failing parameter after a prefix of its own.
                let text = e.body_text();
                let detail = text
                    .strip_prefix("Failed to deserialize query string: ")
                    .unwrap_or(&text);
                ApiError::BadRequest(format!("The query string could not be read: {detail}."))
            })
    }
}

/// Paging and filters of a list request.
#[derive(Debug, Clone)]
pub struct ListParams {
    pub page_num: i64,
    pub page_size: i64,
    filters: Map<String, Value>,
}

impl ListParams {
    /// The facility filters of product.md §2 (`department`, `q`, `state`, `city`, `group`,
    /// `radioisotope`, `practice`, `userId`); the caller's scope is the route's to add. A
    /// department, radioisotope or practice that is none of the spec's is a 400 naming the allowed values,
    /// as on the other lists (a nuclide spelling, `Tc-99m`, and any case or accents are read).
    pub fn facility_filter(&self) -> Result<crate::store::facilities::FacilityFilter, ApiError> {
        use registry_core::values::{Department, Practice};
        let radioisotope = self.radioisotope()?.map(|r| r.as_str().to_owned());
        let practice = self.one_of(
            "practice",
            Practice::ALL,
            Practice::as_str,
            Practice::allowed,
        )?;
        let department = self.one_of(
            "department",
            Department::ALL,
            Department::as_str,
            Department::allowed,
        )?;
        Ok(crate::store::facilities::FacilityFilter {
            department,
            member: None,
            // A CNPJ pasted in its display form is searched as stored (bare).
            q: self
                .text("q")
                .map(|q| registry_core::cnpj::search_form(&q).unwrap_or(q)),
            state: self.text("state"),
            city: self.text("city"),
            group_id: self.text("group"),
            radioisotope,
            practice,
            user_id: self.text("userId"),
        })
    }

    /// The `radioisotope` filter of every list that has one: either spelling, in any case
    /// (`Tc(99m)`, `tc-99m`); another value is a 400 naming the allowed ones.
    pub fn radioisotope(&self) -> Result<Option<registry_core::values::Radioisotope>, ApiError> {
        use registry_core::values::Radioisotope;
        let found = self.listed("radioisotope", Radioisotope::allowed, |r| {
            registry_core::material::radioisotope_filter(r).map(Radioisotope::as_str)
        })?;
        Ok(found.as_deref().and_then(Radioisotope::parse))
    }

    /// The filter `key` as one of the values `all` names (`name`), in any case and with or without
    /// accents; another value is a 400 naming the `allowed` ones.
    pub fn one_of<T: Copy>(
        &self,
        key: &str,
        all: &'static [T],
        name: fn(T) -> &'static str,
        allowed: fn() -> String,
    ) -> Result<Option<String>, ApiError> {
        self.listed(key, allowed, |v| {
            let wanted = registry_core::text::search_key(v);
            all.iter()
                .map(|x| name(*x))
                .find(|n| registry_core::text::search_key(n) == wanted)
        })
    }

    /// The filter `key` as the listed value `read` finds for it, or a 400 naming the `allowed`
    /// values (absent: `None`).
    fn listed(
        &self,
        key: &str,
        allowed: fn() -> String,
        read: impl FnOnce(&str) -> Option<&'static str>,
    ) -> Result<Option<String>, ApiError> {
        self.text(key)
            .map(|v| {
                read(&v).map(str::to_owned).ok_or_else(|| {
                    ApiError::BadRequest(format!("{key} must be one of {}.", allowed()))
                })
            })
            .transpose()
    }

    /// Saturates: a page far past the end is empty, never an overflow.
    pub fn offset(&self) -> i64 {
        (self.page_num - 1).saturating_mul(self.page_size)
    }

    /// A filter as text (strings as given, numbers and booleans written out); blank is absent.
    /// `key` is one of [`FILTER_KEYS`], whose values the extractor checked.
    pub fn text(&self, key: &str) -> Option<String> {
        debug_assert!(
            FILTER_KEYS.contains(&key),
            "{key} is missing from FILTER_KEYS"
        );
        match self.filters.get(key)? {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Object(o) => match o.get("_id") {
                Some(Value::String(s)) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// A true/false filter (absent: `None`); any other value is a 400 naming it, never a filter
    /// silently dropped (docs/decisions.md, Paging).
    pub fn flag(&self, key: &str) -> Result<Option<bool>, ApiError> {
        self.text(key)
            .map(|v| match v.as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(ApiError::BadRequest(format!(
                    "{key} must be true or false (got \"{other}\")."
                ))),
            })
            .transpose()
    }

    /// The answer of a list: `list`, one page of `total` records.
    pub fn page<T>(
        &self,
        list: Vec<T>,
        total: i64,
    ) -> axum::Json<registry_core::api::ListEnvelope<T>> {
        axum::Json(registry_core::api::ListEnvelope {
            list,
            paging: self.paging(total),
        })
    }

    pub fn paging(&self, total: i64) -> registry_core::api::Paging {
        registry_core::api::Paging {
            total,
            page_num: self.page_num,
            page_size: self.page_size,
        }
    }
}

/// Every filter key a list reads (through [`ListParams::text`]). A value of one of them must be
/// text, a number, a boolean, null, or a reference `{"_id": "…"}`: anything else (an array, another
/// object) is a 400, not a filter silently ignored. Other keys are ignored, whatever they hold.
const FILTER_KEYS: &[&str] = &[
    "active",
    "city",
    "dateGte",
    "dateLt",
    "department",
    "equipment",
    "equipmentId",
    "facility",
    "facilityId",
    "failing",
    "group",
    "kind",
    "overQuantity",
    "practice",
    "q",
    "radioisotope",
    "releasable",
    "released",
    "role",
    "state",
    "status",
    "test",
    "testId",
    "typeOfEquipment",
    "userId",
    "week",
];

/// A 400 naming the first filter key whose value no list can read.
fn check_filter_types(filters: &Map<String, Value>) -> Result<(), ApiError> {
    let unreadable = filters.iter().find(|(key, value)| {
        FILTER_KEYS.contains(&key.as_str())
            && match value {
                Value::Array(_) => true,
                Value::Object(o) => !matches!(o.get("_id"), Some(Value::String(_))),
                _ => false,
            }
    });
    match unreadable {
        Some((key, _)) => Err(ApiError::BadRequest(format!(
            "The filter {key} must be text, a number or a boolean."
        ))),
        None => Ok(()),
    }
}

fn is_blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

fn positive_int(v: &Value, key: &str) -> Result<i64, ApiError> {
    // A whole number too large for i64 is as large as any: the page size is then cut to its
    // maximum, the page number refused by its range.
    let n = match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().map(|_| i64::MAX)),
        Value::String(s) => {
            let s = s.trim();
            s.parse().ok().or_else(|| {
                (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then_some(i64::MAX)
            })
        }
        _ => None,
    };
    n.filter(|n| *n >= 1)
        .ok_or_else(|| ApiError::BadRequest(format!("{key} must be a whole number of at least 1.")))
}

impl<S: Send + Sync> FromRequestParts<S> for ListParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(pairs) = Query::<Vec<(String, String)>>::from_request_parts(parts, state).await?;
        let mut filters = Map::new();
        for (k, v) in pairs {
            if k == "filters" {
                if v.trim().is_empty() {
                    continue;
                }
                let parsed = parse_json(v.as_bytes())
                    .map_err(|why| ApiError::BadRequest(format!("filters: {why}")))?;
                match parsed {
                    Value::Object(o) => filters.extend(o),
                    Value::Null => {}
                    _ => {
                        return Err(ApiError::BadRequest(
                            "filters must be a JSON object, e.g. filters={\"pageNum\":1}.".into(),
                        ));
                    }
                }
            } else {
                // In one Unicode form, like a JSON body's text (`registry_core::json::parse`).
                let v = registry_core::json::compose(v);
                let v = match filters.get(&k) {
                    // `state=overdue&state=due_soon` is the list `overdue,due_soon`.
                    Some(Value::String(first)) if k == "state" => [first.as_str(), &v]
                        .into_iter()
                        .filter(|s| !s.trim().is_empty())
                        .collect::<Vec<_>>()
                        .join(","),
                    Some(first) if *first != Value::String(v.clone()) => {
                        return Err(ApiError::BadRequest(format!(
                            "{k} is given more than once with different values; give it once."
                        )));
                    }
                    _ => v,
                };
                filters.insert(k, Value::String(v));
            }
        }
        // A paging key that is null or blank takes its default.
        let given = |key| filters.get(key).filter(|v| !is_blank(v));
        let page_num = given("pageNum")
            .map(|v| positive_int(v, "pageNum"))
            .transpose()?
            .unwrap_or(1);
        if page_num > MAX_PAGE_NUM {
            return Err(ApiError::BadRequest(format!(
                "pageNum must be a whole number from 1 to {MAX_PAGE_NUM}."
            )));
        }
        let page_size = given("pageSize")
            .or_else(|| given("limit"))
            .map(|v| positive_int(v, "pageSize"))
            .transpose()?
            .unwrap_or(DEFAULT_PAGE_SIZE)
            .min(MAX_PAGE_SIZE);
        check_filter_types(&filters)?;
        let errors = registry_core::payload::check_object_limits(&filters);
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(ListParams {
            page_num,
            page_size,
            filters,
        })
    }
}
