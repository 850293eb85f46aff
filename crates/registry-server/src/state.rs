//! The state every handler receives: the database, settings, keys and the shared services.

use crate::config::Config;
use crate::db::Db;
use crate::mail::Mailer;
use crate::secrets::JwtKeys;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    pub keys: Arc<JwtKeys>,
    pub mailer: Arc<Mailer>,
    pub objects: Arc<crate::objects::Objects>,
    pub signing_key: Arc<ed25519_dalek::SigningKey>,
    pub cache: Arc<crate::cache::ReadCache>,
    pub limiters: Arc<crate::limits::Limiters>,
}
