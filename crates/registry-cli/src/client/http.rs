//! The client itself: the server's address and token, requests, the error envelope mapped to
//! [`ClientError`], pages of lists, and streamed downloads.

use crate::error::ClientError;
use registry_core::ErrorBody;
use registry_core::api::{IdInput, ListEnvelope};
use reqwest::{Method, RequestBuilder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// The body of the requests that only name a record: `{"_id": id}`.
pub(super) fn id_body(id: &str) -> IdInput {
    IdInput { id: id.to_owned() }
}

/// A path of the API (`/facility/ID/edit`) from its segments, each percent-encoded as one
/// segment (`/` → `%2F`, `?` → `%3F`, a space → `%20`…), so that an `_id` or name a person typed
/// never changes which endpoint is asked: `facility show ../users` asks for
/// `/facility/..%2Fusers`, a 404. A segment that is empty, `.` or `..` names no record (URLs
/// resolve the dots away): [`ClientError::NotFound`] without asking.
pub fn api_path(segments: &[&str]) -> Result<String> {
    if let Some(bad) = segments.iter().find(|s| matches!(**s, "" | "." | "..")) {
        return Err(ClientError::NotFound(ErrorBody {
            message: format!("no record with _id `{bad}`"),
            code: "not_found".into(),
            errors: None,
            id: None,
        }));
    }
    let mut url = reqwest::Url::parse("http://registry.invalid/").expect("a valid URL");
    url.path_segments_mut()
        .expect("an http URL has a path")
        .clear()
        .extend(segments);
    Ok(url.path().to_owned())
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

    /// `filter` when `value` is given; else the query as it is.
    pub fn filter_opt(self, key: &str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(v) => self.filter(key, v),
            None => self,
        }
    }

    pub(super) fn pairs(&self) -> Vec<(String, String)> {
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
    /// How long an answer (or the next piece of one) is waited for.
    timeout: Duration,
}

/// How long [`Client::new`] waits for an answer, or for the next piece of one (a download's,
/// while an upload is being sent: for the server to take the next piece of the file).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a connection to the server is waited for (or the answer's timeout, when shorter).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// When a request last made progress (an upload's file read a piece further): its answer is
/// waited for [`Client::timeout`] from then, so a long upload that keeps moving never times out
/// while a stalled one does.
#[derive(Clone)]
pub(super) struct Activity(Arc<Mutex<Instant>>);

impl Activity {
    pub(super) fn new() -> Self {
        Activity(Arc::new(Mutex::new(Instant::now())))
    }

    pub(super) fn touch(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn last(&self) -> Instant {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
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
    /// A client of `server` that waits [`DEFAULT_TIMEOUT`] for an answer.
    pub fn new(server: &str) -> Result<Self> {
        Self::with_timeout(server, DEFAULT_TIMEOUT)
    }

    /// A client of `server` that waits `timeout` for an answer, or for the next piece of one
    /// (a server that accepts the connection and never answers is a [`ClientError::Timeout`]),
    /// and at most [`CONNECT_TIMEOUT`] (or `timeout`, when shorter) for the connection.
    pub fn with_timeout(server: &str, timeout: Duration) -> Result<Self> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("registry-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(CONNECT_TIMEOUT.min(timeout))
            // A kept-alive connection idle for longer is not used again: the CLI's runtime
            // sleeps while a wizard waits for an answer, so it never sees the server close an
            // idle connection (after 30 s by default), and a request sent on it after a long
            // think would fail. Requests sent one after another (an import) still share one.
            .pool_idle_timeout(Duration::from_secs(1))
            .build()
            .map_err(|source| ClientError::Connection {
                url: server.to_owned(),
                source,
            })?;
        Ok(Client {
            http,
            base: api_base(server),
            token: None,
            timeout,
        })
    }

    /// How long an answer is waited for.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `answer`, a request's answer or a piece of it from `url`, waited for at most
    /// [`Client::timeout`] (from `activity`'s last progress, when given).
    pub(super) async fn within<T>(
        &self,
        url: &str,
        activity: Option<&Activity>,
        answer: impl Future<Output = reqwest::Result<T>>,
    ) -> Result<T> {
        let start = Instant::now();
        let since = || activity.map_or(start, |a| a.last().max(start));
        tokio::pin!(answer);
        loop {
            tokio::select! {
                got = &mut answer => {
                    return got.map_err(|source| ClientError::Connection {
                        url: url.to_owned(),
                        source,
                    });
                }
                _ = tokio::time::sleep_until(since() + self.timeout) => {
                    if since() + self.timeout <= Instant::now() {
                        return Err(ClientError::Timeout {
                            url: url.to_owned(),
                            seconds: self.timeout.as_secs(),
                        });
                    }
                }
            }
        }
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

    pub(super) fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let req = self.http.request(method, self.url(path));
        match &self.token {
            Some(t) => req.bearer_auth(t),
            None => req,
        }
    }

    pub(super) async fn send_raw(
        &self,
        req: RequestBuilder,
        path: &str,
    ) -> Result<reqwest::Response> {
        self.send_raw_tracked(req, path, None).await
    }

    /// [`Client::send_raw`] whose answer is waited for from `activity`'s last progress.
    pub(super) async fn send_raw_tracked(
        &self,
        req: RequestBuilder,
        path: &str,
        activity: Option<&Activity>,
    ) -> Result<reqwest::Response> {
        let url = self.url(path);
        let res = self.within(&url, activity, req.send()).await?;
        if res.status().is_success() {
            return Ok(res);
        }
        let status = res.status();
        let text = self
            .within(&url, None, res.text())
            .await
            .unwrap_or_default();
        let mut error = ClientError::from_status(status, &text);
        if let ClientError::NotFound(body) = &mut error
            && no_such_endpoint(body)
        {
            body.message = format!(
                "no such endpoint: {url} — is {} the registry's API? Check the server URL \
                 (--server, REGISTRY_URL or the profile's)",
                self.base
            );
        }
        Err(error)
    }

    pub(super) async fn send<T: DeserializeOwned>(
        &self,
        req: RequestBuilder,
        path: &str,
    ) -> Result<T> {
        self.send_tracked(req, path, None).await
    }

    /// [`Client::send`] whose answer is waited for from `activity`'s last progress.
    pub(super) async fn send_tracked<T: DeserializeOwned>(
        &self,
        req: RequestBuilder,
        path: &str,
        activity: Option<&Activity>,
    ) -> Result<T> {
        let res = self.send_raw_tracked(req, path, activity).await?;
        let url = self.url(path);
        let bytes = self.within(&url, None, res.bytes()).await?;
        serde_json::from_slice(&bytes).map_err(|e| ClientError::Decode {
            url,
            message: e.to_string(),
        })
    }

    /// `GET path` without a query.
    pub async fn fetch<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.get(path, &ListQuery::default()).await
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

    /// `GET path` with `query`, its body to be read chunk by chunk so a large file is never held
    /// in memory.
    pub(super) async fn download(&self, path: &str, query: &ListQuery) -> Result<FileDownload> {
        let req = self.request(Method::GET, path).query(&query.pairs());
        let response = self.send_raw(req, path).await?;
        Ok(FileDownload {
            url: self.url(path),
            response,
            client: self.clone(),
        })
    }

    /// Every record of a list, each once, in the list's order ([`super::pages`]: a list written
    /// to while it is walked is walked again).
    pub async fn all_pages<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &ListQuery,
    ) -> Result<Vec<T>> {
        self.all_pages_told(path, query, |_, _| {}).await
    }

    /// [`Client::all_pages`], telling `progress` after each page how many records were read of
    /// how many.
    pub async fn all_pages_told<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &ListQuery,
        mut progress: impl FnMut(usize, i64),
    ) -> Result<Vec<T>> {
        let mut walks = Vec::new();
        for _ in 0..super::pages::WALKS {
            let walk = self.walk(path, query, &mut progress).await?;
            // A walk over a list that held still is the list: the others are not needed.
            if walk.steady {
                walks = vec![walk];
                break;
            }
            walks.push(walk);
        }
        super::pages::merged(walks)
            .into_iter()
            .map(|record| {
                serde_json::from_value(record).map_err(|e| ClientError::Decode {
                    url: self.url(path),
                    message: e.to_string(),
                })
            })
            .collect()
    }

    /// One walk over every page of a list with the largest page size.
    async fn walk(
        &self,
        path: &str,
        query: &ListQuery,
        progress: &mut impl FnMut(usize, i64),
    ) -> Result<super::pages::Walk> {
        let mut walk = super::pages::Walk::default();
        let mut page = 1;
        loop {
            let q = ListQuery {
                page_num: Some(page),
                page_size: Some(MAX_PAGE_SIZE),
                filters: query.filters.clone(),
            };
            let env: ListEnvelope<serde_json::Value> = self.get(path, &q).await?;
            let more = walk.add(env.list, env.paging.total);
            progress(walk.len(), env.paging.total);
            if !more {
                return Ok(walk);
            }
            page += 1;
        }
    }
}

/// A document's file as the server streams it.
pub struct FileDownload {
    pub(super) url: String,
    pub(super) response: reqwest::Response,
    client: Client,
}

impl FileDownload {
    /// The size the server announced, when it did.
    pub fn content_length(&self) -> Option<u64> {
        self.response.content_length()
    }

    /// The next piece of the file; `None` at the end.
    pub async fn chunk(&mut self) -> Result<Option<bytes::Bytes>> {
        self.client
            .within(&self.url, None, self.response.chunk())
            .await
    }
}

/// A 404 that is not about a record but about the path itself: the registry's "No such
/// endpoint." (a path the server does not serve), or an answer that is not the registry's error
/// envelope at all (another server, a proxy): the server URL is likely wrong.
fn no_such_endpoint(body: &ErrorBody) -> bool {
    body.code == "unknown" || body.message == "No such endpoint."
}

#[cfg(test)]
mod tests {
    use super::api_path;

    #[test]
    fn path_segments_are_encoded_one_each() {
        assert_eq!(api_path(&["facility", "abc"]).unwrap(), "/facility/abc");
        assert_eq!(
            api_path(&["facility", "../users"]).unwrap(),
            "/facility/..%2Fusers"
        );
        assert_eq!(
            api_path(&["user", "a b?c#d", "facilities"]).unwrap(),
            "/user/a%20b%3Fc%23d/facilities"
        );
        for bad in ["..", ".", ""] {
            assert!(api_path(&["test", bad]).is_err(), "{bad}");
        }
    }
}
