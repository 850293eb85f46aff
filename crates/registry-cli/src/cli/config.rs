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

/// The config folder, created (with its parents) readable by its owner only when missing.
fn ensure_dir() -> anyhow::Result<PathBuf> {
    let dir = dir()?;
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// An exclusive advisory lock on `profiles.json.lock` beside the profiles file, held until
/// dropped, so that two commands changing profiles at once (logins into `production` and
/// `staging` in parallel) do not overwrite each other's change.
struct FileLock {
    _file: std::fs::File,
}

impl FileLock {
    fn acquire(dir: &std::path::Path) -> anyhow::Result<FileLock> {
        let path = dir.join(format!("{FILE_NAME}.lock"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
        #[cfg(unix)]
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| anyhow::anyhow!("cannot lock {}: {e}", path.display()))?;
        Ok(FileLock { _file: file })
    }
}

impl Profiles {
    pub fn load() -> anyhow::Result<Self> {
        let path = dir()?.join(FILE_NAME);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                // Quoted for a shell, to be pasted as it is.
                let quoted = |p: String| format!("'{}'", p.replace('\'', r"'\''"));
                let (file, broken) = (
                    path.display().to_string(),
                    path.with_extension("json.broken"),
                );
                anyhow::anyhow!(
                    "{file} is not a valid profiles file ({e}): mend it, or move it away \
                     (`mv {} {}`) and log in again",
                    quoted(file.clone()),
                    quoted(broken.display().to_string())
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Profiles::default()),
            Err(e) => Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
        }
    }

    /// Reads the profiles file as it is now, applies `change` and writes the result, all under
    /// an exclusive lock: what another command saved meanwhile is kept. Returns what `change`
    /// returned and the file's path.
    pub fn update<T>(change: impl FnOnce(&mut Profiles) -> T) -> anyhow::Result<(T, PathBuf)> {
        let dir = ensure_dir()?;
        let _lock = FileLock::acquire(&dir)?;
        let mut profiles = Profiles::load()?;
        let answer = change(&mut profiles);
        let path = profiles.write(&dir)?;
        Ok((answer, path))
    }

    /// Writes the file readable by its owner only, since it holds tokens: into a temporary file
    /// of this process's own, renamed into place, so a reader never sees half a file.
    fn write(&self, dir: &std::path::Path) -> anyhow::Result<PathBuf> {
        let path = dir.join(FILE_NAME);
        let tmp = dir.join(format!("{FILE_NAME}.{}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            options.mode(0o600);
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
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
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
