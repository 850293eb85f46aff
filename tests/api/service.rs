use crate::helpers::TestApp;
use crate::on_both_databases;
use reqwest::Method;

on_both_databases!(health_docs_and_unknown_routes);

async fn health_docs_and_unknown_routes(app: TestApp) {
    for path in ["/healthz", "/readyz"] {
        let res = app.call(Method::GET, path, None, None).await;
        assert_eq!(res.status, 200, "{path}");
    }
    let doc = app
        .call(Method::GET, "/api/openapi.json", None, None)
        .await
        .expect(200);
    let paths = doc["paths"].as_object().unwrap();
    for path in [
        "/api/login",
        "/api/register",
        "/api/edit",
        "/api/exclude",
        "/api/changePassword",
        "/api/password_recover",
        "/api/users",
        "/api/user/{id}",
        "/api/user/{id}/facilities",
        "/api/facilities",
        "/api/nuclearmedicinefacilities",
        "/api/radiodiagnosisfacilities",
        "/api/facility/{id}",
        "/api/facility/register",
        "/api/facility/edit",
        "/api/facility/{id}/edit",
        "/api/facility/users/edit",
        "/api/facility/exclude",
        "/api/facility/{id}/history",
        "/api/facility/{id}/{kind}",
        "/api/facility/removeLogo",
        "/api/facility/removeBackgroundImage",
        "/api/group",
        "/api/group/{id}",
        "/api/group/register",
        "/api/group/edit",
        "/api/group/exclude",
    ] {
        assert!(paths.contains_key(path), "{path} is not documented");
    }
    assert!(doc["components"]["schemas"]["Facility"]["properties"]["CNENregistry"].is_object());
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    let ui = app.client.get(app.url("/api/docs/")).send().await.unwrap();
    assert_eq!(ui.status(), 200);
    assert!(ui.text().await.unwrap().contains("swagger"));
    // Unknown paths and methods answer the error envelope too.
    app.get("/api/nothing-here", &app.admin)
        .await
        .expect_error(404, "not_found");
    let res = app
        .call(Method::DELETE, "/api/facilities", Some(&app.admin), None)
        .await;
    res.expect_error(405, "method_not_allowed");
}
