//! PostgreSQL's change notifications: every instance `LISTEN`s on one channel, on which each
//! commit announces what it changed (`db::Tx`), and drops the cached answers that depend on it
//! (docs/decisions.md, "Read cache").

use crate::changes::{Changed, Generations};
use anyhow::Context;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::Duration;

/// The channel on which every committed write is announced.
pub const CHANNEL: &str = "registry_changes";

/// The listener task of a database handle, stopped when the last handle is dropped.
#[derive(Default)]
pub struct Listener(pub Option<tokio::task::AbortHandle>);

impl Listener {
    pub fn stop(&self) {
        if let Some(task) = &self.0 {
            task.abort();
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Listens on PostgreSQL for the commits of other instances (this one's advanced the generations
/// when they committed). A lost connection is re-established; as notifications may have been
/// missed meanwhile, everything counts as changed then.
pub async fn listen(
    url: &str,
    generations: Arc<Generations>,
    instance: Arc<str>,
) -> anyhow::Result<tokio::task::AbortHandle> {
    let mut listener = connect(url)
        .await
        .context("cannot connect to PostgreSQL to listen for changes")?;
    let url = url.to_owned();
    let task = tokio::spawn(async move {
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) => match n.payload().split_once('\n') {
                    Some((from, _)) if from == &*instance => {}
                    Some((_, changed)) => generations.advance(&Changed::decode(changed)),
                    None => generations.advance(&Changed::Everything),
                },
                // The connection was lost and sqlx listens again already: whatever was
                // notified in between is unknown.
                Ok(None) => generations.advance(&Changed::Everything),
                Err(e) => {
                    tracing::warn!(error = %e, "lost the PostgreSQL change notifications; retrying");
                    listener = listen_again(&url, &generations).await;
                }
            }
        }
    });
    Ok(task.abort_handle())
}

async fn connect(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// A new listener, tried once a second until it listens. Every cached answer is dropped before
/// each try (the answers read meanwhile are held for a second at most) and once more when it
/// listens: a write committed before then was notified to nobody here, and an answer read and
/// kept before it would otherwise be served until the next change of the same record.
async fn listen_again(url: &str, generations: &Generations) -> PgListener {
    loop {
        generations.advance(&Changed::Everything);
        tokio::time::sleep(Duration::from_secs(1)).await;
        match connect(url).await {
            Ok(listener) => {
                generations.advance(&Changed::Everything);
                tracing::info!("listening for PostgreSQL change notifications again");
                return listener;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for PostgreSQL changes yet; retrying")
            }
        }
    }
}
