use crate::documents::{admin_upload, new_facility, pdf, upload};
use crate::helpers::{Backend, TestApp, unquote};
use crate::on_both_backends;
use crate::test_servers::{SmtpSink, free_port};
use serde_json::{Value, json};
use std::time::Duration;

on_both_backends!(
    scheduled_email_goes_out_once_through_smtp,
    failed_sends_are_retried_with_backoff,
    archiving_the_facility_cancels_its_pending_emails,
    a_mail_server_that_stops_answering_is_given_up_on,
    default_recipients_are_the_users_active_when_it_is_sent,
    a_failed_send_shows_what_failed_without_internals,
    a_refused_recipient_does_not_keep_the_message_from_the_others
);

/// A fast worker: polls often, retries soon.
fn fast_worker(c: &mut registry_server::Config, smtp: String) {
    c.smtp_url = Some(registry_server::config::Secret(smtp));
    c.documents.email_poll_interval = Duration::from_millis(100);
    c.documents.email_retry_base = Duration::from_millis(300);
    c.documents.email_send_timeout = Duration::from_secs(2);
}

/// An SMTP sink and a server whose fast worker sends to it (`None`: either is unavailable here).
async fn with_smtp_sink(backend: Backend) -> Option<(SmtpSink, TestApp)> {
    let smtp = SmtpSink::start().await?;
    let url = smtp.url();
    let app = TestApp::spawn_with(backend, |c| fast_worker(c, url)).await?;
    Some((smtp, app))
}

/// Uploads, signs and releases a document: its `_id`.
async fn released(app: &TestApp, token: &str, facility: &str, name: &str) -> String {
    let doc = upload(app, token, facility, pdf(5000, 1), &[("name", name)])
        .await
        .expect(201);
    let id = doc["_id"].as_str().unwrap().to_owned();
    app.post_id("/api/document/sign", token, &id)
        .await
        .expect(200);
    app.post_id("/api/document/liberate", token, &id)
        .await
        .expect(200);
    id
}

/// Schedules document `id`'s e-mail to its facility's users a moment ahead (1.5 s): the document.
async fn schedule_soon(app: &TestApp, id: &str) -> Value {
    let send_at = chrono::Utc::now() + chrono::Duration::milliseconds(1500);
    let body = json!({"_id": id, "sendAt": send_at.to_rfc3339()});
    app.post("/api/document/scheduleEmail", &app.admin, body)
        .await
        .expect(202)
}

