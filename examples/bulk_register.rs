//! Scripted bulk registration with the `registry_client` library: registers facilities from a
//! JSON file (an array of facility payloads), a few at a time, and re-runs safely — a facility
//! already registered answers 409 `duplicate_facility` with its `_id`, which counts as done.
//!
//! ```text
//! REGISTRY_URL=http://127.0.0.1:8080 REGISTRY_EMAIL=admin@example.com REGISTRY_PASSWORD=... \
//!     cargo run --example bulk_register -- facilities.json
//! ```

use futures::StreamExt;
use registry_client::{Client, ClientError};
use serde_json::Value;

const IN_FLIGHT: usize = 8;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: bulk_register FACILITIES.json"))?;
    let server = std::env::var("REGISTRY_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let email = std::env::var("REGISTRY_EMAIL")?;
    let password = std::env::var("REGISTRY_PASSWORD")?;

    let payloads: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let anonymous = Client::new(&server)?;
    let token = anonymous.login(&email, &password).await?.token;
    let client = anonymous.with_token(token);

    let mut results = futures::stream::iter(payloads.iter().enumerate().map(|(i, payload)| {
        let client = &client;
        async move { (i, client.register_facility(payload).await) }
    }))
    .buffer_unordered(IN_FLIGHT);

    let (mut created, mut existing, mut failed) = (0, 0, 0);
    while let Some((i, result)) = results.next().await {
        match result {
            Ok(f) => {
                created += 1;
                println!("#{i}: registered {} as {}", f.name, f.id);
            }
            Err(e) if e.existing_id().is_some() => {
                existing += 1;
                println!(
                    "#{i}: already registered as {}",
                    e.existing_id().unwrap_or_default()
                );
            }
            Err(e @ ClientError::Validation(_)) => {
                failed += 1;
                println!("#{i}: refused: {e}");
                for f in e.field_errors() {
                    println!("      {}: {}", f.field, f.message);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    println!("{created} registered, {existing} already registered, {failed} refused");
    Ok(())
}
