//! The server's Ed25519 document-signing key: from `REGISTRY_SIGNING_KEY`, or generated once and
//! kept in the data folder (mode 0600) so every signature stays verifiable across restarts.

use crate::config::Config;
use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::SigningKey;
use rand::RngCore;

const KEY_FILE: &str = "signing-key";

pub fn load_or_create(config: &Config) -> anyhow::Result<SigningKey> {
    if let Some(secret) = &config.documents.signing_key {
        return parse_seed(&secret.0).context("REGISTRY_SIGNING_KEY");
    }
    let path = config.data_dir.join(KEY_FILE);
    if let Ok(existing) = std::fs::read_to_string(&path) {
        return parse_seed(&existing).with_context(|| format!("{}", path.display()));
    }
    let mut seed = [0u8; 32];
    rand::rng().fill_bytes(&mut seed);
    if let Err(e) = crate::app::write_private(&path, BASE64.encode(seed).as_bytes()) {
        // Another instance sharing the data folder may have created it first.
        return match std::fs::read_to_string(&path) {
            Ok(existing) => parse_seed(&existing).with_context(|| format!("{}", path.display())),
            Err(_) => Err(e),
        };
    }
    tracing::warn!(path = %path.display(), "REGISTRY_SIGNING_KEY is not set; generated a document-signing key and kept it in the data folder");
    Ok(SigningKey::from_bytes(&seed))
}

/// The 32-byte seed, base64.
fn parse_seed(text: &str) -> anyhow::Result<SigningKey> {
    let raw = BASE64
        .decode(text.trim())
        .context("must be the base64 of a 32-byte Ed25519 seed")?;
    let seed: [u8; 32] = raw
        .try_into()
        .map_err(|_| anyhow::anyhow!("must be the base64 of exactly 32 bytes"))?;
    Ok(SigningKey::from_bytes(&seed))
}
