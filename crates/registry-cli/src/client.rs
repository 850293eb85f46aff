//! The typed HTTP client of the registry API (reqwest + rustls), over the shared core types.

use crate::error::ClientError;
use registry_core::api::{
    AuditEvent, Facility, Group, ListEnvelope, LoginRequest, LoginResponse, Message, User,
};
use reqwest::{Method, RequestBuilder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::time::Duration;

pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// The largest page the server gives (product.md §1); walking every page uses it.
pub const MAX_PAGE_SIZE: u32 = 200;

/// One page of a list with its filters, sent as plain query parameters.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub page_num: Option<u32>,
    pub page_size: Option<u32>,
    pub filters: Vec<(String, String)>,
}

impl ListQuery {
    pub fn filter(mut self, key: &str, value: impl Into<String>) -> Self {
        self.filters.push((key.to_owned(), value.into()));
        self
    }

    fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = self.filters.clone();
        if let Some(n) = self.page_num {
            pairs.push(("pageNum".into(), n.to_string()));
        }
        if let Some(n) = self.page_size {
            pairs.push(("pageSize".into(), n.to_string()));
        }
        pairs
    }
}

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    /// The API base, ending in `/api` (no trailing slash).
    base: String,
    token: Option<String>,
}

/// The API base for what a person types: `https://host`, `https://host/`, `https://host/api/`
/// all give `https://host/api`.
pub fn api_base(server: &str) -> String {
    let trimmed = server.trim().trim_end_matches('/');
    if trimmed.ends_with("/api") {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/api")
    }
}