/// Polls the document until `done` holds (or fails after 20 s).
async fn wait_for(app: &TestApp, token: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        let doc = app.get_ok(&format!("/api/document/{id}"), token).await;
        if done(&doc) {
            return doc;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("document {id} did not reach the expected e-mail state");
}

async fn scheduled_email_goes_out_once_through_smtp(backend: Backend) {
    let Some((smtp, app)) = with_smtp_sink(backend).await else {
        return;
    };
    let (user_id, _) = app.user_with(&["Cliente"], "Cliente Email").await;
    let facility = app.create_facility_of(&user_id, "Clínica E-mail").await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Only released documents are mailed.
    let draft = admin_upload(&app, &facility, pdf(100, 1), &[]).await;
    app.post_id("/api/document/scheduleEmail", &app.admin, &draft["_id"])
        .await
        .expect_error(409, "conflict");
    // Fields before conflicts: a failing field is named even when the status would refuse too.
    app.post(
        "/api/document/scheduleEmail/",
        &app.admin,
        json!({"_id": draft["_id"], "to": ["not-an-address"]}),
    )
    .await
    .expect_field_error("to[0]", "invalid_email");
    let id = released(&app, &app.admin, &facility, "Relatório Anual").await;
    app.post(
        "/api/document/scheduleEmail/",
        &app.admin,
        json!({"_id": id, "to": ["ok@example.com", "not-an-address"]}),
    )
    .await
    .expect_field_error("to[1]", "invalid_email");
    // Addresses a mail server refuses are refused here too, not accepted and never sent.
    for refused in ["a\"b@c.com", "joao..silva@example.com", "a@[127.0.0.1]"] {
        app.post(
            "/api/document/scheduleEmail/",
            &app.admin,
            json!({"_id": id, "to": ["ok@example.com", refused]}),
        )
        .await
        .expect_field_error("to[1]", "invalid_email");
    }
    app.post(
        "/api/document/scheduleEmail",
        &app.admin,
        json!({"_id": id, "sendAt": "amanhã"}),
    )
    .await
    .expect_error(422, "validation_failed");
    // Default recipients: the facility's active users; a time a moment ahead.
    let doc = schedule_soon(&app, &id).await;
    assert_eq!(doc["scheduledEmail"]["status"], "pending");
    assert_eq!(doc["scheduledEmail"]["to"].as_array().unwrap().len(), 1);
    assert!(doc["sentEmail"].is_null());
    let doc = wait_for(&app, &app.admin, &id, |d| d["sentEmail"].is_object()).await;
    // Not before its time (read from the record, not from a wait that a slow machine outlasts).
    let time = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    assert!(
        time(&doc["sentEmail"]["sentAt"]) >= time(&doc["scheduledEmail"]["sendAt"]),
        "sent before its time: {doc}"
    );
    assert_eq!(doc["scheduledEmail"]["status"], "sent");
    assert_eq!(doc["scheduledEmail"]["attempts"], 1);
    let recipient = doc["sentEmail"]["to"][0].as_str().unwrap().to_owned();
    assert!(recipient.starts_with("cliente.email-"));
    // More polls do not send it again.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let messages = smtp.messages();
    assert_eq!(messages.len(), 1);
    let m = &messages[0];
    assert!(m.contains(&recipient), "{m}");
    assert!(m.contains("Message-ID: <"), "{m}");
    assert!(
        m.contains("Content-Disposition: attachment"),
        "the file travels attached: {m}"
    );
    assert!(m.contains("relatorio.pdf"));
    // The mailed link works without a token (recipients named in `to` often have no account, and
    // a file too large to attach reaches them only this way), for this document only (audit of
    // stop 36).
    let text = unquote(m);
    let link = text
        .lines()
        .find_map(|l| l.split_once("Download (link válido por 7 dias): "))
        .map(|(_, link)| link.trim().to_owned())
        .unwrap_or_else(|| panic!("a download link: {text}"));
    let path = &link[link.find("/api/").unwrap()..];
    let anonymous = |path: String| app.client.get(app.url(&path)).send();
    let res = anonymous(path.to_owned()).await.unwrap();
    assert_eq!(res.status(), 200, "{path}");
    assert_eq!(res.headers()["content-type"], "application/pdf");
    // Whatever token an HTTP client sends with it by default: a forged one, or someone's who
    // may not read the document.
    let (_, outsider) = app.user_with(&["Cliente"], "Cliente de Fora").await;
    for token in ["forged", outsider.as_str()] {
        let (status, ..) = crate::documents::download(&app, token, path).await;
        assert_eq!(status, 200, "{path} with a token");
    }
    let mut changed = path.to_owned();
    let last = changed.pop().unwrap();
    changed.push(if last == 'A' { 'B' } else { 'A' });
    let draft_id = draft["_id"].as_str().unwrap();
    for refused in [
        changed,
        path.replace(&id, draft_id),
        format!("/api/document/{id}/file"),
    ] {
        let res = anonymous(refused.clone()).await.unwrap();
        assert_eq!(res.status(), 401, "{refused}");
    }
    let mut actions = app.audit_actions("document", &id).await;
    actions.retain(|a| a.contains("email"));
    assert_eq!(actions, ["schedule_email", "email_sent"]);

    // A leap second is kept as the next minute's first instant, on both databases.
    let new_year = released(&app, &app.admin, &facility, "Virada do Ano").await;
    let doc = app
        .post(
            "/api/document/scheduleEmail",
            &app.admin,
            json!({"_id": new_year, "sendAt": "2099-12-31T23:59:60Z"}),
        )
        .await
        .expect(202);
    assert_eq!(
        doc["scheduledEmail"]["sendAt"],
        "2100-01-01T00:00:00.000000Z"
    );
    let shown = app.admin_get(&format!("/api/document/{new_year}")).await;
    assert_eq!(shown["scheduledEmail"], doc["scheduledEmail"]);
}

/// A mail server that refuses one address (SMTP 550: it knows no such mailbox) refuses the whole
/// message to several: the message still goes to each address it takes, once, and the schedule is
/// sent, its `lastError` naming the refused address with the reply code only. When it takes none,
/// the send failed as any other.
async fn a_refused_recipient_does_not_keep_the_message_from_the_others(backend: Backend) {
    let Some((smtp, app)) = with_smtp_sink(backend).await else {
        return;
    };
    let facility = new_facility(&app, "Clínica Recusa").await;
    let id = released(&app, &app.admin, &facility, "Laudo").await;
    let schedule = |to: &[&str]| {
        let body = json!({"_id": id, "to": to});
        app.post("/api/document/scheduleEmail", &app.admin, body)
    };
    let to = [
        "um@example.com",
        "refused.nobody@example.com",
        "dois@example.com",
    ];
    schedule(&to).await.expect(202);
    let doc = wait_for(&app, &app.admin, &id, |d| d["sentEmail"].is_object()).await;
    let email = &doc["scheduledEmail"];
    assert_eq!(email["status"], "sent", "{email}");
    assert_eq!(email["attempts"], 1);
    assert_eq!(
        email["lastError"],
        "not delivered to refused.nobody@example.com: the mail server refused the message (SMTP 550)"
    );
    let mut delivered: Vec<String> = smtp
        .messages()
        .iter()
        .map(|m| {
            assert!(
                m.contains("refused.nobody@example.com"),
                "the header names all three: {m}"
            );
            let rcpt = m.lines().find_map(|l| l.strip_prefix("X-RcptTo: "));
            rcpt.unwrap_or_else(|| panic!("{m}")).trim().to_owned()
        })
        .collect();
    delivered.sort();
    assert_eq!(delivered, ["dois@example.com", "um@example.com"]);
    let mut actions = app.audit_actions("document", &id).await;
    actions.retain(|a| a.contains("email"));
    assert_eq!(actions, ["schedule_email", "email_sent"]);

    schedule(&["refused.a@example.com", "refused.b@example.com"])
        .await
        .expect(202);
    let doc = wait_for(&app, &app.admin, &id, |d| {
        d["scheduledEmail"]["lastError"].is_string()
    })
    .await;
    let email = &doc["scheduledEmail"];
    assert_ne!(email["status"], "sent", "{email}");
    assert_eq!(
        email["lastError"],
        "the mail server refused the message (SMTP 550)"
    );
    assert_eq!(smtp.messages().len(), 2);
}

/// Without `to`, the e-mail goes to the facility's users active at the time it is sent: one
/// deactivated meanwhile gets nothing (product.md §5), though the answer listed them.
async fn default_recipients_are_the_users_active_when_it_is_sent(backend: Backend) {
    let Some((smtp, app)) = with_smtp_sink(backend).await else {
        return;
    };
    let (stays, _) = app.user_with(&["Cliente"], "Fica Aqui").await;
    let (leaves, _) = app.user_with(&["Cliente"], "Vai Embora").await;
    let mut payload = crate::helpers::facility_payload("Clínica Destinatários");
    payload["users"] = json!([
        {"_id": stays, "responsabilities": ["Titular"]},
        {"_id": leaves, "responsabilities": ["Substituto"]}
    ]);
    let facility = app.create_facility(payload).await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = released(&app, &app.admin, &facility, "Laudo Mensal").await;
    let doc = schedule_soon(&app, &id).await;
    assert_eq!(doc["scheduledEmail"]["to"].as_array().unwrap().len(), 2);
    app.post_id("/api/exclude/", &app.admin, &leaves)
        .await
        .expect(200);
    let doc = wait_for(&app, &app.admin, &id, |d| d["sentEmail"].is_object()).await;
    let to = doc["sentEmail"]["to"].as_array().unwrap();
    assert_eq!(to.len(), 1, "{to:?}");
    assert!(to[0].as_str().unwrap().starts_with("fica.aqui-"), "{to:?}");
    let messages = smtp.messages();
    assert_eq!(messages.len(), 1);
    assert!(!messages[0].contains("vai.embora-"), "{}", messages[0]);
}

/// A server whose worker sends to a port where no SMTP server listens (yet), and a released
/// document of a new facility: the app, the port, the facility and the document.
async fn released_without_smtp(backend: Backend) -> Option<(TestApp, u16, String, String)> {
    let port = free_port();
    let app = TestApp::spawn_with(backend, |c| {
        fast_worker(c, format!("smtp://127.0.0.1:{port}"))
    })
    .await?;
    let facility = new_facility(&app, "Clínica Sem Correio").await;
    let id = released(&app, &app.admin, &facility, "Licença").await;
    Some((app, port, facility, id))
}

/// Schedules document `id` for now to one address: the document once `attempts` were made.
async fn send_to_fisica(app: &TestApp, id: &str, attempts: i64) -> Value {
    app.post(
        "/api/document/scheduleEmail",
        &app.admin,
        json!({"_id": id, "to": "fisica@example.com"}),
    )
    .await
    .expect(202);
    wait_for(app, &app.admin, id, |d| {
        d["scheduledEmail"]["attempts"].as_i64() >= Some(attempts)
    })
    .await
}

async fn failed_sends_are_retried_with_backoff(backend: Backend) {
    let Some((app, port, _, id)) = released_without_smtp(backend).await else {
        return;
    };
    let doc = send_to_fisica(&app, &id, 2).await;
    let s = &doc["scheduledEmail"];
    assert_eq!(s["status"], "pending");
    // What failed, not where: the host and port stay in the log.
    assert_eq!(
        s["lastError"], "the mail server could not be reached",
        "{s}"
    );
    assert!(doc["sentEmail"].is_null());
    let first_retry = s["nextAttemptAt"].as_str().unwrap();
    assert!(first_retry > s["sendAt"].as_str().unwrap(), "{s}");
    // The server comes up; the next retry delivers, once.
    let Some(smtp) = SmtpSink::start_on(Some(port)).await else {
        return;
    };
    let doc = wait_for(&app, &app.admin, &id, |d| d["sentEmail"].is_object()).await;
    assert!(doc["scheduledEmail"]["attempts"].as_i64().unwrap() >= 3);
    assert_eq!(doc["sentEmail"]["to"], json!(["fisica@example.com"]));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(smtp.messages().len(), 1);
}

/// A send that fails on a stored file gone missing records what failed, never the store's path
/// or error: whoever may read the document (its facility's `Cliente` users once released) sees
/// `lastError` (audit of stop 36).
async fn a_failed_send_shows_what_failed_without_internals(backend: Backend) {
    let Some((app, _, _, id)) = released_without_smtp(backend).await else {
        return;
    };
    let doc = app.admin_get(&format!("/api/document/{id}")).await;
    let sha = doc["file"]["sha256"].as_str().unwrap().to_owned();
    let stored = app
        .data_dir
        .path()
        .join(format!("objects/sha256/{}/{sha}", &sha[..2]));
    std::fs::remove_file(&stored).unwrap_or_else(|e| panic!("{}: {e}", stored.display()));
    let doc = send_to_fisica(&app, &id, 1).await;
    assert_eq!(
        doc["scheduledEmail"]["lastError"], "the document's file could not be read",
        "{doc}"
    );
}

/// A mail server that greets, then stops answering: the send is given up on after the send
/// timeout and recorded as failed (to be tried again), instead of holding the worker and every
/// schedule after it for as long as the connection stays open.
async fn a_mail_server_that_stops_answering_is_given_up_on(backend: Backend) {
    let Some((app, port, _, id)) = released_without_smtp(backend).await else {
        return;
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let hang = tokio::spawn(async move {
        let mut held = Vec::new();
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            use tokio::io::AsyncWriteExt;
            socket.write_all(b"220 sink ESMTP\r\n").await.unwrap();
            held.push(socket); // never read, never answered, never closed
        }
    });
    let doc = send_to_fisica(&app, &id, 1).await;
    hang.abort();
    assert_eq!(
        doc["scheduledEmail"]["lastError"], "the mail server did not answer within 2 seconds",
        "{doc}"
    );
}

/// A facility archived before its document's e-mail is due: the schedule is cancelled, never
/// attempted (no attempt is audited), as when the document itself is deleted.
async fn archiving_the_facility_cancels_its_pending_emails(backend: Backend) {
    let Some((app, _, facility, id)) = released_without_smtp(backend).await else {
        return;
    };
    let send_at = chrono::Utc::now() + chrono::Duration::milliseconds(800);
    app.post(
        "/api/document/scheduleEmail",
        &app.admin,
        json!({"_id": id, "to": "fisica@example.com", "sendAt": send_at.to_rfc3339()}),
    )
    .await
    .expect(202);
    app.admin_post_id("/api/facility/exclude", &facility).await;
    // Well past the send time, with the worker polling every 100 ms and retrying after 300 ms.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let mut actions = app.audit_actions("document", &id).await;
    actions.retain(|a| a.contains("email"));
    assert_eq!(actions, ["schedule_email"], "no attempt after the archive");
}

/// Two servers on one PostgreSQL database (and one data folder, as a shared volume) with a fast
/// worker each: every schedule is delivered exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_send_each_schedule_exactly_once() {
    let Some(smtp) = SmtpSink::start().await else {
        return;
    };
    let url = smtp.url();
    let first_url = url.clone();
    let Some(first) = TestApp::spawn_with(Backend::Postgres, |c| fast_worker(c, first_url)).await
    else {
        return;
    };
    let database = first.state.config.database_url.clone();
    let data_dir = first.data_dir.path().to_owned();
    let second = TestApp::spawn_with(Backend::Postgres, |c| {
        fast_worker(c, url);
        c.database_url = database;
        c.data_dir = data_dir;
    })
    .await
    .expect("second instance");
    let facility = new_facility(&first, "Clínica Duas Instâncias").await;
    const N: usize = 12;
    let mut ids = Vec::new();
    for i in 0..N {
        let app = if i % 2 == 0 { &first } else { &second };
        ids.push(released(app, &app.admin, &facility, &format!("Documento {i:02}")).await);
    }
    // All due at the same moment, while both workers poll.
    let send_at = (chrono::Utc::now() + chrono::Duration::seconds(1)).to_rfc3339();
    for (i, id) in ids.iter().enumerate() {
        first
            .post(
                "/api/document/scheduleEmail",
                &first.admin,
                json!({"_id": id, "sendAt": send_at, "to": [format!("dest{i}@example.com")]}),
            )
            .await
            .expect(202);
    }
    for id in &ids {
        wait_for(&second, &second.admin, id, |d| d["sentEmail"].is_object()).await;
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    let messages = smtp.messages();
    assert_eq!(messages.len(), N, "each schedule exactly once");
    for i in 0..N {
        let to = format!("dest{i}@example.com");
        assert_eq!(
            messages.iter().filter(|m| m.contains(&to)).count(),
            1,
            "{to}"
        );
    }
    let attempts: Vec<i64> = sqlx::query_scalar("SELECT attempts FROM email_schedules")
        .fetch_all(&mut first.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(attempts, vec![1; N]);
}
