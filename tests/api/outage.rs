//! A PostgreSQL outage (issue 11, item 9): requests that need the database answer 503 with
//! `Retry-After` within a few seconds (not a 500 after ten), `/readyz` says so too, and the
//! service recovers by itself when the database is back. The server reaches PostgreSQL through
//! a TCP relay that the test cuts and restores: a real outage as the server sees it. (SQLite is
//! a file inside the server's process: it has no outage of this kind.)

use crate::helpers::{Backend, TestApp, facility_payload, postgres_admin_url};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// Relays every connection on `listen` to `upstream` until [`Relay::cut`]; while
/// [`Relay::refusing`] is set, new connections are closed at once (those open stay).
struct Relay {
    addr: SocketAddr,
    tasks: Arc<Mutex<Vec<AbortHandle>>>,
    refusing: Arc<AtomicBool>,
}

impl Relay {
    async fn start(listen: SocketAddr, upstream: String) -> Relay {
        let listener = TcpListener::bind(listen).await.expect("relay binds");
        let addr = listener.local_addr().unwrap();
        let tasks = Arc::new(Mutex::new(Vec::new()));
        let registry = tasks.clone();
        let refusing = Arc::new(AtomicBool::new(false));
        let refused = refusing.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if refused.load(Ordering::SeqCst) {
                    continue;
                }
                let upstream = upstream.clone();
                let copy = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                registry.lock().unwrap().push(copy.abort_handle());
            }
        });
        tasks.lock().unwrap().push(accept.abort_handle());
        Relay {
            addr,
            tasks,
            refusing,
        }
    }

    /// Closes the listening socket and every relayed connection.
    fn cut(&self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_outage_answers_503_quickly_and_recovers() {
    let admin_url = reqwest::Url::parse(&postgres_admin_url()).expect("a URL");
    let upstream = format!(
        "{}:{}",
        admin_url.host_str().unwrap_or("127.0.0.1"),
        admin_url.port().unwrap_or(5432)
    );
    let relay = Relay::start("127.0.0.1:0".parse().unwrap(), upstream.clone()).await;
    let relay_addr = relay.addr;
    let Some(app) = TestApp::spawn_with(Backend::Postgres, |config| {
        let mut url = reqwest::Url::parse(config.database_url.as_deref().unwrap()).unwrap();
        url.set_host(Some("127.0.0.1")).unwrap();
        url.set_port(Some(relay_addr.port())).unwrap();
        config.database_url = Some(url.to_string());
    })
    .await
    else {
        return;
    };
    app.create_facility(facility_payload("Antes")).await;
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);

    relay.cut();
    for _ in 0..3 {
        let started = Instant::now();
        let answer = app
            .post(
                "/api/facility/register/",
                &app.admin,
                facility_payload("Durante"),
            )
            .await;
        let took = started.elapsed();
        let answer = answer.expect_error(503, "unavailable");
        assert!(took < Duration::from_secs(5), "answered after {took:?}");
        assert!(answer.headers.contains_key("retry-after"));
        let message = answer.body["message"].as_str().unwrap();
        assert!(
            !message.contains("Pool") && !message.contains("5432"),
            "no internals: {message}"
        );
    }
    let started = Instant::now();
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 503);
    assert!(ready.headers().contains_key("retry-after"));
    assert!(started.elapsed() < Duration::from_secs(5));
    let body: serde_json::Value = ready.json().await.unwrap();
    assert_eq!(body["code"], "unavailable");

    // The database comes back on the same address: the service recovers without a restart.
    let _back = Relay::start(relay_addr, upstream).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = app
            .post(
                "/api/facility/register/",
                &app.admin,
                facility_payload("Depois"),
            )
            .await;
        if answer.status == 201 {
            break;
        }
        assert_eq!(answer.status, 503, "{}", answer.body);
        assert!(Instant::now() < deadline, "did not recover");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
}

/// A pooled connection that PostgreSQL dropped while it sat idle (a restart, an idle timeout, an
/// operator ending sessions) is found and replaced before a request uses it: the request is
/// answered as usual, not with 503. The server pings only connections idle for a while
/// (`db.rs`, `PING_AFTER_IDLE`); one in steady use is not pinged before each request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_dropped_while_idle_are_replaced_without_an_error() {
    let Some(app) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let facility = app.create_facility(facility_payload("Ociosa")).await;
    let path = format!("/api/facility/{}", facility["_id"].as_str().unwrap());
    app.get(&path, &app.admin).await.expect(200);
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let mut outside = app.outside_connection().await;
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()) ended",
    )
    .fetch_one(&mut outside)
    .await
    .unwrap();
    assert!(
        ended >= 2,
        "the pool's connections and the listener: {ended}"
    );

    app.get(&path, &app.admin).await.expect(200);
    app.create_facility(facility_payload("Depois da queda"))
        .await;
}

/// An instance whose change notifications were cut drops, once it listens again, what it read
/// before that: a rename committed by another instance while this one was not yet listening was
/// notified to nobody here, so the facility read just before it would otherwise be served until
/// the facility changed again. The second instance reaches PostgreSQL through a relay that, for a
/// while, refuses new connections: its listener is ended and cannot come back (it tries once a
/// second) while its pooled connections still serve reads. Then the relay lets it back, and the
/// second instance reads the facility and the first renames it at once, before the second
/// listens again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_listening_again_serves_nothing_read_before() {
    let Some(first) = TestApp::spawn(Backend::Postgres).await else {
        return;
    };
    let relay = Relay::start("127.0.0.1:0".parse().unwrap(), first.postgres_address()).await;
    let second = first.second_instance(Some(relay.addr.port())).await;
    let facility = first
        .create_facility(facility_payload("Clínica Antes da Queda"))
        .await;
    let path = format!("/api/facility/{}", facility["_id"].as_str().unwrap());
    let token = second.admin.clone();
    second.get(&path, &token).await.expect(200);

    relay.refusing.store(true, Ordering::SeqCst);
    let mut outside = first.outside_connection().await;
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN%') ended",
    )
    .fetch_one(&mut outside)
    .await
    .unwrap();
    assert_eq!(ended, 2, "both instances' listeners");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    relay.refusing.store(false, Ordering::SeqCst);
    second.get(&path, &token).await.expect(200);
    first
        .admin_put(
            &format!("{path}/edit"),
            serde_json::json!({"name": "Clínica Depois da Queda"}),
        )
        .await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = second.get(&path, &token).await.expect(200);
        if answer["name"] == "Clínica Depois da Queda" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still served as read before the rename: {}",
            answer["name"]
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
