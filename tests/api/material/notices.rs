//! Notices of what needs attention, and the daily digest sent through SMTP.

use super::{receive, setup, solid_waste, store_waste};
use crate::documents::admin_upload;
use crate::equipment::{id, today};
use crate::helpers::{Backend, PASSWORD, TestApp, facility_payload, history_actions, unquote};
use crate::test_servers::{SmtpSink, free_port};
use crate::{on_both_backends, on_both_databases};
use chrono::{DateTime, Days, Utc};
use rand::Rng;
use registry_core::material::IsoWeek;
use serde_json::json;
use std::time::Duration;

on_both_databases!(notices_list_what_needs_attention);
on_both_backends!(the_digest_goes_out_once_through_smtp_and_is_retried);

/// Registers a user with licence validities and returns `(id, email)`.
async fn licensed_user(
    app: &TestApp,
    name: &str,
    roles: &[&str],
    an_validity: &str,
) -> (String, String) {
    let email = format!(
        "{}-{}@example.com",
        name.to_lowercase(),
        rand::rng().random::<u32>()
    );
    let user = app
        .post_created(
            "/api/register/",
            &app.admin,
            json!({"name": name, "email": email, "password": PASSWORD, "roles": roles,
                   "ANLicenseNumber": "AN-1", "ANLicenseValidity": an_validity}),
        )
        .await;
    (id(&user), email)
}

/// A facility with something of every kind to notice; returns it with its responsible
/// people's addresses and a non-responsible user's.
async fn facility_with_notices(app: &TestApp, name: &str) -> (String, Vec<String>, String) {
    let soon = (today() + Days::new(10)).to_string();
    let far = (today() + Days::new(400)).to_string();
    let (titular, titular_email) = licensed_user(app, "Titular", &["Cliente"], &soon).await;
    let (supervisor, supervisor_email) = licensed_user(app, "Supervisora", &["Físico"], &far).await;
    let (substitute, substitute_email) = licensed_user(app, "Substituto", &["Cliente"], &far).await;
    let mut payload = facility_payload(name);
    payload["users"] = json!([
        {"_id": titular, "responsabilities": ["Titular"]},
        {"_id": supervisor, "responsabilities": ["Supervisor"]},
        {"_id": substitute, "responsabilities": ["Substituto"]},
    ]);
    let facility = id(&app.create_facility(payload).await);
    // A QC test overdue, on a named equipment.
    let test_type = id(&app
        .post_created(
            "/api/typeOfTest/register",
            &app.admin,
            json!({"name": format!("Constância {name}"), "typeOfEquipment": "00000000-0000-7000-8000-000000000001", "expirationInDays": 30}),
        )
        .await);
    let equipment = id(&app
        .post_created(
            "/api/equipment/register",
            &app.admin,
            json!({"facility": facility, "typeOfEquipment": "00000000-0000-7000-8000-000000000001",
                   "manufacturer": "Capintec", "model": "CRC-55t", "serialNumber": "SN-9"}),
        )
        .await);
    app.post_created(
        "/api/test/",
        &app.admin,
        json!({"equipment": equipment, "typeOfTest": test_type, "date": (today() - Days::new(40)).to_string(), "conclusion": "Satisfatório"}),
    )
    .await;
    // A document that runs out in 10 days.
    let date = (today() - Days::new(300)).to_string();
    admin_upload(
        app,
        &facility,
        crate::documents::pdf(200, 3),
        &[
            ("name", "Plano de proteção radiológica"),
            ("date", &date),
            ("validity", &soon),
        ],
    )
    .await;
    // Waste ready, and a week over its quantity.
    store_waste(app, &facility, solid_waste("I(131)", "Abrigo A")).await;
    receive(
        app,
        &facility,
        json!({"radioisotope": "I(131)", "activity": 300, "supplier": "IPEN"}),
    )
    .await;
    (
        facility,
        vec![titular_email, supervisor_email],
        substitute_email,
    )
}

