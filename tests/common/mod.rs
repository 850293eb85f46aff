//! What both black-box suites (tests/api, tests/cli) share: the Administrator's account, valid
//! CNPJs, and a real server on a free port over a fresh database — a SQLite file in a temporary
//! folder, or a new PostgreSQL database (skipped with a message when no PostgreSQL answers,
//! except under CI=true where that is a failure). Each suite keeps its own client-side helpers.

use registry_server::{AppState, Application, Config};

pub const ADMIN_EMAIL: &str = "admin@example.com";
pub const ADMIN_PASSWORD: &str = "admin-password-1";
pub const PASSWORD: &str = "a-good-password";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A started server: its base URL (`http://127.0.0.1:PORT`), its state and its data folder
/// (removed when dropped).
pub struct Server {
    pub base: String,
    #[allow(
        dead_code,
        reason = "the CLI suite drives the server through its client only"
    )]
    pub state: AppState,
    pub data_dir: tempfile::TempDir,
}

/// Starts a server on `backend` with the Administrator set and the QC catalogue off (the tests
/// build the test types they need; tests of the catalogue turn it on), `configure` adjusting the
/// rest; `None` when the backend is not available here (PostgreSQL outside CI).
pub async fn start(backend: Backend, configure: impl FnOnce(&mut Config)) -> Option<Server> {
    let data_dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::new(data_dir.path());
    config.bind = "127.0.0.1:0".into();
    config.database_url = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => Some(fresh_postgres_database().await?),
    };
    config.qc_catalogue = false;
    config.admin_email = Some(ADMIN_EMAIL.into());
    config.admin_password = Some(registry_server::config::Secret(ADMIN_PASSWORD.into()));
    config.jwt_secret = Some(registry_server::config::Secret(format!(
        "test-secret-{}",
        uuid::Uuid::new_v4()
    )));
    configure(&mut config);
    let app = Application::build(config).await.expect("server starts");
    let base = format!("http://{}", app.local_addr());
    let state = app.state().clone();
    tokio::spawn(app.run_until(std::future::pending()));
    Some(Server {
        base,
        state,
        data_dir,
    })
}

/// The PostgreSQL server the tests create their databases in.
pub fn postgres_admin_url() -> String {
    std::env::var("REGISTRY_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// The URL of a new, empty database, or `None` (said once on stderr) when no PostgreSQL answers.
pub async fn fresh_postgres_database() -> Option<String> {
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
    drop_earlier_test_databases(&mut conn).await;
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

/// Once per test process, before its first database: drops the test databases earlier runs left
/// (each test's database outlives it, to be read after a failure). One that a concurrent run
/// is using has connections, so PostgreSQL refuses to drop it, and it stays.
async fn drop_earlier_test_databases(conn: &mut sqlx::PgConnection) {
    static DONE: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    DONE.get_or_init(|| async {
        let names: Vec<String> = sqlx::query_scalar(
            "SELECT datname FROM pg_database WHERE datname LIKE 'registry\\_test\\_%'",
        )
        .fetch_all(&mut *conn)
        .await
        .unwrap_or_default();
        for name in names {
            let drop = format!("DROP DATABASE IF EXISTS {name}");
            let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
                .execute(&mut *conn)
                .await;
        }
    })
    .await;
}

/// The valid CNPJ of these twelve digits: them and their two check digits.
pub fn cnpj_of(base: [u8; 12]) -> String {
    let [d1, d2] = registry_core::cnpj::check_digits(&base);
    format!("{}{d1}{d2}", std::str::from_utf8(&base).expect("digits"))
}
