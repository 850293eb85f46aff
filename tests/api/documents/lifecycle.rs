//! A document's life: every status move, who may make it, the signature, comments and the soft
//! delete with its audit.

use super::{admin_upload, download, new_facility, pdf, send_form, sha256, upload};
use crate::equipment::id;
use crate::helpers::{Answer, TestApp};
use crate::on_both_databases;
use registry_core::document::{self, Document, VerifyError};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

on_both_databases!(
    every_allowed_and_refused_status_move,
    permissions_by_role,
    signature_verifies_offline_and_catches_tampering,
    comments_soft_delete_and_audit
);

const SIGN: &str = "/api/document/sign/";
const LIBERATE: &str = "/api/document/liberate/";
const EDIT: &str = "/api/document/edit/";

async fn edit(app: &TestApp, token: &str, body: Value) -> Answer {
    app.post(EDIT, token, body).await
}

/// Asserts that each `(path, token, body)` request is refused as an invalid transition.
async fn assert_refused(app: &TestApp, requests: &[(&str, &str, Value)]) {
    for (path, token, body) in requests {
        app.post(path, token, body.clone())
            .await
            .expect_error(409, "invalid_transition");
    }
}

async fn every_allowed_and_refused_status_move(app: TestApp) {
    let facility = new_facility(&app, "Clínica Estados").await;
    let [fisico, laudos] = app
        .role_tokens([("Físico", "Fisica Estados"), ("Laudos", "Laudos Estados")])
        .await;
    let doc = admin_upload(&app, &facility, pdf(2000, 1), &[("draft", "true")]).await;
    let id = id(&doc);
    let by_id = json!({"_id": id});
    let to = |status: &str| json!({"_id": id, "status": status});

    // An edit to the current values writes nothing: no `updatedAt` bump, no audit event.
    for body in [
        by_id.clone(),
        json!({"_id": id, "status": "Em andamento", "name": doc["name"], "date": doc["date"]}),
    ] {
        let same = edit(&app, &app.admin, body).await.expect(200);
        assert_eq!(same["updatedAt"], doc["updatedAt"]);
    }
    assert_eq!(app.audit_actions("document", &id).await, ["create"]);

    // Em andamento: only submitting moves it.
    assert_eq!(doc["status"], "Em andamento");
    assert_refused(
        &app,
        &[
            (SIGN, &fisico, by_id.clone()),
            (LIBERATE, &app.admin, by_id.clone()),
            (EDIT, &app.admin, to("Corrigir")),
            (EDIT, &app.admin, to("Assinado")),
            (EDIT, &app.admin, to("Liberado")),
        ],
    )
    .await;
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
    assert_refused(
        &app,
        &[
            (LIBERATE, &app.admin, by_id.clone()),
            (EDIT, &app.admin, to("Em andamento")),
            (EDIT, &app.admin, to("Assinado")),
        ],
    )
    .await;
    // The refusal of an edit says where the move is made, not a rule it seems to break.
    let refused = edit(&app, &app.admin, to("Assinado"))
        .await
        .expect_error(409, "invalid_transition");
    assert_eq!(
        refused.body["message"],
        "Invalid transition: an edit cannot set the status \"Assinado\": a document is signed \
         with POST /document/sign."
    );
    edit(&app, &laudos, to("Corrigir"))
        .await
        .expect_error(403, "permission_denied");
    // Roles before existence and fields: the same for an id no document has, none, or a field
    // that fails.
    for body in [
        json!({"_id": "01a21d75-0000-7000-8000-000000000000", "status": "Corrigir"}),
        json!({"status": "corrigir"}),
        json!({"_id": "", "status": "Corrigir", "name": ""}),
    ] {
        edit(&app, &laudos, body)
            .await
            .expect_error(403, "permission_denied");
    }
    let doc = edit(&app, &fisico, to("corrigir")).await.expect(200);
    assert_eq!(doc["status"], "Corrigir");

    // Corrigir: not signable; a new file version and the slug hand it in again.
    assert_refused(
        &app,
        &[
            (SIGN, &fisico, by_id.clone()),
            (LIBERATE, &app.admin, by_id.clone()),
        ],
    )
    .await;
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
    // The current file sent again is no new version, and the edit writes nothing.
    let again = Form::new()
        .text("_id", id.clone())
        .part("file", Part::bytes(second.clone()).file_name("v2.pdf"));
    let same = send_form(&app, "/api/document/edit", &laudos, again)
        .await
        .expect(200);
    assert_eq!(same["versions"].as_array().map(Vec::len), Some(2));
    assert_eq!(same["updatedAt"], doc["updatedAt"]);
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
    let doc = app.post_ok(SIGN, &fisico, by_id.clone()).await;
    assert_eq!(doc["status"], "Assinado");
    assert!(
        document::is_authenticity_code(doc["code"].as_str().unwrap()),
        "{}",
        doc["code"]
    );

    // Assinado: frozen; only release moves it.
    assert_refused(&app, &[(SIGN, &app.admin, by_id.clone())]).await;
    let form = Form::new()
        .text("_id", id.clone())
        .part("file", Part::bytes(pdf(100, 3)).file_name("v3.pdf"));
    send_form(&app, "/api/document/edit", &app.admin, form)
        .await
        .expect_error(409, "invalid_transition");
    assert_refused(
        &app,
        &[
            (EDIT, &app.admin, json!({"_id": id, "name": "Renomeado"})),
            (EDIT, &fisico, to("Corrigir")),
        ],
    )
    .await;
    let doc = app.post_ok(LIBERATE, &fisico, by_id.clone()).await;
    assert_eq!(doc["status"], "Liberado");
    assert_eq!(
        doc["file"]["sha256"],
        sha256(&second),
        "the refused file changed nothing"
    );

    // Liberado: final.
    assert_refused(
        &app,
        &[
            (LIBERATE, &app.admin, by_id.clone()),
            (SIGN, &app.admin, by_id.clone()),
            (EDIT, &app.admin, to("Falta assinar")),
        ],
    )
    .await;
    // Unknown status values are field errors; unknown documents 404.
    edit(&app, &app.admin, to("Pronto"))
        .await
        .expect_error(422, "validation_failed");
    app.post_id("/api/document/sign", &app.admin, &"nope")
        .await
        .expect_error(404, "not_found");
}