async fn notices_list_what_needs_attention(app: TestApp) {
    let (facility, _, _) = facility_with_notices(&app, "Clinica Avisos").await;
    let (quiet, _, _) = setup(&app, "Clinica Tranquila").await;
    let (_, client) = app.user_with(&["Cliente"], "Cliente Avisos").await;
    let notices = app.admin_get("/api/notices?pageSize=200").await;
    let list = notices["list"].as_array().unwrap();
    let kinds: Vec<&str> = list.iter().map(|n| n["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "qc_overdue",
            "licence_expiring",
            "document_expiring",
            "waste_releasable",
            "quantity_exceeded"
        ],
        "{notices}"
    );
    assert!(
        list.iter()
            .all(|n| n["facility"]["_id"] == facility.as_str())
    );
    let qc = &list[0];
    assert_eq!(qc["equipment"]["name"], "Capintec CRC-55t (série SN-9)");
    assert_eq!(qc["date"], (today() - Days::new(10)).to_string());
    assert!(
        list[1]["subject"].as_str().unwrap().contains("Titular"),
        "{}",
        list[1]
    );
    assert_eq!(list[2]["subject"], "Plano de proteção radiológica");
    assert_eq!(list[3]["date"], "2026-02-21");
    assert_eq!(
        list[4]["date"],
        IsoWeek::containing(Utc::now()).monday().to_string()
    );
    assert!(
        list[4]["subject"].as_str().unwrap().contains("300 mCi"),
        "{}",
        list[4]
    );
    // Filters and paging.
    let only = app
        .admin_get("/api/notices?kind=waste_releasable,qc_overdue")
        .await;
    assert_eq!(only["paging"]["total"], 2);
    let page = app.admin_get("/api/notices?pageSize=2&pageNum=3").await;
    assert_eq!(page["list"].as_array().unwrap().len(), 1);
    assert_eq!(page["paging"]["total"], 5);
    let none = app
        .admin_get(&format!("/api/notices?facilityId={quiet}"))
        .await;
    assert_eq!(none["paging"]["total"], 0);
    // A filter only narrows the list: an unknown facility leaves it empty, as on every list.
    assert_eq!(
        app.total("/api/notices?facilityId=no-such", &app.admin)
            .await,
        0
    );
    app.get("/api/notices?kind=everything", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/notices", &client)
        .await
        .expect_error(403, "permission_denied");
    // A QC test due within the lead time is "due soon", and leaves once recorded again.
    let (_, fisico) = app.user_with(&["Físico"], "Fisico Avisos").await;
    assert_eq!(
        app.get_ok("/api/notices?kind=qc_due_soon", &fisico).await["paging"]["total"],
        0
    );
    // Ordered by name as a reader sorts it: `Álfa` before `Clinica`, `Zeta` after.
    for name in ["Zeta Avisos", "Álfa Avisos"] {
        facility_with_notices(&app, name).await;
    }
    let overdue = app.admin_get("/api/notices?kind=qc_overdue").await;
    let names: Vec<&str> = overdue["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["facility"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Álfa Avisos", "Clinica Avisos", "Zeta Avisos"]);
    // Every route is in the OpenAPI description.
    let doc = app.openapi().await;
    for path in [
        "/api/facility/{id}/receipts",
        "/api/receipts",
        "/api/receipt/{id}",
        "/api/facility/{id}/radioisotopes/usage",
        "/api/facility/{id}/waste",
        "/api/waste",
        "/api/waste/{id}",
        "/api/waste/{id}/release",
        "/api/notices",
    ] {
        assert!(
            doc["paths"][path].is_object(),
            "{path} missing from the OpenAPI document"
        );
    }
}

/// Undoes quoted-printable (soft line breaks and `=XX` bytes) so the body can be read.
/// The facility's digest row, read outside the server: its status, attempts, last error, and
/// 1 once `sent_at` is recorded (0 before).
async fn digest_row(app: &TestApp, facility: &str) -> (String, i64, Option<String>, i64) {
    sqlx::query_as(
        "SELECT status, attempts, last_error, CASE WHEN sent_at IS NULL THEN 0 ELSE 1 END \
         FROM notice_digests WHERE facility_id = $1",
    )
    .bind(facility)
    .fetch_one(&mut app.outside_connection().await)
    .await
    .unwrap()
}

