use crate::helpers::{TestApp, facility_payload};
use crate::on_both_databases;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::json;

on_both_databases!(
    logo_and_background_upload_read_remove,
    a_stale_if_match_refuses_image_changes
);

pub(crate) const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
];

pub(crate) async fn upload(
    app: &TestApp,
    token: &str,
    path: &str,
    bytes: Vec<u8>,
) -> (u16, serde_json::Value) {
    let form = Form::new().part("file", Part::bytes(bytes).file_name("logo.png"));
    // A fresh connection each time: the server closes one whose body it refused (413).
    let res = reqwest::Client::new()
        .post(app.url(path))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or_default())
}

/// `upload` of `bytes` as facility `id`'s `image` (`logo` or `background`).
async fn set_image(
    app: &TestApp,
    token: &str,
    id: &str,
    image: &str,
    bytes: Vec<u8>,
) -> (u16, serde_json::Value) {
    upload(app, token, &format!("/api/facility/{id}/{image}"), bytes).await
}

/// The Administrator's `method` request on `path`, the answer unread (an image is not JSON).
async fn raw(app: &TestApp, method: Method, path: &str) -> reqwest::Response {
    app.client
        .request(method, app.url(path))
        .bearer_auth(&app.admin)
        .send()
        .await
        .unwrap()
}

async fn logo_and_background_upload_read_remove(app: TestApp) {
    let f = app.create_facility(facility_payload("Com Logo")).await;
    let id = f["_id"].as_str().unwrap();
    let (status, body) = set_image(&app, &app.admin, id, "logo", PNG.to_vec()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["logo"], format!("/api/facility/{id}/logo"));
    assert_eq!(body["version"], 2);
    let res = raw(&app, Method::GET, &format!("/api/facility/{id}/logo")).await;
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.bytes().await.unwrap().as_ref(), PNG);
    let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3].to_vec();
    let (status, body) = set_image(&app, &app.admin, id, "background", jpeg).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["backgroundImage"],
        format!("/api/facility/{id}/background")
    );
    // A replaced image is the history event's `before`.
    let mut bigger = PNG.to_vec();
    bigger.extend([0; 10]);
    let (status, _) = set_image(&app, &app.admin, id, "logo", bigger).await;
    assert_eq!(status, 200);
    let history = app.history("facility", id).await;
    let replaced = &history["list"][0];
    assert_eq!(replaced["action"], "image_set");
    assert_eq!(
        (&replaced["before"], &replaced["after"]["size"]),
        (
            &json!({"kind": "logo", "contentType": "image/png", "size": PNG.len()}),
            &json!(PNG.len() + 10)
        )
    );
    // Wrong type, too large, no permission.
    let (status, body) = set_image(&app, &app.admin, id, "logo", b"%PDF-1.7".to_vec()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("validation_failed"))
    );
    // A few bytes that declare 100,000 × 100,000 pixels: a decompression bomb for every browser
    // showing the facility. A photo's size is taken.
    let png = |width: u32, height: u32| {
        let mut png = PNG.to_vec();
        png.extend(width.to_be_bytes());
        png.extend(height.to_be_bytes());
        png.extend([8, 6, 0, 0, 0]);
        png
    };
    let (status, body) = set_image(&app, &app.admin, id, "logo", png(100_000, 100_000)).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["field"], "file", "{body}");
    assert!(
        body.to_string().contains("declares 100000 × 100000 pixels"),
        "{body}"
    );
    let (status, body) = set_image(&app, &app.admin, id, "logo", png(4032, 3024)).await;
    assert_eq!(status, 200, "{body}");
    let mut big = PNG.to_vec();
    big.resize(2 * 1024 * 1024 + 1, 0);
    let (status, body) = set_image(&app, &app.admin, id, "logo", big).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (413, Some("payload_too_large"))
    );
    let (_, client) = app.user_with(&["Cliente"], "Cli").await;
    let (status, _) = set_image(&app, &client, id, "logo", PNG.to_vec()).await;
    assert_eq!(status, 403);
    // Two `file` parts: which one was meant is not for the server to guess.
    let two = Form::new()
        .part("file", Part::bytes(PNG.to_vec()).file_name("a.png"))
        .part("file", Part::bytes(PNG.to_vec()).file_name("b.png"));
    let res = app
        .client
        .post(app.url(&format!("/api/facility/{id}/logo")))
        .bearer_auth(&app.admin)
        .multipart(two)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["errors"][0]["field"], "file", "{body}");
    // Removal by the client layer's paths and by DELETE.
    let removed = app.admin_post_id("/api/facility/removeLogo", &id).await;
    assert_eq!(removed["logo"], json!(null));
    app.assert_not_found(&format!("/api/facility/{id}/logo"), &app.admin)
        .await;
    let res = raw(
        &app,
        Method::DELETE,
        &format!("/api/facility/{id}/background"),
    )
    .await;
    assert_eq!(res.status(), 200);
    let shown = app.admin_get(&format!("/api/facility/{id}")).await;
    assert_eq!(shown["backgroundImage"], json!(null));
    app.admin_post_id("/api/facility/removeBackgroundImage/", &id)
        .await;
}

/// An image change makes a new version of the facility: like an edit, it is refused (412) when
/// its `If-Match` names an older one, and nothing changes.
async fn a_stale_if_match_refuses_image_changes(app: TestApp) {
    let f = app
        .create_facility(facility_payload("Logo Concorrido"))
        .await;
    let id = f["_id"].as_str().unwrap();
    let logo = format!("/api/facility/{id}/logo");
    let send_logo = |tag: &'static str| {
        let form = Form::new().part("file", Part::bytes(PNG.to_vec()).file_name("logo.png"));
        reqwest::Client::new()
            .post(app.url(&logo))
            .bearer_auth(&app.admin)
            .header("If-Match", tag)
            .multipart(form)
            .send()
    };
    let res = send_logo("W/\"1\"").await.unwrap();
    assert_eq!(res.status(), 200);
    let res = send_logo("W/\"1\"").await.unwrap();
    assert_eq!(res.status(), 412);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "version_mismatch");
    let remove_logo = |tag: &'static str| {
        app.client
            .request(Method::POST, app.url("/api/facility/removeLogo"))
            .bearer_auth(&app.admin)
            .header("If-Match", tag)
            .json(&json!({"_id": id}))
            .send()
    };
    assert_eq!(remove_logo("W/\"1\"").await.unwrap().status(), 412);
    let res = app
        .client
        .delete(app.url(&logo))
        .bearer_auth(&app.admin)
        .header("If-Match", "\"1\"")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 412);
    let version_and_logo = || async {
        let shown = app.admin_get(&format!("/api/facility/{id}")).await;
        (
            shown["version"].as_i64(),
            shown["logo"].as_str().map(str::to_owned),
        )
    };
    assert_eq!(version_and_logo().await, (Some(2), Some(logo.clone())));
    assert_eq!(remove_logo("W/\"2\"").await.unwrap().status(), 200);
    assert_eq!(version_and_logo().await, (Some(3), None));
}
