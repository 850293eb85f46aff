//! Secrets kept in the data folder when the deployer does not set them: the JWT secret
//! (`REGISTRY_JWT_SECRET`) and the Ed25519 document-signing key (`REGISTRY_SIGNING_KEY`). Each is
//! generated once and written readable only by its owner (mode 0600), so tokens and signatures
//! stay valid across restarts; instances sharing the data folder share them.

use crate::config::Config;
use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::SigningKey;
use jsonwebtoken::{DecodingKey, EncodingKey};
use rand::RngCore;
use std::path::Path;

/// The keys tokens are signed and checked with (HS256 over the JWT secret).
pub struct JwtKeys {
    pub(crate) encoding: EncodingKey,
    pub(crate) decoding: DecodingKey,
}

impl JwtKeys {
    pub fn new(secret: &[u8]) -> Self {
        JwtKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        }
    }
}

const JWT_FILE: &str = "jwt-secret";
const SIGNING_KEY_FILE: &str = "signing-key";

pub fn jwt_secret(config: &Config) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = &config.jwt_secret {
        anyhow::ensure!(
            secret.0.len() >= 32,
            "REGISTRY_JWT_SECRET must have at least 32 characters"
        );
        return Ok(secret.0.as_bytes().to_vec());
    }
    let secret = kept(
        &config.data_dir.join(JWT_FILE),
        "REGISTRY_JWT_SECRET",
        || {
            let mut raw = [0u8; 48];
            rand::rng().fill_bytes(&mut raw);
            hex::encode(raw)
        },
    )?;
    Ok(secret.into_bytes())
}

pub fn signing_key(config: &Config) -> anyhow::Result<SigningKey> {
    if let Some(secret) = &config.documents.signing_key {
        return parse_seed(&secret.0).context("REGISTRY_SIGNING_KEY");
    }
    let path = config.data_dir.join(SIGNING_KEY_FILE);
    let seed = kept(&path, "REGISTRY_SIGNING_KEY", || {
        let mut seed = [0u8; 32];
        rand::rng().fill_bytes(&mut seed);
        BASE64.encode(seed)
    })?;
    parse_seed(&seed).with_context(|| format!("{}", path.display()))
}

/// The secret stored at `path`, or a new one from `generate`, stored there first. Another
/// instance sharing the data folder may create it at the same moment: then its secret is used.
fn kept(path: &Path, setting: &str, generate: impl FnOnce() -> String) -> anyhow::Result<String> {
    if let Ok(existing) = std::fs::read_to_string(path) {
        return Ok(existing.trim().to_owned());
    }
    let secret = generate();
    if let Err(e) = write_private(path, secret.as_bytes()) {
        return std::fs::read_to_string(path)
            .map(|existing| existing.trim().to_owned())
            .map_err(|_| e);
    }
    tracing::warn!(path = %path.display(), "{setting} is not set; generated one and kept it in the data folder");
    Ok(secret)
}

/// Writes a new file readable only by its owner.
fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)?;
    Ok(())
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
