use crate::helpers::{Answer, Backend, TestApp, facility_payload};
use crate::test_servers::S3Server;
use crate::{on_both_backends, on_both_databases};
use registry_core::document::{self, Document, VerifyError};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

on_both_databases!(
    upload_and_download_round_trip,
    upload_rejects_bad_fields_and_files,
    every_allowed_and_refused_status_move,
    permissions_by_role,
    signature_verifies_offline_and_catches_tampering,
    clients_see_only_released_documents_of_their_facilities,
    lists_filter_by_status_facility_dates_and_text,
    comments_soft_delete_and_audit,
);
on_both_backends!(
    uploads_past_the_limit_are_refused,
    files_round_trip_through_s3
);

/// A PDF-looking file of `n` bytes with varying content.
pub fn pdf(n: usize, seed: u8) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..n.saturating_sub(9)).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)));
    bytes
}

const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
];

pub fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

pub async fn send_form(app: &TestApp, path: &str, token: &str, form: Form) -> Answer {
    let res = app
        .client
        .post(app.url(path))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .expect("request sent");
    let status = res.status();
    let headers = res.headers().clone();
    let text = res.text().await.unwrap();
    Answer {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

fn form(fields: &[(&str, &str)], file: Option<(Vec<u8>, &str)>) -> Form {
    let mut form = Form::new();
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    if let Some((bytes, name)) = file {
        form = form.part("file", Part::bytes(bytes).file_name(name.to_owned()));
    }
    form
}

/// Uploads a PDF to the facility with valid fields (plus `extra`).
pub async fn upload(
    app: &TestApp,
    token: &str,
    facility: &str,
    bytes: Vec<u8>,
    extra: &[(&str, &str)],
) -> Answer {
    let mut fields = vec![
        ("name", "Relatório de controle de qualidade"),
        ("facility", facility),
        ("date", "2026-11-01"),
        ("validity", "2027-11-01"),
    ];
    fields.extend_from_slice(extra);
    send_form(
        app,
        "/api/document/register/",
        token,
        form(&fields, Some((bytes, "relatorio.pdf"))),
    )
    .await
}

pub async fn new_facility(app: &TestApp, name: &str) -> String {
    app.create_facility(facility_payload(name)).await["_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub async fn download(app: &TestApp, token: &str, path: &str) -> (u16, Option<String>, Vec<u8>) {
    let res = app
        .client
        .get(app.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let kind = res
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, kind, res.bytes().await.unwrap().to_vec())
}

fn id(v: &Value) -> String {
    v["_id"].as_str().unwrap().to_owned()
}

/// Equipment of a facility, registered through the API (archived when asked).
async fn insert_equipment(app: &TestApp, facility: &str, archived: bool) -> String {
    let body = json!({"facility": facility, "typeOfEquipment": "00000000-0000-7000-8000-000000000001", "serialNumber": "SN-DOC"});
    let id = app
        .post("/api/equipment/register", &app.admin, body)
        .await
        .expect(201)["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    if archived {
        app.post(
            "/api/facility/equipment/exclude",
            &app.admin,
            json!({"_id": id}),
        )
        .await
        .expect(200);
    }
    id
}

/// A QC test record on that equipment, through the API.
async fn insert_qc_test(app: &TestApp, equipment: &str) -> String {
    let name = format!("Exatidão {}", uuid::Uuid::now_v7().simple());
    let body = json!({"name": name, "typeOfEquipment": "00000000-0000-7000-8000-000000000001", "expirationInDays": 180});
    let test_type = app
        .post("/api/typeOfTest/register", &app.admin, body)
        .await
        .expect(201)["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({"equipment": equipment, "typeOfTest": test_type, "date": "2026-11-01", "conclusion": "Satisfatório"});
    app.post("/api/test/", &app.admin, body).await.expect(201)["_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn upload_and_download_round_trip(app: TestApp) {
    let facility = new_facility(&app, "Clínica Documentos").await;
    let bytes = pdf(300_000, 1);
    let doc = upload(
        &app,
        &app.admin,
        &facility,
        bytes.clone(),
        &[("conclusion", "Satisfatório")],
    )
    .await
    .expect(201);
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
    let shown = app
        .get(&format!("/api/document/{id}/"), &app.admin)
        .await
        .expect(200);
    assert_eq!(shown, doc);

    // A draft starts in progress; images are accepted too.
    let draft = send_form(
        &app,
        "/api/document/register",
        &app.admin,
        Form::new()
            .text("data", json!({"name": "Levantamento radiométrico", "facility": {"_id": facility}, "date": "2026-10-01", "validity": "2027-10-01", "draft": true}).to_string())
            .part("file", Part::bytes(PNG.to_vec()).file_name("planta.png")),
    )
    .await
    .expect(201);
    assert_eq!(draft["status"], "Em andamento");
    assert_eq!(draft["file"]["contentType"], "image/png");

    // A facility with documents keeps its cnpj.
    let mut edit = facility_payload("Clínica Documentos");
    edit["_id"] = json!(facility);
    let res = app.post("/api/facility/edit", &app.admin, edit).await;
    let res = res.expect_error(422, "validation_failed");
    assert!(res.has_field_error("cnpj", "cnpj_locked"), "{}", res.body);
}

async fn upload_rejects_bad_fields_and_files(app: TestApp) {
    let facility = new_facility(&app, "Clínica Validação").await;
    let other = new_facility(&app, "Outra Clínica").await;
    // Not a PDF or an image.
    let res = upload(&app, &app.admin, &facility, b"PK\x03\x04 zip".to_vec(), &[]).await;
    assert!(
        res.expect_error(422, "validation_failed")
            .has_field_error("file", "invalid_value")
    );
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
    let res = upload(
        &app,
        &app.admin,
        &facility,
        pdf(100, 0),
        &[("validity", "2026-01-01")],
    )
    .await;
    assert!(
        res.expect_error(422, "validation_failed")
            .has_field_error("validity", "invalid_value")
    );
    let res = upload(
        &app,
        &app.admin,
        &facility,
        pdf(100, 0),
        &[("date", "01/11/2026")],
    )
    .await;
    assert!(
        res.expect_error(422, "validation_failed")
            .has_field_error("date", "invalid_value")
    );
    let res = upload(&app, &app.admin, "no-such-facility", pdf(100, 0), &[]).await;
    assert!(
        res.expect_error(422, "validation_failed")
            .has_field_error("facility", "invalid_value")
    );
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
    assert!(
        res.expect_error(422, "validation_failed")
            .has_field_error("test", "invalid_value")
    );
    let doc = upload(
        &app,
        &app.admin,
        &facility,
        pdf(100, 0),
        &[("equipment", &eq), ("test", &test)],
    )
    .await
    .expect(201);
    assert_eq!(doc["equipment"]["_id"], eq.as_str());
    assert_eq!(doc["test"]["_id"], test.as_str());
    // JSON is not an upload.
    app.post("/api/document/register/", &app.admin, json!({"name": "x"}))
        .await
        .expect_error(400, "bad_request");
}

async fn uploads_past_the_limit_are_refused(backend: Backend) {
    let Some(app) = TestApp::spawn_with(backend, |c| c.documents.upload_limit = 64 * 1024).await
    else {
        return;
    };
    let facility = new_facility(&app, "Clínica Limite").await;
    upload(&app, &app.admin, &facility, pdf(64 * 1024, 0), &[])
        .await
        .expect(201);
    let res = upload(&app, &app.admin, &facility, pdf(64 * 1024 + 1, 0), &[]).await;
    res.expect_error(413, "payload_too_large");
    let list = app.get("/api/documents", &app.admin).await.expect(200);
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
    let doc = upload(&app, &app.admin, &facility, bytes.clone(), &[])
        .await
        .expect(201);
    let small = pdf(1000, 9);
    upload(&app, &app.admin, &facility, small.clone(), &[])
        .await
        .expect(201);
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
    upload(&app, &app.admin, &facility, bytes.clone(), &[])
        .await
        .expect(201);
    assert_eq!(s3.keys().await.len(), keys.len());
}

async fn edit(app: &TestApp, token: &str, body: Value) -> Answer {
    app.post("/api/document/edit/", token, body).await
}

async fn every_allowed_and_refused_status_move(app: TestApp) {
    let facility = new_facility(&app, "Clínica Estados").await;
    let (_, fisico) = app.user_with(&["Físico"], "Fisica Estados").await;
    let (_, laudos) = app.user_with(&["Laudos"], "Laudos Estados").await;
    let doc = upload(
        &app,
        &app.admin,
        &facility,
        pdf(2000, 1),
        &[("draft", "true")],
    )
    .await
    .expect(201);
    let id = id(&doc);
    let sign = |token: String| {
        let body = json!({"_id": id});
        let app = &app;
        async move { app.post("/api/document/sign/", &token, body).await }
    };
    let liberate = |token: String| {
        let body = json!({"_id": id});
        let app = &app;
        async move { app.post("/api/document/liberate/", &token, body).await }
    };

    // Em andamento: only submitting moves it.
    assert_eq!(doc["status"], "Em andamento");
    sign(fisico.clone())
        .await
        .expect_error(409, "invalid_transition");
    liberate(app.admin.clone())
        .await
        .expect_error(409, "invalid_transition");
    for to in ["Corrigir", "Assinado", "Liberado"] {
        edit(&app, &app.admin, json!({"_id": id, "status": to}))
            .await
            .expect_error(409, "invalid_transition");
    }
    let doc = edit(
        &app,
        &laudos,
        json!({"_id": id, "status": "Falta assinar", "name": "Relatório v2"}),
    )
    .await
    .expect(200);
    assert_eq!(
        (doc["status"].as_str(), doc["name"].as_str()),
        (Some("Falta assinar"), Some("Relatório v2"))
    );

    // Falta assinar: a signer sends it back; nobody else may; it cannot go back in progress.
    liberate(app.admin.clone())
        .await
        .expect_error(409, "invalid_transition");
    edit(
        &app,
        &app.admin,
        json!({"_id": id, "status": "Em andamento"}),
    )
    .await
    .expect_error(409, "invalid_transition");
    edit(&app, &app.admin, json!({"_id": id, "status": "Assinado"}))
        .await
        .expect_error(409, "invalid_transition");
    edit(&app, &laudos, json!({"_id": id, "status": "Corrigir"}))
        .await
        .expect_error(403, "permission_denied");
    let doc = edit(&app, &fisico, json!({"_id": id, "status": "corrigir"}))
        .await
        .expect(200);
    assert_eq!(doc["status"], "Corrigir");

    // Corrigir: not signable; a new file version and the slug hand it in again.
    sign(fisico.clone())
        .await
        .expect_error(409, "invalid_transition");
    liberate(app.admin.clone())
        .await
        .expect_error(409, "invalid_transition");
    let first = pdf(2000, 1);
    let second = pdf(3000, 2);
    let form = Form::new()
        .text(
            "data",
            json!({"_id": id, "status": "falta-assinar"}).to_string(),
        )
        .part("file", Part::bytes(second.clone()).file_name("v2.pdf"));
    let doc = send_form(&app, "/api/document/edit", &laudos, form)
        .await
        .expect(200);
    assert_eq!(doc["status"], "Falta assinar");
    assert_eq!(doc["file"]["sha256"], sha256(&second));
    let versions = doc["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(
        (
            versions[0]["version"].as_i64(),
            versions[1]["version"].as_i64()
        ),
        (Some(2), Some(1))
    );
    assert_eq!(versions[1]["sha256"], sha256(&first));
    let (_, _, old) = download(
        &app,
        &app.admin,
        &format!("/api/document/{id}/file?version=1"),
    )
    .await;
    assert_eq!(old, first, "the replaced file is kept");
    let (_, _, current) = download(&app, &app.admin, &format!("/api/document/{id}/file")).await;
    assert_eq!(current, second);

    // Falta assinar → Assinado.
    let doc = sign(fisico.clone()).await.expect(200);
    assert_eq!(doc["status"], "Assinado");
    assert!(
        document::is_authenticity_code(doc["code"].as_str().unwrap()),
        "{}",
        doc["code"]
    );

    // Assinado: frozen; only release moves it.
    sign(app.admin.clone())
        .await
        .expect_error(409, "invalid_transition");
    let form = Form::new()
        .text("_id", id.clone())
        .part("file", Part::bytes(pdf(100, 3)).file_name("v3.pdf"));
    send_form(&app, "/api/document/edit", &app.admin, form)
        .await
        .expect_error(409, "invalid_transition");
    edit(&app, &app.admin, json!({"_id": id, "name": "Renomeado"}))
        .await
        .expect_error(409, "invalid_transition");
    edit(&app, &fisico, json!({"_id": id, "status": "Corrigir"}))
        .await
        .expect_error(409, "invalid_transition");
    let doc = liberate(fisico.clone()).await.expect(200);
    assert_eq!(doc["status"], "Liberado");
    assert_eq!(
        doc["file"]["sha256"],
        sha256(&second),
        "the refused file changed nothing"
    );

    // Liberado: final.
    liberate(app.admin.clone())
        .await
        .expect_error(409, "invalid_transition");
    sign(app.admin.clone())
        .await
        .expect_error(409, "invalid_transition");
    edit(
        &app,
        &app.admin,
        json!({"_id": id, "status": "Falta assinar"}),
    )
    .await
    .expect_error(409, "invalid_transition");
    // Unknown status values are field errors; unknown documents 404.
    edit(&app, &app.admin, json!({"_id": id, "status": "Pronto"}))
        .await
        .expect_error(422, "validation_failed");
    app.post("/api/document/sign", &app.admin, json!({"_id": "nope"}))
        .await
        .expect_error(404, "not_found");
}

async fn permissions_by_role(app: TestApp) {
    let facility = new_facility(&app, "Clínica Permissões").await;
    let (_, admin) = app.user_with(&["Admin"], "Admin Perm").await;
    let (_, fisico) = app.user_with(&["Físico"], "Fisico Perm").await;
    let (_, laudos) = app.user_with(&["Laudos"], "Laudos Perm").await;
    let (_, cliente) = app.user_with(&["Cliente"], "Cliente Perm").await;
    // Upload: the four staff roles; never a client.
    let mut docs = Vec::new();
    for token in [&app.admin, &admin, &fisico, &laudos] {
        docs.push(id(&upload(&app, token, &facility, pdf(500, 4), &[])
            .await
            .expect(201)));
    }
    upload(&app, &cliente, &facility, pdf(500, 4), &[])
        .await
        .expect_error(403, "permission_denied");
    // Edit: staff; not a client.
    edit(&app, &laudos, json!({"_id": docs[0], "name": "Laudo"}))
        .await
        .expect(200);
    edit(&app, &cliente, json!({"_id": docs[0], "name": "x"}))
        .await
        .expect_error(403, "permission_denied");
    // Sign: Administrator and Físico only.
    for token in [&admin, &laudos, &cliente] {
        app.post("/api/document/sign", token, json!({"_id": docs[0]}))
            .await
            .expect_error(403, "permission_denied");
    }
    app.post("/api/document/sign", &app.admin, json!({"_id": docs[0]}))
        .await
        .expect(200);
    app.post("/api/document/sign", &fisico, json!({"_id": docs[1]}))
        .await
        .expect(200);
    // Release: Administrator, Admin, Físico; not Laudos or a client.
    for token in [&laudos, &cliente] {
        app.post("/api/document/liberate", token, json!({"_id": docs[0]}))
            .await
            .expect_error(403, "permission_denied");
    }
    app.post("/api/document/liberate", &admin, json!({"_id": docs[0]}))
        .await
        .expect(200);
    app.post(
        "/api/document/liberate",
        &fisico,
        json!({"_id": docs[1], "extra": 1}),
    )
    .await
    .expect(200);
    // Schedule e-mail: staff; not a client.
    app.post(
        "/api/document/scheduleEmail",
        &cliente,
        json!({"_id": docs[0], "to": ["a@example.com"]}),
    )
    .await
    .expect_error(403, "permission_denied");
    app.post(
        "/api/document/scheduleEmail",
        &laudos,
        json!({"_id": docs[0], "to": ["a@example.com"]}),
    )
    .await
    .expect(202);
    // Delete: staff; not a client.
    app.post("/api/document/exclude", &cliente, json!({"_id": docs[3]}))
        .await
        .expect_error(403, "permission_denied");
    app.post("/api/document/exclude", &laudos, json!({"_id": docs[3]}))
        .await
        .expect(200);
    // Comment: staff on any; read: staff all.
    for token in [&app.admin, &admin, &fisico, &laudos] {
        app.post(
            &format!("/api/document/{}/comment", docs[2]),
            token,
            json!({"text": "ok"}),
        )
        .await
        .expect(201);
        app.get(&format!("/api/document/{}", docs[2]), token)
            .await
            .expect(200);
    }
    // Unauthenticated: 401.
    app.call(reqwest::Method::GET, "/api/documents", None, None)
        .await
        .expect_error(401, "unauthorized");
}

async fn signature_verifies_offline_and_catches_tampering(app: TestApp) {
    let facility = new_facility(&app, "Clínica Assinatura").await;
    let (fisico_id, fisico) = app.user_with(&["Físico"], "Fisica Assina").await;
    let bytes = pdf(10_000, 5);
    let doc = upload(&app, &app.admin, &facility, bytes.clone(), &[])
        .await
        .expect(201);
    let id = id(&doc);
    let signed = app
        .post("/api/document/sign", &fisico, json!({"_id": id}))
        .await
        .expect(200);
    assert_eq!(signed["signedBy"]["_id"], fisico_id.as_str());
    assert_eq!(signed["signedBy"]["name"], "Fisica Assina");
    assert!(signed["signedAt"].is_string());
    let key = app.get("/api/signing-key/", &app.admin).await.expect(200);
    assert_eq!(key["algorithm"], "Ed25519");
    let key = document::public_key_from_base64(key["publicKey"].as_str().unwrap()).unwrap();
    let doc: Document = serde_json::from_value(
        app.get(&format!("/api/document/{id}"), &app.admin)
            .await
            .expect(200),
    )
    .unwrap();
    let (_, _, file) = download(&app, &app.admin, &format!("/api/document/{id}/file")).await;
    assert_eq!(document::verify_document(&file, &doc, &key), Ok(()));
    // A tampered file.
    let mut tampered = file.clone();
    tampered[100] ^= 0xFF;
    assert!(matches!(
        document::verify_document(&tampered, &doc, &key),
        Err(VerifyError::FileMismatch { .. })
    ));
    // Tampered metadata: signer, time, id, code.
    let (other_id, _) = app.user_with(&["Físico"], "Outra Fisica").await;
    let mut forged = doc.clone();
    forged.signed_by.as_mut().unwrap().id = other_id;
    assert_eq!(
        document::verify_document(&file, &forged, &key),
        Err(VerifyError::BadSignature)
    );
    let mut forged = doc.clone();
    forged.signed_at = Some("2026-01-01T00:00:00.000000Z".into());
    assert_eq!(
        document::verify_document(&file, &forged, &key),
        Err(VerifyError::BadSignature)
    );
    let mut forged = doc.clone();
    forged.id = uuid::Uuid::now_v7().to_string();
    assert_eq!(
        document::verify_document(&file, &forged, &key),
        Err(VerifyError::BadSignature)
    );
    // The key is kept private in the data folder and survives a restart.
    let path = app.data_dir.path().join("signing-key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let again = registry_server::secrets::signing_key(&app.state.config).unwrap();
    assert_eq!(again.verifying_key(), key);
    // Audit events of the life so far.
    assert_eq!(
        app.audit_actions("document", &id).await,
        ["uploaded", "signed"]
    );
}

async fn clients_see_only_released_documents_of_their_facilities(app: TestApp) {
    let (cliente_id, cliente) = app.user_with(&["Cliente"], "Cliente Vis").await;
    let mut payload = facility_payload("Clínica do Cliente");
    payload["users"] = json!([{"_id": cliente_id, "responsabilities": ["Titular"]}]);
    let mine = id(&app.create_facility(payload).await);
    let other = new_facility(&app, "Clínica Alheia").await;
    let pending = id(&upload(&app, &app.admin, &mine, pdf(400, 1), &[])
        .await
        .expect(201));
    let released_bytes = pdf(400, 2);
    let released = id(
        &upload(&app, &app.admin, &mine, released_bytes.clone(), &[])
            .await
            .expect(201),
    );
    let foreign = id(&upload(&app, &app.admin, &other, pdf(400, 3), &[])
        .await
        .expect(201));
    for doc in [&released, &foreign] {
        app.post("/api/document/sign", &app.admin, json!({"_id": doc}))
            .await
            .expect(200);
        app.post("/api/document/liberate", &app.admin, json!({"_id": doc}))
            .await
            .expect(200);
    }
    for path in [
        "/api/documents",
        "/api/documents/liberado",
        "/api/documents/Liberado",
    ] {
        let list = app.get(path, &cliente).await.expect(200);
        let ids: Vec<&str> = list["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [released.as_str()], "{path}");
        assert_eq!(list["paging"]["total"], 1);
    }
    let list = app
        .get("/api/documents/falta-assinar", &cliente)
        .await
        .expect(200);
    assert_eq!(list["paging"]["total"], 0);
    app.get(&format!("/api/document/{released}"), &cliente)
        .await
        .expect(200);
    for hidden in [&pending, &foreign] {
        app.get(&format!("/api/document/{hidden}"), &cliente)
            .await
            .expect_error(404, "not_found");
        let (status, _, _) =
            download(&app, &cliente, &format!("/api/document/{hidden}/file")).await;
        assert_eq!(status, 404);
        app.post(
            &format!("/api/document/{hidden}/comment"),
            &cliente,
            json!({"text": "?"}),
        )
        .await
        .expect_error(404, "not_found");
    }
    let (status, _, got) =
        download(&app, &cliente, &format!("/api/document/{released}/file")).await;
    assert_eq!((status, got), (200, released_bytes));
    let doc = app
        .post(
            &format!("/api/document/{released}/comment"),
            &cliente,
            json!({"text": "Recebido, obrigado."}),
        )
        .await
        .expect(201);
    let comment = &doc["comments"][0];
    assert_eq!(comment["author"]["_id"], cliente_id.as_str());
    assert_eq!(comment["text"], "Recebido, obrigado.");
    // Staff see all three.
    assert_eq!(
        app.get("/api/documents", &app.admin).await.expect(200)["paging"]["total"],
        3
    );
}

async fn lists_filter_by_status_facility_dates_and_text(app: TestApp) {
    let a = new_facility(&app, "Clínica A").await;
    let b = new_facility(&app, "Clínica B").await;
    let d1 = id(&upload(
        &app,
        &app.admin,
        &a,
        pdf(100, 1),
        &[("name", "Licença CNEN"), ("date", "2026-01-10")],
    )
    .await
    .expect(201));
    let d2 = id(&upload(
        &app,
        &app.admin,
        &a,
        pdf(100, 2),
        &[
            ("name", "Teste de constância"),
            ("date", "2026-05-10"),
            ("draft", "true"),
        ],
    )
    .await
    .expect(201));
    let d3 = id(&upload(
        &app,
        &app.admin,
        &b,
        pdf(100, 3),
        &[
            ("name", "Levantamento radiométrico"),
            ("date", "2026-09-10"),
        ],
    )
    .await
    .expect(201));
    let ids = |v: Value| -> Vec<String> {
        v["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(app.get("/api/documents", &app.admin).await.expect(200)),
        [d3.as_str(), d2.as_str(), d1.as_str()],
        "newest first"
    );
    assert_eq!(
        ids(app
            .get("/api/documents/falta-assinar", &app.admin)
            .await
            .expect(200)),
        [d3.as_str(), d1.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents/Em%20andamento", &app.admin)
            .await
            .expect(200)),
        [d2.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents?status=em-andamento", &app.admin)
            .await
            .expect(200)),
        [d2.as_str()]
    );
    assert_eq!(
        ids(app
            .get(&format!("/api/documents?facilityId={a}"), &app.admin)
            .await
            .expect(200)),
        [d2.as_str(), d1.as_str()]
    );
    let filters =
        json!({"facilityId": a, "dateGte": "2026-02-01", "pageNum": 1, "pageSize": 10}).to_string();
    let path = format!("/api/documents?filters={}", url_encode(&filters));
    assert_eq!(
        ids(app.get(&path, &app.admin).await.expect(200)),
        [d2.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents?dateLt=2026-05-10", &app.admin)
            .await
            .expect(200)),
        [d1.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents?q=radiometrico", &app.admin)
            .await
            .expect(200)),
        [d3.as_str()]
    );
    let page = app
        .get("/api/documents?pageSize=2&pageNum=2", &app.admin)
        .await
        .expect(200);
    assert_eq!(
        page["paging"],
        json!({"total": 3, "pageNum": 2, "pageSize": 2})
    );
    assert_eq!(ids(page), [d1.as_str()]);
    assert_eq!(
        app.get("/api/documents/assinado", &app.admin)
            .await
            .expect(200)["paging"]["total"],
        0
    );
    app.get("/api/documents/pronto", &app.admin)
        .await
        .expect_error(404, "not_found");
    app.get("/api/documents?status=pronto", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/documents?dateGte=ontem", &app.admin)
        .await
        .expect_error(400, "bad_request");
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn comments_soft_delete_and_audit(app: TestApp) {
    let facility = new_facility(&app, "Clínica Comentários").await;
    let (laudos_id, laudos) = app.user_with(&["Laudos"], "Laudos Comenta").await;
    let doc = id(&upload(&app, &app.admin, &facility, pdf(100, 1), &[])
        .await
        .expect(201));
    let path = format!("/api/document/{doc}/comment");
    app.post(&path, &laudos, json!({"text": "  "}))
        .await
        .expect_error(422, "validation_failed");
    app.post(&path, &laudos, json!({"text": 5}))
        .await
        .expect_error(422, "validation_failed");
    app.post(&path, &laudos, json!({"text": "Falta a assinatura do RT."}))
        .await
        .expect(201);
    let shown = app
        .post(&path, &app.admin, json!({"text": "Corrigido."}))
        .await
        .expect(201);
    let comments = shown["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 2);
    assert_eq!(
        comments[0]["author"],
        json!({"_id": laudos_id, "name": "Laudos Comenta"})
    );
    assert!(comments[0]["createdAt"].is_string() && comments[0]["_id"].is_string());
    app.post(
        "/api/document/missing/comment",
        &app.admin,
        json!({"text": "x"}),
    )
    .await
    .expect_error(404, "not_found");
    // Soft delete: gone from reads and lists, kept in the database.
    app.post("/api/document/exclude", &app.admin, json!({"_id": doc}))
        .await
        .expect(200);
    app.get(&format!("/api/document/{doc}"), &app.admin)
        .await
        .expect_error(404, "not_found");
    assert_eq!(
        app.get("/api/documents", &app.admin).await.expect(200)["paging"]["total"],
        0
    );
    app.post("/api/document/exclude", &app.admin, json!({"_id": doc}))
        .await
        .expect_error(404, "not_found");
    app.post("/api/document/exclude", &app.admin, json!({}))
        .await
        .expect_error(422, "validation_failed");
    let kept: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM documents WHERE id = $1 AND archived_at IS NOT NULL",
    )
    .bind(&doc)
    .fetch_one(&mut app.outside_connection().await)
    .await
    .unwrap();
    assert_eq!(kept, 1);
    assert_eq!(
        app.audit_actions("document", &doc).await,
        ["uploaded", "commented", "commented", "deleted"]
    );
    // The OpenAPI description lists the document endpoints.
    let spec = app
        .call(reqwest::Method::GET, "/api/openapi.json", None, None)
        .await
        .expect(200);
    for p in [
        "/api/document/register",
        "/api/document/sign",
        "/api/documents/{status}",
        "/api/signing-key",
        "/api/document/scheduleEmail",
    ] {
        assert!(
            spec["paths"][p].is_object(),
            "{p} missing from the OpenAPI description"
        );
    }
}
