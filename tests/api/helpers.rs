//! Test harness: each test gets a real server on a free port over a fresh database — a SQLite
//! file in a temporary folder, or a new PostgreSQL database (skipped with a message when no
//! PostgreSQL answers, except under CI=true where that is a failure).

use rand::Rng;
use registry_server::{Application, Config};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

pub const ADMIN_EMAIL: &str = "admin@example.com";
pub const ADMIN_PASSWORD: &str = "admin-password-1";
pub const PASSWORD: &str = "a-good-password";

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub admin: String,
    pub backend: Backend,
    pub data_dir: tempfile::TempDir,
    /// The server's state, for tests that must set up rows no endpoint of this branch creates.
    pub state: registry_server::AppState,
}

/// A JSON answer: status, headers and body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The field error codes, as `(field, code)`.
    pub fn field_errors(&self) -> Vec<(String, String)> {
        self.body["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        (
                            e["field"].as_str().unwrap().to_owned(),
                            e["code"].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn has_field_error(&self, field: &str, code: &str) -> bool {
        self.field_errors()
            .iter()
            .any(|(f, c)| f == field && c == code)
    }

    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        self.body
    }

    #[track_caller]
    pub fn expect_error(self, status: u16, code: &str) -> Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        assert_eq!(
            self.body["code"], code,
            "unexpected code; body: {}",
            self.body
        );
        assert!(
            self.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "error without message: {}",
            self.body
        );
        self
    }
}

/// The PostgreSQL server the tests create their databases in.
pub fn postgres_admin_url() -> String {
    std::env::var("REGISTRY_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

async fn fresh_postgres_database() -> Option<String> {
    use sqlx::Connection;
    let admin_url = postgres_admin_url();
    let mut conn = match sqlx::PgConnection::connect(&admin_url).await {
        Ok(c) => c,
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but PostgreSQL is not reachable at {admin_url}: {e}");
            }
            // Written past the test harness's output capture, once, so the skip is visible.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "\nSKIPPING the PostgreSQL half of the API tests: no PostgreSQL at {admin_url} ({e}).\n\
                     Set REGISTRY_TEST_POSTGRES_URL to run them; under CI=true this is a failure.\n"
                );
            });
            return None;
        }
    };
    let name = format!("registry_test_{}", uuid::Uuid::new_v4().simple());
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let base = admin_url
        .rsplit_once('/')
        .map(|(b, _)| b.to_owned())
        .unwrap_or(admin_url);
    Some(format!("{base}/{name}"))
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

    /// Starts a server, or `None` when the backend is not available here (PostgreSQL outside CI).
    pub async fn spawn(backend: Backend) -> Option<TestApp> {
        Self::spawn_with(backend, |_| {}).await
    }

    pub async fn spawn_with(
        backend: Backend,
        configure: impl FnOnce(&mut Config),
    ) -> Option<TestApp> {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::new(data_dir.path());
        config.bind = "127.0.0.1:0".into();
        config.database_url = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(fresh_postgres_database().await?),
        };
        // The tests build the test types they need; tests of the QC catalogue turn it on.
        config.qc_catalogue = false;
        config.admin_email = Some(ADMIN_EMAIL.into());
        config.admin_password = Some(registry_server::config::Secret(ADMIN_PASSWORD.into()));
        config.jwt_secret = Some(registry_server::config::Secret(format!(
            "test-secret-{}",
            uuid::Uuid::new_v4()
        )));
        // Tests log in and register a lot from one address: the per-client limiter stays on but
        // generous; tests of the limits set their own (tests/api/abuse.rs).
        config.limits.login_failures_per_client_per_minute = 10_000;
        config.limits.register_per_client_per_hour = 10_000;
        config.limits.recovery_per_client_per_hour = 10_000;
        // No daily digest unless a test asks for one: its planning commit, at whatever hour the
        // suite runs, would empty the read cache under the tests that count on it.
        config.notices.digest_hour = None;
        configure(&mut config);
        let app = Application::build(config).await.expect("server starts");
        let base = format!("http://{}", app.local_addr());
        let state = app.state().clone();
        tokio::spawn(app.run_until(std::future::pending()));
        let client = reqwest::Client::new();
        let mut test = TestApp {
            base,
            client,
            admin: String::new(),
            backend,
            data_dir,
            state,
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
        let res = req.send().await.expect("request sent");
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.expect("body read");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, token: &str) -> Answer {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(token), Some(&body))
            .await
    }

    /// A POST without a token.
    pub async fn post_anon(&self, path: &str, body: Value) -> Answer {
        self.call(Method::POST, path, None, Some(&body)).await
    }

    pub async fn put(&self, path: &str, token: &str, body: Value) -> Answer {
        self.call(Method::PUT, path, Some(token), Some(&body)).await
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
        let user = self
            .post("/api/register/", &self.admin, body)
            .await
            .expect(201);
        let token = self.login(&email, PASSWORD).await;
        (user["_id"].as_str().unwrap().to_owned(), token)
    }

    pub async fn create_facility(&self, body: Value) -> Value {
        self.post("/api/facility/register/", &self.admin, body)
            .await
            .expect(201)
    }
}

/// A valid CNPJ that no other test uses.
pub fn unique_cnpj() -> String {
    let mut rng = rand::rng();
    let base: [u8; 12] = std::array::from_fn(|_| b'0' + rng.random_range(0..10u8));
    let [d1, d2] = registry_core::cnpj::check_digits(&base);
    format!("{}{d1}{d2}", std::str::from_utf8(&base).unwrap())
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
/// `configured(|config| …);` first, each server's `Config` is adjusted before it starts.
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
