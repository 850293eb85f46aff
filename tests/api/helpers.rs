//! Test harness: each test gets a real server (`common::start`) on SQLite or PostgreSQL, with
//! an HTTP client and the Administrator logged in.

pub use crate::answer::Answer;
use crate::common;
pub use crate::common::{ADMIN_EMAIL, ADMIN_PASSWORD, Backend, PASSWORD, postgres_admin_url};
use rand::Rng;
use registry_server::Config;
use reqwest::Method;
use serde_json::{Value, json};

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub admin: String,
    pub backend: Backend,
    pub data_dir: tempfile::TempDir,
    /// The server's state, for tests that must set up rows no endpoint of this branch creates.
    pub state: registry_server::AppState,
}

impl TestApp {
    /// A separate connection to the test's database, outside the server (through sqlx's `Any`
    /// driver, for checks that read tables no endpoint shows): its writes are not announced to
    /// the server, which shows whether an answer came from memory.
    pub async fn outside_connection(&self) -> sqlx::AnyConnection {
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let url =
            self.state.config.database_url.clone().unwrap_or_else(|| {
                registry_server::db::Db::default_url(&self.state.config.data_dir)
            });
        sqlx::AnyConnection::connect(&url).await.unwrap()
    }

    /// The audit actions of record `id` of `entity`, oldest first. No endpoint shows the audit
    /// log of documents or waste (the equipment and facility ones have their `history`), so this
    /// reads it outside the server.
    pub async fn audit_actions(&self, entity: &str, id: &str) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT action FROM audit_events WHERE entity = $1 AND entity_id = $2 ORDER BY id",
        )
        .bind(entity)
        .bind(id)
        .fetch_all(&mut self.outside_connection().await)
        .await
        .unwrap()
    }

    /// Starts a server, or `None` when the backend is not available here (PostgreSQL outside CI).
    pub async fn spawn(backend: Backend) -> Option<TestApp> {
        Self::spawn_with(backend, |_| {}).await
    }

    pub async fn spawn_with(
        backend: Backend,
        configure: impl FnOnce(&mut Config),
    ) -> Option<TestApp> {
        let server = common::start(backend, |config| {
            // Tests log in and register a lot from one address: the per-client limiter stays on
            // but generous; tests of the limits set their own (tests/api/abuse.rs).
            config.limits.login_failures_per_client_per_minute = 10_000;
            config.limits.register_per_client_per_hour = 10_000;
            config.limits.recovery_per_client_per_hour = 10_000;
            // No daily digest unless a test asks for one: its planning commit, at whatever hour
            // the suite runs, would empty the read cache under the tests that count on it.
            config.notices.digest_hour = None;
            configure(config);
        })
        .await?;
        let client = reqwest::Client::new();
        let mut test = TestApp {
            base: server.base,
            client,
            admin: String::new(),
            backend,
            data_dir: server.data_dir,
            state: server.state,
        };
        test.admin = test.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
        Some(test)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Answer {
        self.call_as(&self.client, method, path, token, body).await
    }

    /// A call through `client` (for instance one bound to another local address).
    pub async fn call_as(
        &self,
        client: &reqwest::Client,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Answer {
        let mut req = client.request(method, self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        Answer::read(req.send().await.expect("request sent")).await
    }

    /// A POST of `text` as the JSON body, as it is (JSON that `serde_json` would not write).
    pub async fn post_json_text(&self, path: &str, token: &str, text: String) -> Answer {
        let req = self.client.post(self.url(path)).bearer_auth(token);
        let req = req.header("content-type", "application/json").body(text);
        Answer::read(req.send().await.expect("request sent")).await
    }

    pub async fn get(&self, path: &str, token: &str) -> Answer {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(token), Some(&body))
            .await
    }

    /// A GET by `token`, which must succeed (200): the answer's body.
    pub async fn get_ok(&self, path: &str, token: &str) -> Value {
        self.get(path, token).await.expect(200)
    }

    /// A POST by `token`, which must succeed (200): the answer's body.
    pub async fn post_ok(&self, path: &str, token: &str, body: Value) -> Value {
        self.post(path, token, body).await.expect(200)
    }

    /// A PUT by `token`, which must succeed (200): the answer's body.
    pub async fn put_ok(&self, path: &str, token: &str, body: Value) -> Value {
        self.put(path, token, body).await.expect(200)
    }

    /// A POST by `token` that must create a record (201): the answer's body.
    /// A POST that must create (201): the record, which its `Location` reads back the same.
    pub async fn post_created(&self, path: &str, token: &str, body: Value) -> Value {
        let answer = self.post(path, token, body).await;
        let location = answer
            .headers
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned());
        let created = answer.expect(201);
        let location = location.unwrap_or_else(|| panic!("{path}: a 201 without Location"));
        let id = created["_id"].as_str().unwrap();
        assert!(location.ends_with(&format!("/{id}")), "{path}: {location}");
        assert_eq!(self.get_ok(&location, token).await["_id"], id, "{location}");
        created
    }

    /// A GET by the Administrator, which must succeed (200): the answer's body.
    pub async fn admin_get(&self, path: &str) -> Value {
        self.get_ok(path, &self.admin).await
    }

    /// A POST by the Administrator, which must succeed (200): the answer's body.
    pub async fn admin_post(&self, path: &str, body: Value) -> Value {
        self.post_ok(path, &self.admin, body).await
    }

    /// A PUT by the Administrator, which must succeed (200): the answer's body.
    pub async fn admin_put(&self, path: &str, body: Value) -> Value {
        self.put_ok(path, &self.admin, body).await
    }

    /// A POST of `{"_id": id}` (an archive, a sign, a release…).
    pub async fn post_id(
        &self,
        path: &str,
        token: &str,
        id: &(impl serde::Serialize + ?Sized),
    ) -> Answer {
        self.post(path, token, json!({"_id": id})).await
    }

    /// A POST of `{"_id": id}` by the Administrator, which must succeed (200): the answer's body.
    pub async fn admin_post_id(&self, path: &str, id: &(impl serde::Serialize + ?Sized)) -> Value {
        self.post_id(path, &self.admin, id).await.expect(200)
    }

    /// A POST without a token.
    pub async fn post_anon(&self, path: &str, body: Value) -> Answer {
        self.call(Method::POST, path, None, Some(&body)).await
    }

    pub async fn put(&self, path: &str, token: &str, body: Value) -> Answer {
        self.call(Method::PUT, path, Some(token), Some(&body)).await
    }

    /// The OpenAPI document, read without a token.
    pub async fn openapi(&self) -> Value {
        self.call(Method::GET, "/api/openapi.json", None, None)
            .await
            .expect(200)
    }

    /// Asserts that the Administrator's GET of each of `paths` is a 400 `bad_request`.
    pub async fn assert_bad_requests(&self, paths: &[&str]) {
        for path in paths {
            self.get(path, &self.admin)
                .await
                .expect_error(400, "bad_request");
        }
    }

    /// The audit history of record `id` of `entity` (`/api/{entity}/{id}/history`), read by the
    /// Administrator.
    pub async fn history(&self, entity: &str, id: &str) -> Value {
        self.admin_get(&format!("/api/{entity}/{id}/history")).await
    }

    /// The `paging.total` of the list at `path`, read by `token`.
    pub async fn total(&self, path: &str, token: &str) -> i64 {
        self.get_ok(path, token).await["paging"]["total"]
            .as_i64()
            .expect("a total")
    }

    /// Asserts that `token` may not POST `body` to `path` (403 `permission_denied`).
    pub async fn assert_post_denied(&self, path: &str, token: &str, body: Value) {
        self.post(path, token, body)
            .await
            .expect_error(403, "permission_denied");
    }

    /// Asserts that `token` may not PUT `body` to `path` (403 `permission_denied`).
    pub async fn assert_put_denied(&self, path: &str, token: &str, body: Value) {
        self.put(path, token, body)
            .await
            .expect_error(403, "permission_denied");
    }

    /// Asserts that `token`'s GET of `path` finds nothing (404 `not_found`).
    pub async fn assert_not_found(&self, path: &str, token: &str) {
        self.get(path, token).await.expect_error(404, "not_found");
    }

    /// Asserts that `token` is refused (401 `unauthorized`) on a GET of `path`.
    pub async fn assert_unauthorized(&self, path: &str, token: &str) {
        self.get(path, token)
            .await
            .expect_error(401, "unauthorized");
    }

    /// Asserts that `token` may not delete record `id` through `path`, and that the
    /// Administrator may not either while it is in use.
    pub async fn assert_exclude_guarded(&self, path: &str, token: &str, id: &str) {
        self.post(path, token, json!({"_id": id}))
            .await
            .expect_error(403, "permission_denied");
        self.post(path, &self.admin, json!({"_id": id}))
            .await
            .expect_error(409, "in_use");
    }

    pub async fn login(&self, email: &str, password: &str) -> String {
        let res = self
            .call(
                Method::POST,
                "/api/login/",
                None,
                Some(&json!({"email": email, "password": password})),
            )
            .await;
        res.expect(200)["token"].as_str().expect("token").to_owned()
    }

    /// Registers a user with these roles (by the Administrator) and logs them in: `(id, token)`.
    pub async fn user_with(&self, roles: &[&str], name: &str) -> (String, String) {
        let email = format!(
            "{}-{}@example.com",
            name.to_lowercase().replace(' ', "."),
            rand::rng().random::<u32>()
        );
        let body = json!({"name": name, "email": email, "password": PASSWORD, "roles": roles, "ANLicenseNumber": format!("AN-{name}")});
        let user = self.post_created("/api/register/", &self.admin, body).await;
        let token = self.login(&email, PASSWORD).await;
        (user["_id"].as_str().unwrap().to_owned(), token)
    }

    /// Registers and logs in one user per `(role, name)` (`user_with`): their tokens, in order.
    pub async fn role_tokens<const N: usize>(&self, users: [(&str, &str); N]) -> [String; N] {
        let mut tokens = Vec::with_capacity(N);
        for (role, name) in users {
            tokens.push(self.user_with(&[role], name).await.1);
        }
        tokens.try_into().expect("one token per user")
    }

    pub async fn create_facility(&self, body: Value) -> Value {
        self.post_created("/api/facility/register/", &self.admin, body)
            .await
    }

    /// Registers a group (by the Administrator).
    pub async fn create_group(&self, name: &str) -> Value {
        self.post_created("/api/group/register", &self.admin, json!({"name": name}))
            .await
    }

    /// Creates a facility (`facility_payload(name)`) with user `titular` as its Titular.
    pub async fn create_facility_of(&self, titular: &str, name: &str) -> Value {
        let mut payload = facility_payload(name);
        payload["users"] = json!([{"_id": titular, "responsabilities": ["Titular"]}]);
        self.create_facility(payload).await
    }
}

