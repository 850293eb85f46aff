//! Registers a facility through the API, then reads it back from the facility list.
//!
//! Start a server first (see the README), then:
//! `REGISTRY_EMAIL=admin@example.com REGISTRY_PASSWORD=change-me-now cargo run --example register_facility`
//! Running it twice shows idempotent registration: the second run reports the existing `_id` (409).

use serde_json::{Value, json};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base = std::env::var("REGISTRY_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let email = std::env::var("REGISTRY_EMAIL").unwrap_or_else(|_| "admin@example.com".into());
    let password = std::env::var("REGISTRY_PASSWORD").unwrap_or_else(|_| "change-me-now".into());
    let http = reqwest::Client::new();

    let login: Value = http
        .post(format!("{base}/api/login/"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let token = login["token"].as_str().unwrap_or_default().to_owned();

    let facility = json!({
        "name": "Clínica Nuclear Paulista",
        "companyName": "CNP Serviços Médicos Ltda",
        "cnpj": "11222333000181",
        "telephone": "(11) 3456-7890",
        "department": "Medicina Nuclear",
        "address": [{"street": "Av. Paulista, 1000", "city": "São Paulo", "state": "SP"}],
        "CNENregistry": "CNEN-1234",
        "practices": ["Diagnóstico", "Terapia Ambulatorial"],
        "radioisotopes": [{"name": "Tc(99m)", "quantity": 1500}, {"name": "I(131)", "quantity": 200.5}]
    });
    let res = http
        .post(format!("{base}/api/facility/register/"))
        .bearer_auth(&token)
        .json(&facility)
        .send()
        .await?;
    let status = res.status();
    let body: Value = res.json().await?;
    match status.as_u16() {
        201 => println!("registered {} ({})", body["name"], body["_id"]),
        409 => println!("already registered: {} ({})", body["message"], body["_id"]),
        _ => anyhow::bail!("registration failed with {status}: {body}"),
    }

    let list: Value = http
        .get(format!("{base}/api/nuclearmedicinefacilities"))
        .query(&[("q", "paulista")])
        .bearer_auth(&token)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    println!(
        "{} matching nuclear-medicine facilities:",
        list["paging"]["total"]
    );
    for f in list["list"].as_array().into_iter().flatten() {
        println!(
            "  {}  {}  {}",
            f["cnpj"].as_str().unwrap_or(""),
            f["name"].as_str().unwrap_or(""),
            f["address"][0]["city"].as_str().unwrap_or("")
        );
    }
    Ok(())
}