async fn the_digest_goes_out_once_through_smtp_and_is_retried(backend: Backend) {
    // The registry points at a port where no SMTP server listens yet.
    let port = free_port();
    let Some(app) = TestApp::spawn_with(backend, |c| {
        c.smtp_url = Some(registry_server::config::Secret(format!(
            "smtp://127.0.0.1:{port}"
        )));
        c.documents.email_retry_base = Duration::from_millis(300);
        // No digest worker in the background: the test plays two instances itself.
        c.notices.digest_hour = None;
    })
    .await
    else {
        return;
    };
    let (facility, responsible, substitute) = facility_with_notices(&app, "Clinica Digest").await;
    setup(&app, "Clinica Sem Avisos").await;
    // Before the deployer's hour nothing is planned: at noon with the digest set for 23:00.
    let mut late = (*app.state.config).clone();
    late.notices.digest_hour = Some(23);
    let early_instance = app.state.with_config(late);
    let noon = registry_core::material::day_start(today()) + chrono::Duration::hours(12);
    assert_eq!(
        registry_server::notices::run_once(&early_instance, "early", noon)
            .await
            .unwrap(),
        0
    );
    let planned: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notice_runs")
        .fetch_one(&mut app.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(planned, 0, "nothing planned before the hour");
    // Two instances of the server sharing the database, with the digest due from 00:00.
    let mut config = (*app.state.config).clone();
    config.notices.digest_hour = Some(0);
    let instance = app.state.with_config(config);
    let both = |now: DateTime<Utc>| {
        let (a, b) = (instance.clone(), instance.clone());
        async move {
            let (x, y) = tokio::join!(
                registry_server::notices::run_once(&a, "instance-a", now),
                registry_server::notices::run_once(&b, "instance-b", now)
            );
            x.unwrap() + y.unwrap()
        }
    };
    // First round: the SMTP server is down; one instance claims the digest, the attempt fails.
    assert_eq!(
        both(Utc::now()).await,
        1,
        "one digest, claimed by exactly one instance"
    );
    let row = digest_row(&app, &facility).await;
    assert_eq!((row.0.as_str(), row.1), ("pending", 1));
    assert_eq!(
        row.2.as_deref(),
        Some("the mail server could not be reached")
    );
    let Some(smtp) = SmtpSink::start_on(Some(port)).await else {
        return;
    };
    // Not before its retry time; then exactly once.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(both(Utc::now()).await, 1);
    assert_eq!(both(Utc::now()).await, 0, "nothing more to send today");
    let messages = smtp.messages();
    assert_eq!(messages.len(), 1, "one digest per facility with notices");
    let m = unquote(&messages[0]);
    for to in &responsible {
        assert!(m.contains(to.as_str()), "{to} is a responsible person: {m}");
    }
    assert!(
        !m.contains(substitute.as_str()),
        "a Substituto is not mailed: {m}"
    );
    assert!(m.contains("Clinica Digest"), "{m}");
    for expected in [
        "Testes de controle de qualidade vencidos (1)",
        "Capintec CRC-55t (série SN-9)",
        "Rejeitos prontos para liberação (1)",
        "  - 2026-02-21: Pacote sólido (I(131)) em Abrigo A — instalação: Clinica Digest",
        "Documentos a vencer (1)",
        "Licença AN nº AN-1 de Titular (vence)",
        "Quantidades semanais excedidas (1)",
    ] {
        assert!(m.contains(expected), "missing {expected:?} in {m}");
    }
    let row = digest_row(&app, &facility).await;
    assert_eq!((row.0.as_str(), row.1), ("sent", 2));
    assert_eq!(row.3, 1, "sent_at is recorded");
    // The attempts are in the facility's history (newest first).
    let history = app
        .admin_get(&format!("/api/facility/{facility}/history?pageSize=200"))
        .await;
    let mut digests = history_actions(&history);
    assert_eq!(history["paging"]["total"], digests.len(), "all on one page");
    digests.retain(|a| a.starts_with("digest"));
    assert_eq!(digests, ["digest_sent", "digest_retry"]);
    // The next day is planned again, once.
    let tomorrow = Utc::now() + chrono::Duration::days(1);
    assert_eq!(both(tomorrow).await, 1);
    let days: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notice_runs")
        .fetch_one(&mut app.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(days, 2);
}