impl Client {
    pub fn new(server: &str) -> Result<Self> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("registry-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|source| ClientError::Connection {
                url: server.to_owned(),
                source,
            })?;
        Ok(Client {
            http,
            base: api_base(server),
            token: None,
        })
    }

    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let req = self.http.request(method, self.url(path));
        match &self.token {
            Some(t) => req.bearer_auth(t),
            None => req,
        }
    }

    async fn send_raw(&self, req: RequestBuilder, path: &str) -> Result<reqwest::Response> {
        let url = self.url(path);
        let res = req
            .send()
            .await
            .map_err(|source| ClientError::Connection { url, source })?;
        if res.status().is_success() {
            return Ok(res);
        }
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        Err(ClientError::from_status(status, &text))
    }

    async fn send<T: DeserializeOwned>(&self, req: RequestBuilder, path: &str) -> Result<T> {
        let res = self.send_raw(req, path).await?;
        let url = self.url(path);
        let bytes = res
            .bytes()
            .await
            .map_err(|source| ClientError::Connection {
                url: url.clone(),
                source,
            })?;
        serde_json::from_slice(&bytes).map_err(|e| ClientError::Decode {
            url,
            message: e.to_string(),
        })
    }

    pub async fn get<T: DeserializeOwned>(&self, path: &str, query: &ListQuery) -> Result<T> {
        self.send(self.request(Method::GET, path).query(&query.pairs()), path)
            .await
    }

    pub async fn post<T: DeserializeOwned>(&self, path: &str, body: &impl Serialize) -> Result<T> {
        self.send(self.request(Method::POST, path).json(body), path)
            .await
    }

    pub async fn put<T: DeserializeOwned>(&self, path: &str, body: &impl Serialize) -> Result<T> {
        self.send(self.request(Method::PUT, path).json(body), path)
            .await
    }

    /// Every page of a list, walked with the largest page size.
    pub async fn all_pages<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &ListQuery,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        let mut page = 1;
        loop {
            let q = ListQuery {
                page_num: Some(page),
                page_size: Some(MAX_PAGE_SIZE),
                filters: query.filters.clone(),
            };
            let env: ListEnvelope<T> = self.get(path, &q).await?;
            let got = env.list.len();
            out.extend(env.list);
            if got == 0 || out.len() as i64 >= env.paging.total {
                return Ok(out);
            }
            page += 1;
        }
    }

    // ---- authentication and users (spec §4.1, §4.2) ----

    pub async fn login(&self, email: &str, password: &str) -> Result<LoginResponse> {
        let body = LoginRequest {
            email: email.to_owned(),
            password: password.to_owned(),
        };
        self.post("/login/", &body).await
    }

    /// `POST /register/`: `{name, email, password, roles?, telephone?, cpf?, licences...}`.
    pub async fn register_user(&self, body: &Value) -> Result<User> {
        self.post("/register/", body).await
    }

    /// `POST /edit/`: the fields present replace the stored ones.
    pub async fn edit_user(&self, body: &Value) -> Result<User> {
        self.post("/edit/", body).await
    }

    pub async fn deactivate_user(&self, id: &str) -> Result<Message> {
        self.post("/exclude/", &json!({"_id": id})).await
    }

    /// Own password (`current` given) or, for an Administrator, another user's (`user_id` given).
    pub async fn change_password(
        &self,
        user_id: Option<&str>,
        current: Option<&str>,
        new: &str,
    ) -> Result<Message> {
        let mut body = json!({"newPassword": new});
        if let Some(id) = user_id {
            body["_id"] = json!(id);
        }
        if let Some(c) = current {
            body["currentPassword"] = json!(c);
        }
        self.post("/changePassword/", &body).await
    }

    pub async fn request_password_recovery(&self, email: &str) -> Result<Message> {
        self.post("/password_recover/", &json!({"email": email}))
            .await
    }

    pub async fn reset_password(&self, token: &str, new: &str) -> Result<Message> {
        self.post(
            "/password_recover/",
            &json!({"token": token, "newPassword": new}),
        )
        .await
    }

    pub async fn users(&self, query: &ListQuery) -> Result<ListEnvelope<User>> {
        self.get("/users", query).await
    }

    pub async fn user(&self, id: &str) -> Result<User> {
        self.get(&format!("/user/{id}"), &ListQuery::default())
            .await
    }

    pub async fn user_facilities(&self, id: &str) -> Result<Vec<Facility>> {
        self.all_pages(&format!("/user/{id}/facilities"), &ListQuery::default())
            .await
    }

    // ---- facilities (spec §4.3) ----

    pub async fn facilities(&self, query: &ListQuery) -> Result<ListEnvelope<Facility>> {
        self.get("/facilities", query).await
    }

    pub async fn facility(&self, id: &str) -> Result<Facility> {
        self.get(&format!("/facility/{id}"), &ListQuery::default())
            .await
    }

    /// `POST /facility/register/`. A facility already registered with this cnpj in this
    /// department answers [`ClientError::Conflict`] with code `duplicate_facility` and its `_id`.
    pub async fn register_facility(&self, payload: &Value) -> Result<Facility> {
        self.post("/facility/register/", payload).await
    }

    /// `PUT /facility/:id/edit`: keys present replace, absent keys stay. With `version`, the edit
    /// is refused (412 → [`ClientError::Conflict`]) when someone changed the facility meanwhile.
    pub async fn edit_facility(
        &self,
        id: &str,
        payload: &Value,
        version: Option<i64>,
    ) -> Result<Facility> {
        let path = format!("/facility/{id}/edit");
        let mut req = self.request(Method::PUT, &path).json(payload);
        if let Some(v) = version {
            req = req.header(reqwest::header::IF_MATCH, format!("W/\"{v}\""));
        }
        self.send(req, &path).await
    }

    /// `POST /facility/users/edit`: replaces the user links; a new holder of a main role
    /// replaces the previous one.
    pub async fn edit_facility_users(&self, id: &str, users: &Value) -> Result<Facility> {
        self.post("/facility/users/edit", &json!({"_id": id, "users": users}))
            .await
    }

    pub async fn archive_facility(&self, id: &str) -> Result<Message> {
        self.post("/facility/exclude", &json!({"_id": id})).await
    }

    pub async fn facility_history(&self, id: &str) -> Result<Vec<AuditEvent>> {
        self.all_pages(&format!("/facility/{id}/history"), &ListQuery::default())
            .await
    }

    // ---- groups (spec §4.7) ----

    pub async fn groups(&self, query: &ListQuery) -> Result<ListEnvelope<Group>> {
        self.get("/group", query).await
    }

    pub async fn group(&self, id: &str) -> Result<Group> {
        self.get(&format!("/group/{id}"), &ListQuery::default())
            .await
    }

    pub async fn register_group(&self, name: &str, description: Option<&str>) -> Result<Group> {
        self.post(
            "/group/register",
            &json!({"name": name, "description": description}),
        )
        .await
    }

    /// `POST /group/edit`: `body` carries `_id` and the fields to change.
    pub async fn edit_group(&self, body: &Value) -> Result<Group> {
        self.post("/group/edit", body).await
    }

    pub async fn delete_group(&self, id: &str) -> Result<Message> {
        self.post("/group/exclude", &json!({"_id": id})).await
    }
}
