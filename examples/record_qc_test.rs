//! Records a QC test through the API and lists what is overdue, against a running server.
//!
//! `REGISTRY_URL` (default `http://127.0.0.1:8080`), `REGISTRY_EMAIL` and `REGISTRY_PASSWORD` (a
//! staff user). The test goes on `REGISTRY_EQUIPMENT_ID` when set; otherwise on the first
//! equipment of the first facility, registering a dose calibrator there when it has none. The
//! first test type of the equipment's type is used (a daily constancy test is created if the type
//! has none).
//!
//! `cargo run --example record_qc_test`

use anyhow::{Context, bail};
use serde_json::{Value, json};

struct Api {
    base: String,
    token: String,
    client: reqwest::Client,
}

impl Api {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> anyhow::Result<Value> {
        let mut req = self
            .client
            .request(method, format!("{}/api{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req
            .send()
            .await
            .with_context(|| format!("cannot reach {}", self.base))?;
        let status = res.status();
        let body: Value = res.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            bail!(
                "{path}: {status}: {}",
                body["message"].as_str().unwrap_or("no message")
            );
        }
        Ok(body)
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        self.call(reqwest::Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }
}

fn first_id(list: &Value) -> Option<String> {
    list["list"][0]["_id"].as_str().map(str::to_owned)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base = std::env::var("REGISTRY_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let email = std::env::var("REGISTRY_EMAIL").context("set REGISTRY_EMAIL")?;
    let password = std::env::var("REGISTRY_PASSWORD").context("set REGISTRY_PASSWORD")?;
    let client = reqwest::Client::new();
    let login = client
        .post(format!("{base}/api/login/"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .with_context(|| format!("cannot reach {base}"))?;
    if !login.status().is_success() {
        bail!("login failed: {}", login.status());
    }
    let login: Value = login.json().await?;
    let api = Api {
        base,
        token: login["token"]
            .as_str()
            .context("no token in the login answer")?
            .to_owned(),
        client,
    };

    let equipment = match std::env::var("REGISTRY_EQUIPMENT_ID") {
        Ok(id) => api.get(&format!("/equipment/{id}")).await?,
        Err(_) => {
            let facility = first_id(&api.get("/facilities").await?)
                .context("no facility registered yet: register one first")?;
            match first_id(&api.get(&format!("/facility/{facility}/equipments")).await?) {
                Some(id) => api.get(&format!("/equipment/{id}")).await?,
                None => {
                    api.post(
                        "/equipment/register",
                        json!({"facility": facility, "typeOfEquipment": "00000000-0000-7000-8000-000000000001",
                               "manufacturer": "Capintec", "model": "CRC-55tR", "attributes": {"chamber": "well"}}),
                    )
                    .await?
                }
            }
        }
    };
    let equipment_id = equipment["_id"].as_str().context("equipment without _id")?;
    let equipment_type = equipment["typeOfEquipment"]["_id"]
        .as_str()
        .context("equipment without type")?;
    let test_type = match first_id(&api.get(&format!("/typeOfTest?typeOfEquipment={equipment_type}")).await?) {
        Some(id) => id,
        None => api
            .post(
                "/typeOfTest/register",
                json!({"name": "Constância", "typeOfEquipment": equipment_type, "expirationInDays": 1}),
            )
            .await?["_id"]
            .as_str()
            .context("test type without _id")?
            .to_owned(),
    };
    let today = registry_core::equipment::local_date(chrono::Utc::now()).to_string();
    let recorded = api
        .post(
            "/test/",
            json!({"equipment": equipment_id, "typeOfTest": test_type, "date": today,
                   "conclusion": "Satisfatório", "measurements": {"Cs-137": {"deviation": 0.012}}}),
        )
        .await?;
    println!(
        "Recorded {} on {} ({} {}): {} [{}]",
        recorded["typeOfTest"]["name"].as_str().unwrap_or("?"),
        recorded["date"].as_str().unwrap_or("?"),
        equipment["typeOfEquipment"]["name"].as_str().unwrap_or("?"),
        equipment_id,
        recorded["conclusion"].as_str().unwrap_or("?"),
        recorded["_id"].as_str().unwrap_or("?"),
    );

    let overdue = api.get("/tests/due?state=overdue&pageSize=50").await?;
    println!("\nOverdue QC tests: {}", overdue["paging"]["total"]);
    for item in overdue["list"].as_array().into_iter().flatten() {
        println!(
            "  {:<28} {:<24} {:<22} last {}  due {}",
            item["facility"]["name"].as_str().unwrap_or("?"),
            item["typeOfEquipment"]["name"].as_str().unwrap_or("?"),
            item["typeOfTest"]["name"].as_str().unwrap_or("?"),
            item["lastDate"].as_str().unwrap_or("-"),
            item["nextDue"].as_str().unwrap_or("-"),
        );
    }
    Ok(())
}
