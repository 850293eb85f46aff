//! Documents: files and their storage (in `files`), status moves, permissions, signatures and
//! comments (in `lifecycle`), what each caller sees and the list filters (in `reading`); the
//! helpers they and other test modules share.

mod files;
mod lifecycle;
mod reading;

use crate::helpers::{Answer, TestApp, facility_payload};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A PDF-looking file of `n` bytes with varying content.
pub fn pdf(n: usize, seed: u8) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..n.saturating_sub(9)).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)));
    bytes
}

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

pub(crate) fn form(fields: &[(&str, &str)], file: Option<(Vec<u8>, &str)>) -> Form {
    let mut form = Form::new();
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    if let Some((bytes, name)) = file {
        form = form.part("file", Part::bytes(bytes).file_name(name.to_owned()));
    }
    form
}

/// Uploads a PDF to the facility with valid fields (`extra` added or in their place).
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
    // Each field once (the server refuses one sent twice): `extra` replaces a default.
    for (key, value) in extra {
        match fields.iter_mut().find(|(k, _)| k == key) {
            Some(field) => field.1 = value,
            None => fields.push((key, value)),
        }
    }
    send_form(
        app,
        "/api/document/register/",
        token,
        form(&fields, Some((bytes, "relatorio.pdf"))),
    )
    .await
}

/// Uploads a PDF to the facility as the Administrator (`upload`), which must succeed (201): the
/// document.
pub async fn admin_upload(
    app: &TestApp,
    facility: &str,
    bytes: Vec<u8>,
    extra: &[(&str, &str)],
) -> Value {
    upload(app, &app.admin, facility, bytes, extra)
        .await
        .expect(201)
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
