//! The typed HTTP client of the registry API (reqwest + rustls), over the shared core types.

use crate::error::ClientError;
use futures::StreamExt;
use registry_core::api::{
    AuditEvent, ChangePasswordInput, Facility, FacilityUserInput, FacilityUsersInput, Group,
    IdInput, ListEnvelope, LoginRequest, LoginResponse, Message, PasswordRecoverInput, User,
    UserInput,
};
use registry_core::document::{Document, SigningKeyInfo};
use registry_core::equipment::{DueTest, Equipment, EquipmentType, QcTest, TestType};
use registry_core::material::{Receipt, WeeklyUsage};
use registry_core::notice::Notice;
use registry_core::waste::WastePackage;
use reqwest::multipart::{Form, Part};
use reqwest::{Body, Method, RequestBuilder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// The body of the requests that only name a record: `{"_id": id}`.
fn id_body(id: &str) -> IdInput {
    IdInput { id: id.to_owned() }
}

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
    pub async fn register_user(&self, body: &UserInput) -> Result<User> {
        self.post("/register/", body).await
    }

    /// `POST /edit/`: the fields present replace the stored ones.
    pub async fn edit_user(&self, body: &UserInput) -> Result<User> {
        self.post("/edit/", body).await
    }

    pub async fn deactivate_user(&self, id: &str) -> Result<Message> {
        self.post("/exclude/", &id_body(id)).await
    }

    /// Own password (`current` given) or, for an Administrator, another user's (`user_id` given).
    pub async fn change_password(
        &self,
        user_id: Option<&str>,
        current: Option<&str>,
        new: &str,
    ) -> Result<Message> {
        let body = ChangePasswordInput {
            id: user_id.map(str::to_owned),
            current_password: current.map(str::to_owned),
            new_password: new.to_owned(),
        };
        self.post("/changePassword/", &body).await
    }

    pub async fn request_password_recovery(&self, email: &str) -> Result<Message> {
        let body = PasswordRecoverInput {
            email: Some(email.to_owned()),
            token: None,
            new_password: None,
        };
        self.post("/password_recover/", &body).await
    }

    pub async fn reset_password(&self, token: &str, new: &str) -> Result<Message> {
        let body = PasswordRecoverInput {
            email: None,
            token: Some(token.to_owned()),
            new_password: Some(new.to_owned()),
        };
        self.post("/password_recover/", &body).await
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
    pub async fn edit_facility_users(
        &self,
        id: &str,
        users: &[FacilityUserInput],
    ) -> Result<Facility> {
        let body = FacilityUsersInput {
            id: id.to_owned(),
            users: users.to_vec(),
        };
        self.post("/facility/users/edit", &body).await
    }

    pub async fn archive_facility(&self, id: &str) -> Result<Message> {
        self.post("/facility/exclude", &id_body(id)).await
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
        self.post("/group/exclude", &id_body(id)).await
    }

    // ---- equipment types and test types (spec §4.4) ----

    pub async fn equipment_types(&self, query: &ListQuery) -> Result<Vec<EquipmentType>> {
        self.all_pages("/typeOfEquipment", query).await
    }

    pub async fn equipment_type(&self, id: &str) -> Result<EquipmentType> {
        self.get(&format!("/typeOfEquipment/{id}"), &ListQuery::default())
            .await
    }

    /// Every test type, or those of one equipment type.
    pub async fn test_types(&self, equipment_type: Option<&str>) -> Result<Vec<TestType>> {
        let query = match equipment_type {
            Some(t) => ListQuery::default().filter("typeOfEquipment", t),
            None => ListQuery::default(),
        };
        self.all_pages("/typeOfTest", &query).await
    }

    pub async fn test_type(&self, id: &str) -> Result<TestType> {
        self.get(&format!("/typeOfTest/{id}"), &ListQuery::default())
            .await
    }

    // ---- equipment (spec §4.4) ----

    pub async fn equipment(&self, id: &str) -> Result<Equipment> {
        self.get(&format!("/equipment/{id}"), &ListQuery::default())
            .await
    }

    /// One page of a facility's equipment; filters `typeOfEquipment`, `active`, `q`.
    pub async fn facility_equipment(
        &self,
        facility_id: &str,
        query: &ListQuery,
    ) -> Result<ListEnvelope<Equipment>> {
        self.get(&format!("/facility/{facility_id}/equipments"), query)
            .await
    }

    /// `POST /equipment/register`: `{facility, typeOfEquipment, manufacturer?, model?,
    /// serialNumber?, patrimonialNumber?, localization?, attributes?}`.
    pub async fn register_equipment(&self, payload: &Value) -> Result<Equipment> {
        self.post("/equipment/register", payload).await
    }

    /// `POST /facility/equipment/edit`: `payload` carries `_id` and the fields to change.
    pub async fn edit_equipment(&self, payload: &Value) -> Result<Equipment> {
        self.post("/facility/equipment/edit", payload).await
    }

    pub async fn archive_equipment(&self, id: &str) -> Result<Message> {
        self.post("/facility/equipment/exclude", &id_body(id)).await
    }

    // ---- QC tests (spec §4.6) ----

    /// `POST /test/`: `{equipment, typeOfTest, date, conclusion, performedBy?, measurements?,
    /// notes?, document?}`.
    pub async fn record_test(&self, payload: &Value) -> Result<QcTest> {
        self.post("/test/", payload).await
    }

    pub async fn qc_test(&self, id: &str) -> Result<QcTest> {
        self.get(&format!("/test/{id}"), &ListQuery::default())
            .await
    }

    /// `GET /test/:id/report`: the test's one-page PDF report.
    pub async fn qc_test_report(&self, id: &str) -> Result<FileDownload> {
        let path = format!("/test/{id}/report");
        let response = self
            .send_raw(self.request(Method::GET, &path), &path)
            .await?;
        Ok(FileDownload {
            url: self.url(&path),
            response,
        })
    }

    /// `PUT /test/:id`: the fields present replace the stored ones.
    pub async fn edit_test(&self, id: &str, payload: &Value) -> Result<QcTest> {
        self.put(&format!("/test/{id}"), payload).await
    }

    /// `POST /test/:id` archives the record (spec §4.6 names the delete so).
    pub async fn delete_test(&self, id: &str) -> Result<Message> {
        self.post(&format!("/test/{id}"), &json!({})).await
    }

    /// Every record of one test type on one equipment, newest first; filters `dateGte`, `dateLt`.
    pub async fn test_history(
        &self,
        equipment_id: &str,
        test_type_id: &str,
        query: &ListQuery,
    ) -> Result<Vec<QcTest>> {
        self.all_pages(&format!("/test/{equipment_id}/{test_type_id}"), query)
            .await
    }

    /// Every test type of the equipment's type with its last date, next due date and state;
    /// filter `state` (comma-separated).
    pub async fn equipment_due(
        &self,
        equipment_id: &str,
        query: &ListQuery,
    ) -> Result<Vec<DueTest>> {
        self.all_pages(&format!("/equipment/{equipment_id}/tests/due"), query)
            .await
    }

    /// What needs attention across the facilities the caller can read; filters `state`,
    /// `facilityId`, `typeOfEquipment`.
    pub async fn tests_due(&self, query: &ListQuery) -> Result<Vec<DueTest>> {
        self.all_pages("/tests/due", query).await
    }

    // ---- radioactive material, waste and notices (docs/radioactive-material.md) ----

    /// `POST /facility/:id/receipts`: `{radioisotope, activity, activityReferenceTime?, supplier,
    /// lot?, receivedBy?, receivedAt?, notes?}`.
    pub async fn receive_material(&self, facility_id: &str, payload: &Value) -> Result<Receipt> {
        self.post(&format!("/facility/{facility_id}/receipts"), payload)
            .await
    }

    /// Receipts of every facility the caller can read (filters `facilityId`, `week`,
    /// `radioisotope`, `overQuantity`), latest received first.
    pub async fn receipts(&self, query: &ListQuery) -> Result<Vec<Receipt>> {
        self.all_pages("/receipts", query).await
    }

    /// `GET /facility/:id/radioisotopes/usage?week=YYYY-Www` (the current week without one).
    pub async fn weekly_usage(&self, facility_id: &str, week: Option<&str>) -> Result<WeeklyUsage> {
        let mut query = ListQuery::default();
        if let Some(w) = week {
            query = query.filter("week", w);
        }
        self.get(
            &format!("/facility/{facility_id}/radioisotopes/usage"),
            &query,
        )
        .await
    }

    /// `POST /facility/:id/waste`: `{form, contents: [{radioisotope, activity}], mass, closedAt?,
    /// location, description?}`.
    pub async fn store_waste(&self, facility_id: &str, payload: &Value) -> Result<WastePackage> {
        self.post(&format!("/facility/{facility_id}/waste"), payload)
            .await
    }

    /// Waste packages (filters `facilityId`, `releasable`, `released`, `radioisotope`).
    pub async fn waste(&self, query: &ListQuery) -> Result<Vec<WastePackage>> {
        self.all_pages("/waste", query).await
    }

    /// `POST /waste/:id/release`: `{doseRate, releasedAt?, notes?}`.
    pub async fn release_waste(&self, id: &str, payload: &Value) -> Result<WastePackage> {
        self.post(&format!("/waste/{id}/release"), payload).await
    }

    /// What needs the responsible people today (filters `facilityId`, `kind`).
    pub async fn notices(&self, query: &ListQuery) -> Result<Vec<Notice>> {
        self.all_pages("/notices", query).await
    }

    // ---- documents (spec §4.5) ----

    /// One page of documents; filters `status` (value or slug), `facilityId`, `equipmentId`,
    /// `testId`, `dateGte`, `dateLt`, `q`.
    pub async fn documents(&self, query: &ListQuery) -> Result<ListEnvelope<Document>> {
        self.get("/documents", query).await
    }

    pub async fn document(&self, id: &str) -> Result<Document> {
        self.get(&format!("/document/{id}"), &ListQuery::default())
            .await
    }

    /// `POST /document/register/`: the fields as one `data` JSON part and the file streamed
    /// from disk (never held in memory); `progress` is called with the bytes sent so far.
    pub async fn upload_document(
        &self,
        fields: &Value,
        file: &Path,
        progress: impl Fn(u64) + Send + Sync + 'static,
    ) -> Result<Document> {
        let path = "/document/register/";
        let form = Form::new()
            .text("data", fields.to_string())
            .part("file", file_part(file, progress).await?);
        self.send(self.request(Method::POST, path).multipart(form), path)
            .await
    }

    /// `GET /document/:id/file[?version=N]` (default the current file), to be read chunk by
    /// chunk so a large file is never held in memory.
    pub async fn document_file(&self, id: &str, version: Option<i64>) -> Result<FileDownload> {
        let path = format!("/document/{id}/file");
        let mut query = ListQuery::default();
        if let Some(v) = version {
            query = query.filter("version", v.to_string());
        }
        let response = self
            .send_raw(
                self.request(Method::GET, &path).query(&query.pairs()),
                &path,
            )
            .await?;
        Ok(FileDownload {
            url: self.url(&path),
            response,
        })
    }

    pub async fn sign_document(&self, id: &str) -> Result<Document> {
        self.post("/document/sign/", &id_body(id)).await
    }

    pub async fn release_document(&self, id: &str) -> Result<Document> {
        self.post("/document/liberate/", &id_body(id)).await
    }

    pub async fn archive_document(&self, id: &str) -> Result<Message> {
        self.post("/document/exclude", &id_body(id)).await
    }

    pub async fn comment_document(&self, id: &str, text: &str) -> Result<Document> {
        self.post(&format!("/document/{id}/comment"), &json!({"text": text}))
            .await
    }

    /// `POST /document/scheduleEmail/`: at `send_at` (RFC 3339; default now) to `to` (default the
    /// facility's active users). Only released documents.
    pub async fn schedule_document_email(
        &self,
        id: &str,
        send_at: Option<&str>,
        to: &[String],
    ) -> Result<Document> {
        let mut body = json!({"_id": id});
        if let Some(at) = send_at {
            body["sendAt"] = json!(at);
        }
        if !to.is_empty() {
            body["to"] = json!(to);
        }
        self.post("/document/scheduleEmail/", &body).await
    }

    /// The server's Ed25519 public key that document signatures are checked with.
    pub async fn signing_key(&self) -> Result<SigningKeyInfo> {
        self.get("/signing-key", &ListQuery::default()).await
    }
}

/// A document's file as the server streams it.
pub struct FileDownload {
    url: String,
    response: reqwest::Response,
}

impl FileDownload {
    /// The size the server announced, when it did.
    pub fn content_length(&self) -> Option<u64> {
        self.response.content_length()
    }

    /// The next piece of the file; `None` at the end.
    pub async fn chunk(&mut self) -> Result<Option<bytes::Bytes>> {
        self.response
            .chunk()
            .await
            .map_err(|source| ClientError::Connection {
                url: self.url.clone(),
                source,
            })
    }
}

/// The declared type of an upload from its extension; the server decides by the first bytes
/// anyway, so this only keeps the stored `contentType` readable.
fn content_type(file: &Path) -> &'static str {
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        _ => "application/octet-stream",
    }
}

/// A multipart part that reads `file` as it is sent, with its length so the server and the
/// progress bar know the size up front.
async fn file_part(file: &Path, progress: impl Fn(u64) + Send + Sync + 'static) -> Result<Part> {
    let io = |source| ClientError::Io {
        what: format!("reading {}", file.display()),
        source,
    };
    let handle = tokio::fs::File::open(file).await.map_err(io)?;
    let len = handle.metadata().await.map_err(io)?.len();
    let mut sent = 0u64;
    let stream = tokio_util::io::ReaderStream::new(handle).inspect(move |chunk| {
        if let Ok(bytes) = chunk {
            sent += bytes.len() as u64;
            progress(sent);
        }
    });
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    Ok(Part::stream_with_length(Body::wrap_stream(stream), len)
        .file_name(name)
        .mime_str(content_type(file))
        .expect("the MIME types of content_type are valid"))
}