/// The entries of a list answer (`{"list": [...], "paging": ...}`), in order.
pub fn entries(list: &Value) -> &[Value] {
    list["list"].as_array().expect("a list")
}

/// The string `field` of each entry of a list answer, in order.
pub fn list_strs<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    entries(list)
        .iter()
        .map(|e| {
            e[field]
                .as_str()
                .unwrap_or_else(|| panic!("no {field}: {e}"))
        })
        .collect()
}

/// The action of each event of a `…/history` answer, newest first.
pub fn history_actions(history: &Value) -> Vec<&str> {
    list_strs(history, "action")
}

/// The `_id` of each entry of a list answer, in order.
pub fn list_ids(list: &Value) -> Vec<String> {
    list_strs(list, "_id")
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Calls `read` until `done` holds for what it returns (an e-mail sent in the background arrives
/// a moment after the answer): that value. Panics after 10 s, naming `what`.
pub async fn eventually<T: std::fmt::Debug>(
    what: &str,
    mut read: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let value = read();
        if done(&value) {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: still {value:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The raw messages in the server's mail outbox (`<data>/outbox/*.eml`, used without SMTP).
pub fn outbox(app: &TestApp) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(app.data_dir.path().join("outbox")) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// The recovery code in a recovery e-mail (a line of 64 hex digits).
pub fn recovery_code_in(mail: &str) -> Option<String> {
    mail.lines()
        .map(str::trim)
        .find(|l| l.len() == 64 && l.chars().all(|c| c.is_ascii_hexdigit()))
        .map(str::to_owned)
}

/// Percent-encodes a query value (every byte outside the unreserved ASCII characters).
pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A valid CNPJ that no other test uses.
pub fn unique_cnpj() -> String {
    let mut rng = rand::rng();
    common::cnpj_of(std::array::from_fn(|_| b'0' + rng.random_range(0..10u8)))
}

/// A complete, valid create payload.
pub fn facility_payload(name: &str) -> Value {
    json!({
        "name": name,
        "companyName": format!("{name} Serviços Médicos Ltda"),
        "cnpj": unique_cnpj(),
        "telephone": "(11) 3456-7890",
        "department": "Medicina Nuclear",
        "address": [{"street": "Av. Paulista, 1000", "city": "São Paulo", "state": "SP"}],
        "CNENregistry": "CNEN-12345",
        "radioisotopes": [{"name": "Tc(99m)", "quantity": 1500}, {"name": "I(131)", "quantity": "200.5"}],
        "practices": ["Diagnóstico", "Terapia Ambulatorial"]
    })
}

/// Runs each named `async fn(TestApp)` against SQLite and against PostgreSQL; with
/// `configured(|config| …);` first, each server's `Config` is adjusted before it starts (the
/// closure is expanded inside a generated module: it names types by their full path).
#[macro_export]
macro_rules! on_both_databases {
    (configured($configure:expr); $($name:ident),* $(,)?) => {
        $(
            mod $name {
                use $crate::helpers::{Backend, TestApp};

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    if let Some(app) = TestApp::spawn_with(Backend::Sqlite, $configure).await {
                        super::$name(app).await;
                    }
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    if let Some(app) = TestApp::spawn_with(Backend::Postgres, $configure).await {
                        super::$name(app).await;
                    }
                }
            }
        )*
    };
    ($($name:ident),* $(,)?) => {
        $crate::on_both_databases!(configured(|_| {}); $($name),*);
    };
}

/// A mail's text with its quoted-printable encoding undone (soft line breaks joined, `=XX`
/// bytes decoded).
pub fn unquote(raw: &str) -> String {
    let joined = raw.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
