//! Starting: several instances started at the same moment on one empty PostgreSQL database
//! (a scaled-out deploy's first start) all come up, with one first Administrator and one set of
//! kept secrets.

use crate::common::{ADMIN_EMAIL, ADMIN_PASSWORD, fresh_postgres_database};
use registry_server::{Application, Config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_started_together_on_one_empty_database_all_come_up() {
    let Some(url) = fresh_postgres_database().await else {
        return;
    };
    // One shared data folder: the secrets generated there are shared too.
    let data_dir = tempfile::tempdir().unwrap();
    let starts = (0..4).map(|_| {
        let mut config = Config::new(data_dir.path());
        config.bind = "127.0.0.1:0".into();
        config.database_url = Some(url.clone());
        config.admin_email = Some(ADMIN_EMAIL.into());
        config.admin_password = Some(registry_server::config::Secret(ADMIN_PASSWORD.into()));
        tokio::spawn(Application::build(config))
    });
    let mut apps = Vec::new();
    for started in futures::future::join_all(starts).await {
        apps.push(started.unwrap().expect("every instance starts"));
    }
    // One Administrator, whose login works on every instance (same kept JWT secret).
    let client = reqwest::Client::new();
    let mut tokens = Vec::new();
    for app in apps {
        let base = format!("http://{}", app.local_addr());
        tokio::spawn(app.run_until(std::future::pending()));
        let login = answer(
            client
                .post(format!("{base}/api/login/"))
                .json(&serde_json::json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})),
        )
        .await;
        tokens.push((base, login["token"].as_str().unwrap().to_owned()));
    }
    let (_, first_token) = &tokens[0];
    for (base, _) in &tokens {
        let users = answer(
            client
                .get(format!("{base}/api/users"))
                .bearer_auth(first_token),
        )
        .await;
        assert_eq!(users["paging"]["total"], 1, "{users}");
    }
}

/// The JSON body of the answer to `request`.
async fn answer(request: reqwest::RequestBuilder) -> serde_json::Value {
    request.send().await.unwrap().json().await.unwrap()
}