async fn permissions_by_role(app: TestApp) {
    let facility = new_facility(&app, "Clínica Permissões").await;
    let [admin, fisico, laudos, cliente] = app
        .role_tokens([
            ("Admin", "Admin Perm"),
            ("Físico", "Fisico Perm"),
            ("Laudos", "Laudos Perm"),
            ("Cliente", "Cliente Perm"),
        ])
        .await;
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
        app.post_id("/api/document/sign", token, &docs[0])
            .await
            .expect_error(403, "permission_denied");
    }
    // Permission comes before the body: a body over the limit is 403 too for whoever may not
    // sign (on its own connection: the server closes one whose body it did not read).
    let huge = json!({"_id": docs[0], "pad": "x".repeat(1_200_000)});
    let res = reqwest::Client::new()
        .post(app.url("/api/document/sign/"))
        .bearer_auth(&laudos)
        .json(&huge)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    app.admin_post_id("/api/document/sign", &docs[0]).await;
    app.post_id("/api/document/sign", &fisico, &docs[1])
        .await
        .expect(200);
    // Release: Administrator, Admin, Físico; not Laudos or a client.
    for token in [&laudos, &cliente] {
        app.post_id("/api/document/liberate", token, &docs[0])
            .await
            .expect_error(403, "permission_denied");
    }
    app.post_id("/api/document/liberate", &admin, &docs[0])
        .await
        .expect(200);
    app.post_ok(
        "/api/document/liberate",
        &fisico,
        json!({"_id": docs[1], "extra": 1}),
    )
    .await;
    // Schedule e-mail: staff; not a client.
    app.assert_post_denied(
        "/api/document/scheduleEmail",
        &cliente,
        json!({"_id": docs[0], "to": ["a@example.com"]}),
    )
    .await;
    app.post(
        "/api/document/scheduleEmail",
        &laudos,
        json!({"_id": docs[0], "to": ["a@example.com"]}),
    )
    .await
    .expect(202);
    // Delete: staff; not a client.
    app.post_id("/api/document/exclude", &cliente, &docs[3])
        .await
        .expect_error(403, "permission_denied");
    app.post_id("/api/document/exclude", &laudos, &docs[3])
        .await
        .expect(200);
    // Comment: staff on any; read: staff all.
    for token in [&app.admin, &admin, &fisico, &laudos] {
        app.post_created(
            &format!("/api/document/{}/comment", docs[2]),
            token,
            json!({"text": "ok"}),
        )
        .await;
        app.get_ok(&format!("/api/document/{}", docs[2]), token)
            .await;
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
    let doc = admin_upload(&app, &facility, bytes.clone(), &[]).await;
    let id = id(&doc);
    let signed = app
        .post_id("/api/document/sign", &fisico, &id)
        .await
        .expect(200);
    assert_eq!(signed["signedBy"]["_id"], fisico_id.as_str());
    assert_eq!(signed["signedBy"]["name"], "Fisica Assina");
    assert!(signed["signedAt"].is_string());
    let key = app.admin_get("/api/signing-key/").await;
    assert_eq!(key["algorithm"], "Ed25519");
    let template = key["payload"].as_str().unwrap().to_owned();
    let key = document::public_key_from_base64(key["publicKey"].as_str().unwrap()).unwrap();
    let doc: Document =
        serde_json::from_value(app.admin_get(&format!("/api/document/{id}")).await).unwrap();
    // The advertised payload, filled in from the document's JSON, is the signed bytes.
    let (signer, signed_at, code) = (
        doc.signed_by.as_ref().unwrap().id.as_str(),
        doc.signed_at.as_deref().unwrap(),
        doc.code.as_deref().unwrap(),
    );
    let filled = template
        .replace("<file.sha256>", &doc.file.sha256)
        .replace("<_id>", &doc.id)
        .replace("<signedBy._id>", signer)
        .replace("<signedAt>", signed_at)
        .replace("<code>", code);
    let claim = document::SignedClaim {
        file_sha256: &doc.file.sha256,
        document_id: &doc.id,
        signer,
        signed_at,
        code,
    };
    assert_eq!(filled.into_bytes(), claim.payload());
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
    assert_eq!(app.audit_actions("document", &id).await, ["create", "sign"]);
}

