//! Uploading and downloading files: the round trip, rejected fields and files, the size limit and
//! the S3 store.

use super::{admin_upload, download, form, new_facility, pdf, send_form, sha256, upload};
use crate::equipment::id;
use crate::helpers::{Backend, TestApp, facility_payload};
use crate::test_servers::S3Server;
use crate::{on_both_backends, on_both_databases};
use reqwest::multipart::{Form, Part};
use serde_json::json;

on_both_databases!(
    upload_and_download_round_trip,
    upload_rejects_bad_fields_and_files
);
on_both_databases!(
    configured(|c| c.documents.upload_limit = 64 * 1024);
    uploads_past_the_limit_are_refused
);
on_both_backends!(files_round_trip_through_s3);

const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
];

/// Equipment of a facility, registered through the API (archived when asked).
async fn insert_equipment(app: &TestApp, facility: &str, archived: bool) -> String {
    let body = json!({"facility": facility, "typeOfEquipment": "00000000-0000-7000-8000-000000000001", "serialNumber": "SN-DOC"});
    let id = id(&app
        .post_created("/api/equipment/register", &app.admin, body)
        .await);
    if archived {
        app.admin_post_id("/api/facility/equipment/exclude", &id)
            .await;
    }
    id
}

/// A QC test record on that equipment, through the API.
async fn insert_qc_test(app: &TestApp, equipment: &str) -> String {
    let name = format!("Exatidão {}", uuid::Uuid::now_v7().simple());
    let body = json!({"name": name, "typeOfEquipment": "00000000-0000-7000-8000-000000000001", "expirationInDays": 180});
    let test_type = id(&app
        .post_created("/api/typeOfTest/register", &app.admin, body)
        .await);
    let body = json!({"equipment": equipment, "typeOfTest": test_type, "date": "2026-11-01", "conclusion": "Satisfatório"});
    app.post_created("/api/test/", &app.admin, body).await["_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn upload_and_download_round_trip(app: TestApp) {
    let facility = new_facility(&app, "Clínica Documentos").await;
    let bytes = pdf(300_000, 1);
    let doc = admin_upload(
        &app,
        &facility,
        bytes.clone(),
        &[("conclusion", "Satisfatório")],
    )
    .await;
    assert_eq!(doc["status"], "Falta assinar");
    assert_eq!(doc["facility"]["_id"], facility.as_str());
    assert_eq!(doc["name"], "Relatório de controle de qualidade");
    assert_eq!(doc["date"], "2026-11-01");
    assert_eq!(doc["validity"], "2027-11-01");
    assert_eq!(doc["conclusion"], "Satisfatório");
    assert_eq!(doc["file"]["name"], "relatorio.pdf");
    assert_eq!(doc["file"]["contentType"], "application/pdf");
    assert_eq!(doc["file"]["size"], 300_000);
    assert_eq!(doc["file"]["sha256"], sha256(&bytes));
    assert_eq!(doc["versions"].as_array().unwrap().len(), 1);
    assert!(doc["signature"].is_null() && doc["code"].is_null());
    let id = id(&doc);
    let (status, kind, got) = download(&app, &app.admin, &format!("/api/document/{id}/file")).await;
    assert_eq!((status, kind.as_deref()), (200, Some("application/pdf")));
    assert_eq!(got.len(), bytes.len());
    assert_eq!(sha256(&got), sha256(&bytes));
    assert_eq!(got, bytes);
    let shown = app.admin_get(&format!("/api/document/{id}/")).await;
    assert_eq!(shown, doc);
    // The file's tag: a client that holds these bytes gets 304 and no body.
    let again = |tag: &str| {
        app.client
            .get(app.url(&format!("/api/document/{id}/file")))
            .bearer_auth(&app.admin)
            .header("If-None-Match", tag)
            .send()
    };
    let held = again(&format!("\"{}\"", sha256(&bytes))).await.unwrap();
    assert_eq!(held.status(), 304);
    assert!(held.bytes().await.unwrap().is_empty());
    assert_eq!(again("\"other\"").await.unwrap().status(), 200);

    // A draft starts in progress; images are accepted too.
    let draft = send_form(
        &app,
        "/api/document/register",
        &app.admin,
        Form::new()
            .text("data", json!({"name": "Levantamento radiométrico", "facility": {"_id": facility}, "date": "2026-10-01", "validity": "2027-10-01", "draft": true}).to_string())
            .part("file", Part::bytes(PNG.to_vec()).file_name("planta baixa ç+1.png")),
    )
    .await
    .expect(201);
    assert_eq!(draft["status"], "Em andamento");
    assert_eq!(draft["file"]["contentType"], "image/png");
    // RFC 8187: a space is %20 in filename* (`+` stands for itself).
    let res = app
        .client
        .get(app.url(&format!(
            "/api/document/{}/file",
            draft["_id"].as_str().unwrap()
        )))
        .bearer_auth(&app.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"planta baixa c+1.png\"; filename*=UTF-8''planta%20baixa%20%C3%A7+1.png"
    );

    // A facility with documents keeps its cnpj.
    let mut edit = facility_payload("Clínica Documentos");
    edit["_id"] = json!(facility);
    let res = app.post("/api/facility/edit", &app.admin, edit).await;
    res.expect_field_error("cnpj", "cnpj_locked");
}

async fn upload_rejects_bad_fields_and_files(app: TestApp) {
    let facility = new_facility(&app, "Clínica Validação").await;
    let other = new_facility(&app, "Outra Clínica").await;
    // Not a PDF or an image.
    let res = upload(&app, &app.admin, &facility, b"PK\x03\x04 zip".to_vec(), &[]).await;
    res.expect_field_error("file", "invalid_value");
    // A field or a file sent twice is refused, not decided by order.
    let fields = [
        ("name", "Relatório"),
        ("facility", facility.as_str()),
        ("date", "2026-11-01"),
        ("validity", "2027-11-01"),
    ];
    let two_files = form(&fields, Some((pdf(100, 1), "a.pdf")))
        .part("file", Part::bytes(pdf(100, 2)).file_name("b.pdf"));
    send_form(&app, "/api/document/register", &app.admin, two_files)
        .await
        .expect_field_error("file", "invalid_value");
    let two_names = form(&fields, Some((pdf(100, 1), "a.pdf")))
        .text("data", json!({"name": "Outro nome"}).to_string());
    send_form(&app, "/api/document/register", &app.admin, two_names)
        .await
        .expect_field_error("name", "invalid_value");
    // A `data` part that is no JSON object says what is wrong with it.
    for (data, said) in [
        ("{not json".to_owned(), "The `data` part: Malformed JSON"),
        (
            format!("{{\"name\":{}{}}}", "[".repeat(200), "]".repeat(200)),
            "The `data` part: The JSON nests too deeply",
        ),
        ("[1]".to_owned(), "The `data` part must be a JSON object"),
    ] {
        let sent = form(&fields, Some((pdf(100, 1), "a.pdf"))).text("data", data.clone());
        let answer = send_form(&app, "/api/document/register", &app.admin, sent)
            .await
            .expect_error(400, "bad_request");
        let message = answer.body["message"].as_str().unwrap().to_owned();
        assert!(message.starts_with(said), "{data}: {message}");
    }
    // A file that is not a PDF or an image is named with the other failing fields.
    let res = send_form(
        &app,
        "/api/document/register",
        &app.admin,
        form(
            &[("name", "Relatório")],
            Some((b"hello world".to_vec(), "x.png")),
        ),
    )
    .await;
    let res = res.expect_error(422, "validation_failed");
    assert!(res.has_field_error("file", "invalid_value"), "{}", res.body);
    assert!(res.has_field_error("date", "required"), "{}", res.body);
    let listed = app.admin_get("/api/documents").await;
    assert_eq!(listed["paging"]["total"], 0, "nothing stored: {listed}");
    // No file, no fields: every problem at once.
    let res = send_form(
        &app,
        "/api/document/register",
        &app.admin,
        form(&[("conclusion", "x")], None),
    )
    .await;
    let res = res.expect_error(422, "validation_failed");
    for field in ["file", "name", "facility", "date", "validity"] {
        assert!(
            res.has_field_error(field, "required"),
            "{field}: {}",
            res.body
        );
    }
    for (field, value) in [("validity", "2026-01-01"), ("date", "01/11/2026")] {
        let res = upload(&app, &app.admin, &facility, pdf(100, 0), &[(field, value)]).await;
        res.expect_field_error(field, "invalid_value");
    }
    let res = upload(&app, &app.admin, "no-such-facility", pdf(100, 0), &[]).await;
    res.expect_field_error("facility", "invalid_value");
    // Equipment and QC tests must be live records of the same facility.
    let eq = insert_equipment(&app, &facility, false).await;
    let foreign_eq = insert_equipment(&app, &other, false).await;
    let archived_eq = insert_equipment(&app, &facility, true).await;
    let test = insert_qc_test(&app, &eq).await;
    let other_eq = insert_equipment(&app, &facility, false).await;
    let foreign_test = insert_qc_test(&app, &foreign_eq).await;
    for (key, value) in [
        ("equipment", foreign_eq.as_str()),
        ("equipment", archived_eq.as_str()),
        ("equipment", "missing"),
        ("test", foreign_test.as_str()),
    ] {
        let res = upload(&app, &app.admin, &facility, pdf(100, 0), &[(key, value)]).await;
        assert!(
            res.expect_error(422, "validation_failed")
                .has_field_error(key, "invalid_value"),
            "{key}={value}"
        );
    }
    let res = upload(
        &app,
        &app.admin,
        &facility,
        pdf(100, 0),
        &[("equipment", &other_eq), ("test", &test)],
    )
    .await;
    res.expect_field_error("test", "invalid_value");
    let doc = admin_upload(
        &app,
        &facility,
        pdf(100, 0),
        &[("equipment", &eq), ("test", &test)],
    )
    .await;
    assert_eq!(doc["equipment"]["_id"], eq.as_str());
    assert_eq!(doc["test"]["_id"], test.as_str());
    // An edit may not move the document to other equipment while it keeps a QC test of the
    // first; with the test let go (or one of the new equipment) it may.
    let id = doc["_id"].as_str().unwrap();
    app.post(
        "/api/document/edit/",
        &app.admin,
        json!({"_id": id, "equipment": other_eq}),
    )
    .await
    .expect_field_errors(&[("equipment", "invalid_value")]);
    assert_eq!(
        app.admin_get(&format!("/api/document/{id}")).await["equipment"]["_id"],
        eq.as_str()
    );
    let moved = app
        .post_ok(
            "/api/document/edit/",
            &app.admin,
            json!({"_id": id, "equipment": other_eq, "test": null}),
        )
        .await;
    assert_eq!(
        (&moved["equipment"]["_id"], &moved["test"]),
        (&json!(other_eq), &json!(null))
    );
    // Every failing field of an edit at once: the fields that read are judged against the
    // stored document even when others fail (a facility that may not change, equipment that is
    // not the facility's, a validity before the stored date).
    let refused = json!({"_id": id, "name": "", "facility": other, "equipment": "missing",
                         "validity": "2000-01-01"});
    app.post("/api/document/edit/", &app.admin, refused)
        .await
        .expect_field_errors(&[
            ("name", "required"),
            ("facility", "invalid_value"),
            ("equipment", "invalid_value"),
            ("validity", "invalid_value"),
        ]);
    // A text part that is not UTF-8 is named as such, not read as something else.
    let raw = form(
        &[
            ("facility", facility.as_str()),
            ("date", "2026-11-01"),
            ("validity", "2027-11-01"),
        ],
        Some((pdf(100, 0), "a.pdf")),
    )
    .part("name", reqwest::multipart::Part::bytes(vec![0xff, 0xfe]));
    send_form(&app, "/api/document/register", &app.admin, raw)
        .await
        .expect_field_errors(&[("name", "invalid_value")]);
    // JSON is not an upload.
    app.post("/api/document/register/", &app.admin, json!({"name": "x"}))
        .await
        .expect_error(400, "bad_request");
}

async fn uploads_past_the_limit_are_refused(app: TestApp) {
    let facility = new_facility(&app, "Clínica Limite").await;
    admin_upload(&app, &facility, pdf(64 * 1024, 0), &[]).await;
    let res = upload(&app, &app.admin, &facility, pdf(64 * 1024 + 1, 0), &[]).await;
    res.expect_error(413, "payload_too_large");
    let list = app.admin_get("/api/documents").await;
    assert_eq!(
        list["paging"]["total"], 1,
        "a refused upload stores nothing"
    );
}

async fn files_round_trip_through_s3(backend: Backend) {
    let Some(s3) = S3Server::start().await else {
        return;
    };
    let url = s3.url();
    let Some(app) = TestApp::spawn_with(backend, |c| c.object_store_url = Some(url)).await else {
        return;
    };
    let facility = new_facility(&app, "Clínica S3").await;
    // Over one multipart part, so the S3 multipart upload is exercised.
    let bytes = pdf(6 * 1024 * 1024 + 123, 7);
    let doc = admin_upload(&app, &facility, bytes.clone(), &[]).await;
    let small = pdf(1000, 9);
    admin_upload(&app, &facility, small.clone(), &[]).await;
    let keys = s3.keys().await;
    for b in [&bytes, &small] {
        let sha = sha256(b);
        assert!(
            keys.iter()
                .any(|k| k == &format!("documents/sha256/{}/{sha}", &sha[..2])),
            "{keys:?}"
        );
    }
    assert!(!app.data_dir.path().join("objects").join("sha256").exists());
    let (status, _, got) = download(
        &app,
        &app.admin,
        &format!("/api/document/{}/file", id(&doc)),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(sha256(&got), sha256(&bytes));
    assert_eq!(got, bytes);
    // The same content again is stored once.
    admin_upload(&app, &facility, bytes.clone(), &[]).await;
    assert_eq!(s3.keys().await.len(), keys.len());
}
