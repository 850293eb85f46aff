//! Building and running the service: state, router, middleware, first Administrator.

use crate::auth::hash_password;
use crate::config::Config;
use crate::db::{Db, new_id, now};
use crate::error::ApiError;
use crate::extract::JSON_BODY_LIMIT;
use crate::mail::Mailer;
use crate::secrets::JwtKeys;
use crate::store::users::{self, UserRow};
use anyhow::Context;
use axum::extract::{ConnectInfo, DefaultBodyLimit, State};
use axum::http::{HeaderName, HeaderValue, Request, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use hyper::body::Incoming;
use registry_core::Role;
use registry_core::api::User;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::TraceLayer;

pub use crate::state::AppState;

pub struct Application {
    listener: TcpListener,
    router: Router,
    state: AppState,
}

impl Application {
    /// Connects the database (running migrations), prepares secrets and binds the listener
    /// (`127.0.0.1:0` in tests gives a free port).
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        // First: an address that cannot be listened on stops the start before the database is
        // migrated or anything is written.
        let listener = TcpListener::bind(&config.bind)
            .await
            .with_context(|| format!("cannot listen on {} (REGISTRY_BIND)", config.bind))?;
        // Created readable by its owner only: it holds the database, the kept secrets, the
        // outbox (recovery codes) and the uploaded files.
        let mut folder = std::fs::DirBuilder::new();
        folder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
        folder.create(&config.data_dir).with_context(|| {
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
        crate::store::upkeep::run(&db).await?;
        let secret = crate::secrets::jwt_secret(&config)?;
        let mailer = Mailer::new(
            config.smtp_url.as_ref().map(|s| s.0.as_str()),
            config.data_dir.join("outbox"),
            &config.mail_from,
        )?;
        let objects =
            crate::objects::Objects::open(config.object_store_url.as_deref(), &config.data_dir)?;
        let signing_key = crate::secrets::signing_key(&config)?;
        tracing::info!(database = ?db.backend, mail = mailer.describe(), files = objects.describe(), "storage ready");
        let cache = crate::cache::ReadCache::new(config.read_cache_mib);
        let limiters = crate::limits::Limiters::new(&config.limits);
        let state = AppState::new(crate::state::Services {
            db,
            config: Arc::new(config),
            keys: Arc::new(JwtKeys::new(&secret)),
            mailer: Arc::new(mailer),
            objects: Arc::new(objects),
            signing_key: Arc::new(signing_key),
            cache: Arc::new(cache),
            limiters: Arc::new(limiters),
        });
        ensure_first_administrator(&state).await?;
        let mut tx = state.db.begin().await?;
        crate::store::qc_tests::ensure_last_filled(&mut tx).await?;
        if state.config.qc_catalogue {
            crate::store::equipment_types::seed_catalogue(&mut tx).await?;
        }
        tx.commit().await?;
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

    /// Serves HTTP/1.1 until `shutdown`, then lets open requests finish for up to
    /// `shutdown_grace` and closes what is left. Each connection must
    /// send a request head within `read_timeout`, and a kept-alive connection is closed after
    /// that long idle; the peer address reaches the handlers as `ConnectInfo` (per-client limits).
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let worker = tokio::spawn({
            let state = self.state.clone();
            async move {
                let instance = crate::db::new_id();
                tokio::join!(
                    crate::email_worker::run(&state, &instance),
                    crate::notices::run(&state, &instance)
                );
            }
        });
        let requests = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let sweeper = tokio::spawn(sweep(self.state.clone(), requests.clone()));
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(self.state.config.limits.read_timeout);
        let (stop, stopped) = tokio::sync::watch::channel(());
        let mut connections = tokio::task::JoinSet::new();
        let open = OpenConnections::new(self.state.config.limits.max_connections_per_client);
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of descriptors and the like: wait instead of spinning.
                        tracing::warn!(error = %e, "cannot accept a connection");
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            while connections.try_join_next().is_some() {}
            let Some(held) = open.hold(peer.ip()) else {
                tracing::debug!(%peer, "connection closed: the client holds too many already");
                continue;
            };
            let router = self.router.clone();
            let requests = requests.clone();
            let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
                requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                req.extensions_mut().insert(ConnectInfo(peer));
                router.clone().oneshot(trim_trailing_slash(req))
            });
            // Hyper's own answers to requests it cannot parse get the envelope too.
            let io = hyper_util::rt::TokioIo::new(crate::envelope::EnvelopeIo::new(stream));
            let conn = http.serve_connection(io, service);
            let mut stopped = stopped.clone();
            connections.spawn(async move {
                tokio::pin!(conn);
                let ended = tokio::select! {
                    ended = conn.as_mut() => ended,
                    _ = stopped.changed() => {
                        conn.as_mut().graceful_shutdown();
                        conn.await
                    }
                };
                if let Err(e) = ended {
                    tracing::debug!(error = %e, "connection ended");
                }
                drop(held);
            });
        }
        drop(self.listener);
        let _ = stop.send(());
        let grace = self.state.config.limits.shutdown_grace;
        let finished = async { while connections.join_next().await.is_some() {} };
        if tokio::time::timeout(grace, finished).await.is_err() {
            tracing::warn!(
                open = connections.len(),
                "closing the connections whose requests did not finish within {} s of the stop",
                grace.as_secs()
            );
            connections.shutdown().await;
        }
        worker.abort();
        sweeper.abort();
        Ok(())
    }
}

