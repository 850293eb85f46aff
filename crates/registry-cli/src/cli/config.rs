//! Profiles (server URL and token per name) kept in the user's config folder, mode 0600.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

pub const FILE_NAME: &str = "profiles.json";
/// The profile used when none is named and none was logged into.
pub const DEFAULT_PROFILE: &str = "production";

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Profiles {
    /// The profile of the last `login`, used when no `--profile` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    pub profiles: BTreeMap<String, Profile>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// `REGISTRY_CONFIG_DIR`, else `<config folder>/registry` (`$XDG_CONFIG_HOME` on Linux).
pub fn dir() -> anyhow::Result<PathBuf> {
    if let Some(d) = std::env::var_os("REGISTRY_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    dirs::config_dir()
        .map(|d| d.join("registry"))
        .ok_or_else(|| anyhow::anyhow!("no config folder found; set REGISTRY_CONFIG_DIR"))
}

impl Profiles {
    pub fn load() -> anyhow::Result<Self> {
        let path = dir()?.join(FILE_NAME);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                anyhow::anyhow!("{} is not a valid profiles file: {e}", path.display())
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Profiles::default()),
            Err(e) => Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the file readable by its owner only, since it holds tokens.
    pub fn save(&self) -> anyhow::Result<PathBuf> {
        let dir = dir()?;
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(FILE_NAME);
        let tmp = dir.join(format!("{FILE_NAME}.tmp"));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            options.mode(0o600);
            let _ = std::fs::remove_file(&tmp);
            let mut f = options.open(&tmp)?;
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            f.write_all(&serde_json::to_vec_pretty(self)?)?;
            f.sync_all()?;
        }
        #[cfg(not(unix))]
        {
            let mut f = options.open(&tmp)?;
            f.write_all(&serde_json::to_vec_pretty(self)?)?;
        }
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }

    /// The profile to use: the named one, else the last logged into, else `production`.
    pub fn active_name(&self, named: Option<&str>) -> String {
        named
            .map(str::to_owned)
            .or_else(|| self.current.clone())
            .unwrap_or_else(|| DEFAULT_PROFILE.to_owned())
    }
}
