//! Building and running the service: state, router, middleware, first Administrator.

use crate::auth::{JwtKeys, hash_password};
use crate::config::Config;
use crate::db::{Db, new_id, now};
use crate::error::ApiError;
use crate::mail::Mailer;
use crate::store::users::{self, UserRow};
use anyhow::Context;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderName, Request, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use rand::RngCore;
use registry_core::Role;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tower::Layer;
use tower::util::MapRequestLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

/// JSON bodies are small; uploads have their own limits on their routes.
pub const JSON_BODY_LIMIT: usize = 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    pub keys: Arc<JwtKeys>,
    pub mailer: Arc<Mailer>,
    pub objects: Arc<crate::objects::Objects>,
    pub signing_key: Arc<ed25519_dalek::SigningKey>,
    pub cache: Arc<crate::cache::ReadCache>,
}

pub struct Application {
    listener: TcpListener,
    router: Router,
    state: AppState,
}

impl Application {
    /// Connects the database (running migrations), prepares secrets and binds the listener
    /// (`127.0.0.1:0` in tests gives a free port).
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        std::fs::create_dir_all(&config.data_dir).with_context(|| {
            format!(
                "cannot create the data folder {}",
                config.data_dir.display()
            )
        })?;
        let url = config
            .database_url
            .clone()
            .unwrap_or_else(|| Db::default_url(&config.data_dir));
        let db = Db::connect(&url).await?;
        let secret = jwt_secret(&config)?;
        let mailer = Mailer::new(
            config.smtp_url.as_ref().map(|s| s.0.as_str()),
            config.data_dir.join("outbox"),
            &config.mail_from,
        )?;
        let objects =
            crate::objects::Objects::open(config.object_store_url.as_deref(), &config.data_dir)?;
        let signing_key = crate::signing::load_or_create(&config)?;
        tracing::info!(database = ?db.backend, mail = mailer.describe(), files = objects.describe(), "storage ready");
        let cache = crate::cache::ReadCache::new(config.read_cache_mib);
        let state = AppState {
            db,
            config: Arc::new(config),
            keys: Arc::new(JwtKeys::new(&secret)),
            mailer: Arc::new(mailer),
            objects: Arc::new(objects),
            signing_key: Arc::new(signing_key),
            cache: Arc::new(cache),
        };
        ensure_first_administrator(&state).await?;
        let mut tx = state.db.begin().await?;
        crate::store::qc_tests::ensure_last_filled(&mut tx).await?;
        tx.commit().await?;
        let listener = TcpListener::bind(&state.config.bind)
            .await
            .with_context(|| format!("cannot listen on {}", state.config.bind))?;
        Ok(Application {
            router: router(state.clone()),
            listener,
            state,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("bound listener")
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        // Trailing slashes are trimmed before routing, so every path answers with and without one.
        let app = MapRequestLayer::new(trim_trailing_slash).layer(self.router);
        let service = axum::ServiceExt::<Request<axum::body::Body>>::into_make_service(app);
        let worker = crate::email_worker::spawn(self.state.clone());
        let served = axum::serve(self.listener, service)
            .with_graceful_shutdown(shutdown)
            .await;
        worker.abort();
        served
    }
}

/// `/api/facilities/` → `/api/facilities` (query kept). Swagger UI's own pages under `/api/docs/`
/// need their slash, so they are left alone.
fn trim_trailing_slash<B>(mut req: Request<B>) -> Request<B> {
    let path = req.uri().path();
    if path.len() > 1 && path.ends_with('/') && !path.starts_with("/api/docs") {
        let trimmed = path.trim_end_matches('/');
        let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
        let path_and_query = match req.uri().query() {
            Some(q) => format!("{trimmed}?{q}"),
            None => trimmed.to_owned(),
        };
        let mut parts = req.uri().clone().into_parts();
        if let Ok(pq) = path_and_query.parse() {
            parts.path_and_query = Some(pq);
            if let Ok(uri) = axum::http::Uri::from_parts(parts) {
                *req.uri_mut() = uri;
            }
        }
    }
    req
}

pub fn router(state: AppState) -> Router {
    let request_id = HeaderName::from_static("x-request-id");
    Router::new()
        .nest("/api", crate::routes::api().fallback(not_found).method_not_allowed_fallback(method_not_allowed))
        .merge(crate::openapi::router())
        .route("/healthz", get(|| async { Json(serde_json::json!({"status": "ok"})) }))
        .route("/readyz", get(readyz))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
            let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::NotFound("No such endpoint.".into())
}

async fn method_not_allowed() -> impl IntoResponse {
    let body = registry_core::ErrorBody {
        message: "This endpoint does not accept that method.".into(),
        code: "method_not_allowed".into(),
        errors: None,
        id: None,
    };
    (StatusCode::METHOD_NOT_ALLOWED, Json(body))
}

async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match sqlx::query_scalar::<_, i64>("SELECT 1")
        .fetch_one(&state.db.pool)
        .await
    {
        Ok(_) => (StatusCode::OK, Json(serde_json::json!({"status": "ready"}))),
        Err(e) => {
            tracing::warn!(error = %e, "database not reachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(serde_json::json!({"status": "database unreachable"})),
            )
        }
    }
}

/// `REGISTRY_JWT_SECRET`, or a secret generated once and kept in the data folder (mode 0600).
fn jwt_secret(config: &Config) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = &config.jwt_secret {
        anyhow::ensure!(
            secret.0.len() >= 32,
            "REGISTRY_JWT_SECRET must have at least 32 characters"
        );
        return Ok(secret.0.as_bytes().to_vec());
    }
    let path = config.data_dir.join("jwt-secret");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        return Ok(existing.trim().as_bytes().to_vec());
    }
    let mut raw = [0u8; 48];
    rand::rng().fill_bytes(&mut raw);
    let secret = hex::encode(raw);
    write_private(&path, secret.as_bytes())?;
    tracing::warn!(path = %path.display(), "REGISTRY_JWT_SECRET is not set; generated one and kept it in the data folder");
    Ok(secret.into_bytes())
}

/// Writes a file readable only by its owner.
pub fn write_private(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)?;
    Ok(())
}

/// Creates the first Administrator from `REGISTRY_ADMIN_EMAIL`/`REGISTRY_ADMIN_PASSWORD` when the
/// database has no user yet.
async fn ensure_first_administrator(state: &AppState) -> anyhow::Result<()> {
    let (Some(email), Some(password)) = (&state.config.admin_email, &state.config.admin_password)
    else {
        return Ok(());
    };
    let mut tx = state.db.begin().await?;
    if users::count(&mut tx).await? > 0 {
        return Ok(());
    }
    let email = registry_core::values::Email::parse(email)
        .context("REGISTRY_ADMIN_EMAIL is not a valid e-mail address")?;
    if let Some(problem) = registry_core::values::password_problem(&password.0) {
        anyhow::bail!("REGISTRY_ADMIN_PASSWORD {problem}");
    }
    let at = now();
    let admin = UserRow {
        id: new_id(),
        name: "Administrator".into(),
        email: email.as_str().to_owned(),
        telephone: None,
        cpf: None,
        roles: vec![Role::Administrator],
        active: true,
        licences: Default::default(),
        password_hash: hash_password(password.0.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        token_version: 0,
        created_at: at.clone(),
        updated_at: at,
    };
    users::save(&mut tx, &admin, true).await?;
    tx.commit().await?;
    tracing::info!(email = %admin.email, "created the first Administrator");
    Ok(())
}
