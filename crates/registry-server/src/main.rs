//! `registry-server`: runs the API with configuration from `REGISTRY_*` variables.

use registry_server::{Application, Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("REGISTRY_LOG")
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info")),
        )
        .init();
    let config = Config::from_env()?;
    let app = Application::build(config).await?;
    tracing::info!(address = %app.local_addr(), "listening; API under /api/, docs at /api/docs");
    app.run_until(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
    .await?;
    Ok(())
}