async fn comments_soft_delete_and_audit(app: TestApp) {
    let facility = new_facility(&app, "Clínica Comentários").await;
    let (laudos_id, laudos) = app.user_with(&["Laudos"], "Laudos Comenta").await;
    let doc = id(&admin_upload(&app, &facility, pdf(100, 1), &[]).await);
    let path = format!("/api/document/{doc}/comment");
    app.post(&path, &laudos, json!({"text": "  "}))
        .await
        .expect_error(422, "validation_failed");
    app.post(&path, &laudos, json!({"text": 5}))
        .await
        .expect_error(422, "validation_failed");
    app.post_created(&path, &laudos, json!({"text": "Falta a assinatura do RT."}))
        .await;
    let shown = app
        .post_created(&path, &app.admin, json!({"text": "Corrigido."}))
        .await;
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
    app.admin_post_id("/api/document/exclude", &doc).await;
    app.assert_not_found(&format!("/api/document/{doc}"), &app.admin)
        .await;
    assert_eq!(app.admin_get("/api/documents").await["paging"]["total"], 0);
    app.post_id("/api/document/exclude", &app.admin, &doc)
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
        ["create", "comment", "comment", "archive"]
    );
    // The OpenAPI description lists the document endpoints.
    let spec = app.openapi().await;
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
