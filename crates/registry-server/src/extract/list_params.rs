//! List parameters: paging, and the filters of a list request, from `?filters=<json>` as the web
//! client sends them or from plain query parameters (product.md §2).

use super::{DEFAULT_PAGE_SIZE, MAX_PAGE_NUM, MAX_PAGE_SIZE, Query, parse_json};
use crate::error::ApiError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde_json::{Map, Value};

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
            Practice::parse_loosely,
            Practice::as_str,
            Practice::allowed,
        )?;
        let department = self.one_of(
            "department",
            Department::parse_loosely,
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
            state: self.one_state()?,
            city: self.text("city"),
            group_id: self.text("group"),
            radioisotope,
            practice,
            user_id: self.text("userId"),
        })
    }

    /// The facility lists' `state`: one state. A repeated `state` key reaches here joined, as the
    /// due lists' list of states (`PE,PE`): the same state given twice is that state, and two
    /// different ones are a 400, as any other key given twice with different values.
    fn one_state(&self) -> Result<Option<String>, ApiError> {
        let Some(text) = self.text("state") else {
            return Ok(None);
        };
        let mut states = text.split(',').map(str::trim).filter(|s| !s.is_empty());
        let first = states.next().map(str::to_owned);
        let key = first.as_deref().map(registry_core::text::search_key);
        if states.any(|s| Some(registry_core::text::search_key(s)) != key) {
            return Err(ApiError::BadRequest(
                "state is given more than once with different values; give one state.".into(),
            ));
        }
        Ok(first)
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

    /// The filter `key` as the value `parse` reads (named by `name`); another value is a 400
    /// naming the `allowed` ones.
    pub fn one_of<T>(
        &self,
        key: &str,
        parse: fn(&str) -> Option<T>,
        name: fn(T) -> &'static str,
        allowed: fn() -> String,
    ) -> Result<Option<String>, ApiError> {
        self.listed(key, allowed, |v| parse(v).map(name))
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

/// Puts `key` = `value` into `filters`, read from a plain query parameter or from `filters`
/// alike: a key given again must say the same (a number and its text are the same; a null or
/// blank one says nothing), else the request is refused naming it; `state` twice is the list of
/// both (`state=overdue&state=due_soon`, as clients that send arrays write it).
fn merge(filters: &mut Map<String, Value>, key: String, value: Value) -> Result<(), ApiError> {
    let value = match (filters.get(&key), &value) {
        (None, _) => value,
        (Some(first), _) if is_blank(first) => value,
        (Some(_), next) if is_blank(next) => return Ok(()),
        (Some(Value::String(first)), Value::String(next)) if key == "state" => {
            Value::String(format!("{first},{next}"))
        }
        // A page number or size as each is read (`5`, `"05"`, `" 5"`), each refused when it
        // is not one.
        (Some(first), next) if PAGING_KEYS.contains(&key.as_str()) => {
            if positive_int(first, &key)? == positive_int(next, &key)? {
                return Ok(());
            }
            return Err(given_twice(&key));
        }
        (Some(first), next) if same_value(first, next) => return Ok(()),
        (Some(_), _) => return Err(given_twice(&key)),
    };
    filters.insert(key, value);
    Ok(())
}

fn given_twice(key: &str) -> ApiError {
    ApiError::BadRequest(format!(
        "{key} is given more than once with different values; give it once."
    ))
}

/// Whether two values of a filter say the same: equal, or a number or boolean and its text,
/// white space around it aside.
fn same_value(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        _ => None,
    };
    text(a).is_some_and(|a| Some(a) == text(b))
}

/// The keys read as a page number or size.
const PAGING_KEYS: [&str; 3] = ["pageNum", "pageSize", "limit"];

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
        // Read as text below with every byte that is not UTF-8 replaced: a value in another
        // encoding (Latin-1 `%E9`) would search for something else and find nothing.
        let query = parts.uri.query().unwrap_or_default();
        if query.split('&').any(|piece| {
            percent_encoding::percent_decode_str(piece)
                .decode_utf8()
                .is_err()
        }) {
            return Err(ApiError::BadRequest(
                "The query string is not UTF-8 text once its %-escapes are decoded.".into(),
            ));
        }
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
                    Value::Object(o) => {
                        for (k, v) in o {
                            merge(&mut filters, k, v)?;
                        }
                    }
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
                merge(&mut filters, k, Value::String(v))?;
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
        if let (Some(size), Some(limit)) = (given("pageSize"), given("limit"))
            && positive_int(size, "pageSize")? != positive_int(limit, "limit")?
        {
            return Err(ApiError::BadRequest(
                "pageSize and limit (the same setting) are given with different values; give one."
                    .into(),
            ));
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
