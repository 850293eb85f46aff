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

/// The shortest JWT secret accepted, whether set or kept in the data folder.
const MIN_JWT_SECRET: usize = 32;

pub fn jwt_secret(config: &Config) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = &config.jwt_secret {
        anyhow::ensure!(
            secret.0.len() >= MIN_JWT_SECRET,
            "REGISTRY_JWT_SECRET must have at least {MIN_JWT_SECRET} characters"
        );
        return Ok(secret.0.as_bytes().to_vec());
    }
    let path = config.data_dir.join(JWT_FILE);
    let secret = kept(&path, "REGISTRY_JWT_SECRET", || {
        let mut raw = [0u8; 48];
        rand::rng().fill_bytes(&mut raw);
        hex::encode(raw)
    })?;
    // An empty or short file (cut short by a crash, or edited) would make tokens forgeable.
    anyhow::ensure!(
        secret.len() >= MIN_JWT_SECRET,
        "{} holds a JWT secret of {} characters; at least {MIN_JWT_SECRET} are needed. Delete the \
         file to have a new one generated (tokens issued before stop working), or set \
         REGISTRY_JWT_SECRET",
        path.display(),
        secret.len()
    );
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

/// The secret stored at `path`, or a new one from `generate`, stored there first. The file
/// appears whole or not at all (written aside, then linked into place), so another instance
/// starting at the same moment reads either nothing or the complete secret; when it created the
/// file first, its secret is used.
fn kept(path: &Path, setting: &str, generate: impl FnOnce() -> String) -> anyhow::Result<String> {
    if let Ok(existing) = std::fs::read_to_string(path) {
        return Ok(existing.trim().to_owned());
    }
    let secret = generate();
    let aside = path.with_extension(format!("new-{}", uuid::Uuid::new_v4().simple()));
    write_private(&aside, secret.as_bytes())?;
    let linked = std::fs::hard_link(&aside, path);
    let _ = std::fs::remove_file(&aside);
    match linked {
        Ok(()) => {
            tracing::warn!(path = %path.display(), "{setting} is not set; generated one and kept it in the data folder");
            Ok(secret)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(std::fs::read_to_string(path)?.trim().to_owned())
        }
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// Writes a new file readable only by its owner, flushed to disk.
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
    file.sync_all()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_jwt_secret_is_generated_once_and_must_be_long_enough() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::new(dir.path());
        let first = jwt_secret(&config).unwrap();
        assert_eq!(first.len(), 96);
        assert_eq!(jwt_secret(&config).unwrap(), first, "kept across starts");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(JWT_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // An empty or short file would make tokens forgeable: the server refuses to start.
        for short in ["", "short", &"x".repeat(31)] {
            std::fs::write(dir.path().join(JWT_FILE), short).unwrap();
            let e = jwt_secret(&config).unwrap_err().to_string();
            assert!(e.contains("at least 32"), "{e}");
        }
        std::fs::write(dir.path().join(JWT_FILE), "y".repeat(32)).unwrap();
        assert_eq!(jwt_secret(&config).unwrap(), b"y".repeat(32));
    }

    #[test]
    fn instances_starting_together_share_one_whole_secret() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::new(dir.path());
        let keys: Vec<Vec<u8>> = std::thread::scope(|s| {
            let started: Vec<_> = (0..8)
                .map(|_| s.spawn(|| (jwt_secret(&config).unwrap(), signing_key(&config).unwrap())))
                .collect();
            started
                .into_iter()
                .map(|h| {
                    let (jwt, signing) = h.join().unwrap();
                    [jwt, signing.to_bytes().to_vec()].concat()
                })
                .collect()
        });
        assert!(
            keys.windows(2).all(|w| w[0] == w[1]),
            "every instance reads the same secrets"
        );
        // No file is left aside.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
