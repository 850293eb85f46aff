//! The state every handler receives: the database, settings, keys and the shared services.

use crate::config::Config;
use crate::db::Db;
use crate::mail::Mailer;
use crate::secrets::JwtKeys;
use std::sync::Arc;

/// Cloned for every request (axum's `State`): one reference count, not one per service.
#[derive(Clone)]
pub struct AppState(Arc<Services>);

#[derive(Clone)]
pub struct Services {
    pub db: Db,
    pub config: Arc<Config>,
    pub keys: Arc<JwtKeys>,
    pub mailer: Arc<Mailer>,
    pub objects: Arc<crate::objects::Objects>,
    pub signing_key: Arc<ed25519_dalek::SigningKey>,
    pub cache: Arc<crate::cache::ReadCache>,
    pub limiters: Arc<crate::limits::Limiters>,
}

impl AppState {
    pub fn new(services: Services) -> AppState {
        AppState(Arc::new(services))
    }

    /// The same services with another configuration (a second instance on the same database).
    pub fn with_config(&self, config: Config) -> AppState {
        AppState::new(Services {
            config: Arc::new(config),
            ..Services::clone(self)
        })
    }
}

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}