/// The connections open per client address, each at most `max`.
#[derive(Clone)]
struct OpenConnections {
    max: u32,
    by_client: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, u32>>>,
}

/// One open connection of a client, counted until dropped.
struct Held {
    open: OpenConnections,
    client: std::net::IpAddr,
}

impl OpenConnections {
    fn new(max: u32) -> Self {
        OpenConnections {
            max,
            by_client: Default::default(),
        }
    }

    /// One more connection of `client`, or `None` when it holds `max` already.
    fn hold(&self, client: std::net::IpAddr) -> Option<Held> {
        let mut by_client = self.by_client.lock().expect("not poisoned");
        let count = by_client.entry(client).or_default();
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Held {
            open: self.clone(),
            client,
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut by_client = self.open.by_client.lock().expect("not poisoned");
        if let std::collections::hash_map::Entry::Occupied(mut count) = by_client.entry(self.client)
        {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
    }
}

/// Gives back what a busy time left in memory, once a server has had a minute without a
/// request: the read cache, the SQLite readers' page caches, and what glibc kept in its arenas
/// of what was freed. Otherwise a server idle after a busy hour would stay at its peak
/// (docs/benchmarks.md: idle ≤ 40 MiB). The first requests after are read afresh.
fn release_memory(state: &AppState) {
    state.cache.empty();
    state.db.release_memory();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Keeps the abuse limits' memory small: idle clients every minute, forgotten login counts
/// every hour. Every minute too, folds the due lists' kept counts (PostgreSQL).
async fn sweep(state: AppState, requests: Arc<std::sync::atomic::AtomicU64>) {
    let mut minutes = tokio::time::interval(std::time::Duration::from_secs(60));
    let mut hours = tokio::time::interval(std::time::Duration::from_secs(3600));
    // The requests counted at the last tick, and whether the memory was given back since.
    let (mut counted, mut released) = (u64::MAX, false);
    loop {
        tokio::select! {
            _ = minutes.tick() => {
                let now = requests.load(std::sync::atomic::Ordering::Relaxed);
                if now != counted {
                    (counted, released) = (now, false);
                } else if !released {
                    release_memory(&state);
                    released = true;
                }
                state.limiters.forget_idle();
                if let Err(e) = compact_due_counts(&state).await {
                    tracing::warn!(error = %e, "cannot fold the due lists' counts");
                }
            }
            _ = hours.tick() => {
                let before = chrono::Utc::now() - state.config.limits.login_forget_after;
                let forgotten = async {
                    let mut tx = state.db.begin().await?;
                    // Committed only when something was dropped: every commit empties the read
                    // caches, and an idle server should keep them.
                    if users::forget_old_login_failures(&mut tx, before).await? > 0 {
                        tx.commit().await?;
                    }
                    Ok::<_, sqlx::Error>(())
                };
                if let Err(e) = forgotten.await {
                    tracing::warn!(error = %e, "cannot drop old login failure counts");
                }
            }
        }
    }
}

/// Folds the due lists' kept counts (`store::qc_tests::compact_due_counts`). No answer changes,
/// so the commit tells the read caches that nothing did. SQLite has nothing to fold, so its one
/// writer is not taken for it.
pub async fn compact_due_counts(state: &AppState) -> Result<(), sqlx::Error> {
    if state.db.backend == crate::db::Backend::Sqlite {
        return Ok(());
    }
    let mut tx = state.db.begin().await?;
    if crate::store::qc_tests::compact_due_counts(&mut tx).await? {
        tx.announce(crate::changes::Changed::Facilities {
            ids: Vec::new(),
            lists: false,
            due: false,
        });
        tx.commit().await?;
    }
    Ok(())
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
    let request_id = HeaderName::from_static(crate::request_guard::REQUEST_ID);
    Router::new()
        .nest(crate::routes::describe::PREFIX, crate::routes::api().fallback(not_found).method_not_allowed_fallback(method_not_allowed))
        .merge(crate::openapi::router())
        .route("/healthz", get(|| async { Json(serde_json::json!({"status": "ok"})) }))
        .route("/readyz", get(readyz))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(crate::request_guard::refuse_control_characters))
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::request_guard::refuse_declared_oversize))
        .layer(axum::middleware::from_fn(crate::request_guard::close_after_unread_body))
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(RequestBodyTimeoutLayer::new(state.config.limits.body_timeout))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
            let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .layer(axum::middleware::from_fn(crate::request_guard::drop_unfit_request_id))
        // So that errors made by any layer above also leave in the envelope.
        .layer(axum::middleware::from_fn(crate::envelope::every_error_in_the_envelope))
        // Outside the envelope, so that its own answers (414) carry them too. Browsers must not
        // guess a download's type (an uploaded "PDF" rendered as HTML).
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        // Answers hold tokens and people's data: no cache keeps them (downloads say their own,
        // `private, no-cache`), and no other site frames the API's pages (Swagger UI).
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
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

async fn readyz(State(state): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    let mut conn = state.db.read().await?;
    crate::store::ping(&mut conn).await?;
    // Which deployment answers: production and staging run side by side (product.md §6).
    let environment = state.config.environment.as_str();
    Ok(Json(
        serde_json::json!({"status": "ready", "environment": environment}),
    ))
}

/// Creates the first Administrator from `REGISTRY_ADMIN_EMAIL`/`REGISTRY_ADMIN_PASSWORD` when the
/// database has no user yet (product.md §6). A start that leaves no active Administrator says
/// so, and why the variables did not make one, rather than leave a newcomer without a way in.
async fn ensure_first_administrator(state: &AppState) -> anyhow::Result<()> {
    let created = create_first_administrator(state).await?;
    let mut conn = state.db.read().await?;
    if !created && users::count_active_with_role(&mut conn, Role::Administrator).await? == 0 {
        let why = match (&state.config.admin_email, users::count(&mut conn).await?) {
            (None, 0) => {
                "set REGISTRY_ADMIN_EMAIL and REGISTRY_ADMIN_PASSWORD to create the first one"
            }
            (None, _) => "REGISTRY_ADMIN_EMAIL and REGISTRY_ADMIN_PASSWORD are not set",
            (Some(_), _) => {
                "REGISTRY_ADMIN_EMAIL and REGISTRY_ADMIN_PASSWORD create one only in a database \
                 with no user yet, and this one has users"
            }
        };
        tracing::warn!("there is no active Administrator: {why}");
    }
    Ok(())
}

/// [`ensure_first_administrator`]'s creation: whether this start created the Administrator.
async fn create_first_administrator(state: &AppState) -> anyhow::Result<bool> {
    let (Some(email), Some(password)) = (&state.config.admin_email, &state.config.admin_password)
    else {
        return Ok(false);
    };
    let mut tx = state.db.begin().await?;
    if users::count(&mut tx).await? > 0 {
        return Ok(false);
    }
    let email = registry_core::values::Email::parse(email)
        .context("REGISTRY_ADMIN_EMAIL is not a valid e-mail address")?;
    if let Some(problem) = registry_core::values::password_problem(&password.0) {
        anyhow::bail!("REGISTRY_ADMIN_PASSWORD {problem}");
    }
    let at = now();
    let admin = UserRow {
        profile: User {
            id: new_id(),
            name: "Administrator".into(),
            email: email.as_str().to_owned(),
            telephone: None,
            cpf: None,
            roles: vec![Role::Administrator],
            active: true,
            licences: Default::default(),
            created_at: at.clone(),
            updated_at: at,
        },
        password_hash: hash_password(password.0.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        token_version: 0,
    };
    // Instances started together on one empty database each see no user; the first insert wins
    // and the others go on with its Administrator.
    let saved = match users::save(&mut tx, &admin, true).await {
        Ok(()) => tx.commit().await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => {
            tracing::info!(email = %admin.profile.email, "created the first Administrator");
            Ok(true)
        }
        Err(e) if crate::db::is_unique_violation(&e) => {
            tracing::info!("another instance created the first Administrator");
            Ok(true)
        }
        Err(e) => Err(e.into()),
    }
}
