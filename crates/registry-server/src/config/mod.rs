//! Server configuration from `REGISTRY_*` environment variables (product.md §6), optionally from
//! a TOML file named by `REGISTRY_CONFIG` whose keys are the variable names without the prefix, in
//! lower case (`bind = "0.0.0.0:8080"`); the environment wins over the file.

use anyhow::{Context, bail};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Environment {
    Production,
    Staging,
    Development,
}

impl Environment {
    /// The value of `REGISTRY_ENV` that selects it.
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Production => "production",
            Environment::Staging => "staging",
            Environment::Development => "development",
        }
    }
}

/// A secret that never prints.
#[derive(Clone)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    /// `sqlite://…` or `postgres://…`; `None` means a SQLite file in the data folder.
    pub database_url: Option<String>,
    pub bind: String,
    pub data_dir: PathBuf,
    pub jwt_secret: Option<Secret>,
    pub admin_email: Option<String>,
    pub admin_password: Option<Secret>,
    pub smtp_url: Option<Secret>,
    pub mail_from: String,
    pub object_store_url: Option<String>,
    pub environment: Environment,
    pub extra_responsibilities: Vec<String>,
    /// Whether `POST /register/` without a token creates a `Cliente`.
    pub self_registration: bool,
    pub token_ttl: Duration,
    pub limits: Limits,
    /// Public base URL used in e-mails (password recovery links).
    pub public_url: String,
    /// The log filter (`REGISTRY_LOG`, or `log` in the file); `None`: the default.
    pub log: Option<String>,
    pub documents: DocumentSettings,
    /// Memory for the read cache (`crate::cache`), in MiB; 0 turns it off.
    pub read_cache_mib: u64,
    /// Seeds the QC test catalogue (docs/qc.md) once per database at start
    /// (`REGISTRY_QC_CATALOGUE`, default true).
    pub qc_catalogue: bool,
    pub notices: NoticeSettings,
}

/// Waste clearance levels and the daily notice digest (docs/radioactive-material.md).
#[derive(Clone, Debug)]
pub struct NoticeSettings {
    /// Hour of the day in Brasília (0–23) from which the day's digest goes out
    /// (`REGISTRY_DIGEST_HOUR`, default 7; `off` turns the digest off).
    pub digest_hour: Option<u32>,
    /// QC tests due within this many days are listed (`REGISTRY_NOTICE_QC_DAYS`, default 14).
    pub qc_lead_days: u64,
    /// Licences and documents ending within this many days are listed
    /// (`REGISTRY_NOTICE_VALIDITY_DAYS`, default 30).
    pub validity_lead_days: u64,
    /// Per-isotope clearance levels in Bq/g (`REGISTRY_CLEARANCE_LEVELS`, e.g. `I(131)=100`).
    pub clearance: registry_core::waste::ClearanceLevels,
}

impl Default for NoticeSettings {
    fn default() -> Self {
        NoticeSettings {
            digest_hour: Some(7),
            qc_lead_days: 14,
            validity_lead_days: 30,
            clearance: Default::default(),
        }
    }
}

/// The notice and waste settings (`REGISTRY_DIGEST_HOUR`, `REGISTRY_NOTICE_QC_DAYS`,
/// `REGISTRY_NOTICE_VALIDITY_DAYS`, `REGISTRY_CLEARANCE_LEVELS`).
fn read_notices(var: &impl Fn(&str) -> Option<String>) -> anyhow::Result<NoticeSettings> {
    let mut n = NoticeSettings::default();
    if let Some(v) = var("REGISTRY_DIGEST_HOUR") {
        // `0` is midnight, not "off".
        n.digest_hour = match v.to_ascii_lowercase().as_str() {
            "off" | "false" | "no" => None,
            _ => Some(v.parse().ok().filter(|h| *h < 24).context(
                "REGISTRY_DIGEST_HOUR must be an hour from 0 to 23 (Brasília time), or off",
            )?),
        };
    }
    if let Some(v) = var("REGISTRY_NOTICE_QC_DAYS") {
        n.qc_lead_days = v
            .parse()
            .context("REGISTRY_NOTICE_QC_DAYS must be a whole number of days")?;
    }
    if let Some(v) = var("REGISTRY_NOTICE_VALIDITY_DAYS") {
        n.validity_lead_days = v
            .parse()
            .context("REGISTRY_NOTICE_VALIDITY_DAYS must be a whole number of days")?;
    }
    if let Some(v) = var("REGISTRY_CLEARANCE_LEVELS") {
        n.clearance = registry_core::waste::ClearanceLevels::parse(&v)
            .map_err(|e| anyhow::anyhow!("REGISTRY_CLEARANCE_LEVELS: {e}"))?;
    }
    Ok(n)
}

/// Abuse limits and connection timeouts (docs/decisions.md, "Users and authentication").
#[derive(Clone, Debug)]
pub struct Limits {
    /// Failed logins per e-mail address answered at once; after that each attempt waits.
    pub login_free_failures: i64,
    /// The wait after the last free failure, doubled after each further failure
    /// (`REGISTRY_LOGIN_DELAY_SECONDS`, default 30).
    pub login_delay: Duration,
    /// The longest wait (`REGISTRY_LOGIN_MAX_DELAY_SECONDS`, default 900, at most a day).
    pub login_max_delay: Duration,
    /// Failures are forgotten after this long without a counted attempt
    /// (`REGISTRY_LOGIN_FORGET_MINUTES`, default 60).
    pub login_forget_after: Duration,
    /// Failed logins per client address and minute
    /// (`REGISTRY_LOGIN_FAILURES_PER_CLIENT_PER_MINUTE`); successful logins are not limited.
    pub login_failures_per_client_per_minute: u32,
    /// Registrations without a token per client address and hour.
    pub register_per_client_per_hour: u32,
    /// Password recovery requests (both kinds) per client address and hour.
    pub recovery_per_client_per_hour: u32,
    /// Security e-mails (recovery codes, registration attempts) sent to one address per hour;
    /// further requests are answered the same but send none.
    pub mails_per_address_per_hour: u32,
    /// Time a client has to send a request's headers, and the longest idle time of a kept-alive
    /// connection (`REGISTRY_READ_TIMEOUT_SECONDS`, default 30).
    pub read_timeout: Duration,
    /// The longest pause while a request body is being sent (`REGISTRY_BODY_TIMEOUT_SECONDS`, default 60).
    pub body_timeout: Duration,
    /// How long a stop (SIGTERM, Ctrl-C) waits for the requests under way before it closes their
    /// connections (`REGISTRY_SHUTDOWN_GRACE_SECONDS`, default 20, at most an hour): a download
    /// to a client that reads a byte a second would hold a stop, and a deployment, forever.
    pub shutdown_grace: Duration,
    /// Connections one client address may hold open at once
    /// (`REGISTRY_MAX_CONNECTIONS_PER_CLIENT`, default 1000); one more is closed at once. Each
    /// open connection costs memory, and a client holding thousands would starve the others.
    pub max_connections_per_client: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            login_free_failures: 5,
            login_delay: Duration::from_secs(30),
            login_max_delay: Duration::from_secs(15 * 60),
            login_forget_after: Duration::from_secs(60 * 60),
            login_failures_per_client_per_minute: 20,
            register_per_client_per_hour: 60,
            recovery_per_client_per_hour: 30,
            mails_per_address_per_hour: 5,
            read_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(20),
            max_connections_per_client: 1000,
        }
    }
}

/// Uploads, signing and the scheduled e-mail worker (product.md §5).
#[derive(Clone, Debug)]
pub struct DocumentSettings {
    /// Largest accepted document file (`REGISTRY_UPLOAD_LIMIT_MIB`, default 25 MiB).
    pub upload_limit: u64,
    /// Base64 of the 32-byte Ed25519 seed (`REGISTRY_SIGNING_KEY`); `None`: generated once and
    /// kept in the data folder.
    pub signing_key: Option<Secret>,
    /// How often the worker looks for due e-mails (`REGISTRY_EMAIL_POLL_SECONDS`, default 15).
    pub email_poll_interval: Duration,
    /// First retry delay; doubled after each failure, capped at one hour.
    pub email_retry_base: Duration,
    /// Attempts before a schedule is marked `failed`.
    pub email_max_attempts: i64,
    /// How long a claimed schedule belongs to the instance sending it; past that (the instance
    /// died mid-send) another instance may claim it again.
    pub email_claim_lease: Duration,
    /// The longest one message may take to send, its file read included (60 s): a mail server
    /// that stops answering mid-conversation would otherwise hold the worker and the rest of its
    /// batch (lettre's own timeout covers connecting only). Well under the claim lease.
    pub email_send_timeout: Duration,
}

impl Default for DocumentSettings {
    fn default() -> Self {
        DocumentSettings {
            upload_limit: 25 * 1024 * 1024,
            signing_key: None,
            email_poll_interval: Duration::from_secs(15),
            email_retry_base: Duration::from_secs(30),
            email_max_attempts: 8,
            email_claim_lease: Duration::from_secs(600),
            email_send_timeout: Duration::from_secs(60),
        }
    }
}

impl Config {
    /// Defaults for everything, rooted at `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Config {
            database_url: None,
            bind: "127.0.0.1:8080".into(),
            data_dir: data_dir.into(),
            jwt_secret: None,
            admin_email: None,
            admin_password: None,
            smtp_url: None,
            mail_from: "Facility Registry <registry@localhost>".into(),
            object_store_url: None,
            environment: Environment::Development,
            extra_responsibilities: Vec::new(),
            self_registration: true,
            token_ttl: Duration::from_secs(12 * 3600),
            limits: Limits::default(),
            public_url: "http://127.0.0.1:8080".into(),
            log: None,
            documents: DocumentSettings::default(),
            read_cache_mib: 24,
            qc_catalogue: true,
            notices: NoticeSettings::default(),
        }
    }

    pub fn from_env() -> anyhow::Result<Self> {
        let file = match std::env::var("REGISTRY_CONFIG") {
            Ok(path) if !path.trim().is_empty() => read_file(&path)?,
            _ => toml::Table::new(),
        };
        Self::from_sources(|name| std::env::var(name).ok(), &file)
    }

    /// Reads every setting from `env` first, then from the file's key (`REGISTRY_BIND` → `bind`).
    pub fn from_sources(
        env: impl Fn(&str) -> Option<String>,
        file: &toml::Table,
    ) -> anyhow::Result<Self> {
        // The file's keys that a setting reads: any other key is a typo to report.
        let asked = std::cell::RefCell::new(std::collections::HashSet::new());
        let var = |name: &str| {
            let key = name.trim_start_matches("REGISTRY_").to_ascii_lowercase();
            asked.borrow_mut().insert(key);
            env(name)
                .or_else(|| {
                    let key = name.trim_start_matches("REGISTRY_").to_ascii_lowercase();
                    file.get(&key).map(|v| match v {
                        toml::Value::String(s) => s.clone(),
                        toml::Value::Array(items) => items
                            .iter()
                            .map(|i| {
                                i.as_str()
                                    .map(str::to_owned)
                                    .unwrap_or_else(|| i.to_string())
                            })
                            .collect::<Vec<_>>()
                            .join(","),
                        other => other.to_string(),
                    })
                })
                .filter(|v| !v.trim().is_empty())
        };
        let mut c = Config::new(var("REGISTRY_DATA_DIR").unwrap_or_else(|| "data".into()));
        c.database_url = var("REGISTRY_DATABASE_URL");
        if let Some(bind) = var("REGISTRY_BIND") {
            c.bind = bind;
        }
        c.public_url = var("REGISTRY_PUBLIC_URL")
            .map(|url| url.trim().to_owned())
            .unwrap_or_else(|| format!("http://{}", c.bind));
        // Written into the e-mails' links: one that is no web address would break them all.
        if !is_web_address(&c.public_url) {
            bail!(
                "REGISTRY_PUBLIC_URL must be an http:// or https:// address with a host (got {:?})",
                c.public_url
            );
        }
        c.log = var("REGISTRY_LOG");
        c.jwt_secret = var("REGISTRY_JWT_SECRET").map(Secret);
        c.admin_email = var("REGISTRY_ADMIN_EMAIL");
        c.admin_password = var("REGISTRY_ADMIN_PASSWORD").map(Secret);
        c.smtp_url = var("REGISTRY_SMTP_URL").map(Secret);
        c.notices = read_notices(&var)?;
        if let Some(from) = var("REGISTRY_MAIL_FROM") {
            c.mail_from = from;
        }
        c.object_store_url = var("REGISTRY_OBJECT_STORE_URL");
        c.environment = match var("REGISTRY_ENV").as_deref() {
            None | Some("development") => Environment::Development,
            Some("staging") => Environment::Staging,
            Some("production") => Environment::Production,
            Some(other) => {
                bail!("REGISTRY_ENV must be production, staging or development (got {other:?})")
            }
        };
        c.extra_responsibilities = var("REGISTRY_EXTRA_RESPONSIBILITIES")
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(v) = var("REGISTRY_QC_CATALOGUE") {
            c.qc_catalogue =
                parse_bool(&v).context("REGISTRY_QC_CATALOGUE must be true or false")?;
        }
        if let Some(v) = var("REGISTRY_SELF_REGISTRATION") {
            c.self_registration =
                parse_bool(&v).context("REGISTRY_SELF_REGISTRATION must be true or false")?;
        }
        if let Some(minutes) = positive(&var, "REGISTRY_TOKEN_TTL_MINUTES", YEAR_MINUTES)? {
            c.token_ttl = Duration::from_secs(minutes * 60);
        }
        // At most a TiB: every file is streamed, never held.
        if let Some(mib) = positive(&var, "REGISTRY_UPLOAD_LIMIT_MIB", 1024 * 1024)? {
            c.documents.upload_limit = mib * 1024 * 1024;
        }
        c.documents.signing_key = var("REGISTRY_SIGNING_KEY").map(Secret);
        if let Some(v) = var("REGISTRY_EMAIL_POLL_SECONDS") {
            let secs: u64 = v
                .parse()
                .context("REGISTRY_EMAIL_POLL_SECONDS must be a whole number")?;
            c.documents.email_poll_interval = Duration::from_secs(secs.max(1));
        }
        if let Some(v) = var("REGISTRY_READ_CACHE_MIB") {
            c.read_cache_mib = v.parse().context(
                "REGISTRY_READ_CACHE_MIB must be a whole number (0 turns the cache off)",
            )?;
        }
        read_limits(&var, &mut c.limits)?;
        if c.admin_email.is_some() != c.admin_password.is_some() {
            bail!("set both REGISTRY_ADMIN_EMAIL and REGISTRY_ADMIN_PASSWORD, or neither");
        }
        if let Some(main) = c.extra_responsibilities.iter().find(|extra| {
            registry_core::MainRole::ALL
                .iter()
                .any(|m| m.as_str().eq_ignore_ascii_case(extra))
        }) {
            bail!(
                "REGISTRY_EXTRA_RESPONSIBILITIES names {main:?}, one of the four responsibilities \
                 of the spec; list only custom ones"
            );
        }
        let asked = asked.into_inner();
        let mut unknown: Vec<&String> = file.keys().filter(|k| !asked.contains(*k)).collect();
        unknown.sort();
        if !unknown.is_empty() {
            let names: Vec<String> = unknown.iter().map(|k| format!("{k:?}")).collect();
            bail!(
                "the configuration file has unknown settings: {} (each key is a REGISTRY_ \
                 variable without the prefix, in lower case: bind, database_url, data_dir, …)",
                names.join(", ")
            );
        }
        Ok(c)
    }
}

/// The settings of the TOML file at `path`. Its refusal gives the parser's message and the line,
/// not the parser's quote of the line, which could show a secret written there.
fn read_file(path: &str) -> anyhow::Result<toml::Table> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read REGISTRY_CONFIG file {path}"))?;
    text.parse::<toml::Table>().map_err(|e| {
        let line = e.span().map_or(1, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        anyhow::anyhow!(
            "{path} is not valid TOML: {} (line {line})",
            e.message().trim_end()
        )
    })
}

/// An `http://` or `https://` address with a host.
fn is_web_address(text: &str) -> bool {
    text.parse::<axum::http::Uri>().is_ok_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https"))
            && uri.host().is_some_and(|h| !h.is_empty())
    })
}

/// A whole number from `name`, when set.
fn number<T: std::str::FromStr>(
    var: &impl Fn(&str) -> Option<String>,
    name: &str,
) -> anyhow::Result<Option<T>> {
    var(name)
        .map(|v| v.trim().parse::<T>())
        .transpose()
        .map_err(|_| anyhow::anyhow!("{name} must be a whole number"))
}

/// A whole number from 1 to `max` from `name`, when set: the bounds keep what is made of it (a
/// number of seconds or bytes) from overflowing.
fn positive(
    var: &impl Fn(&str) -> Option<String>,
    name: &str,
    max: u64,
) -> anyhow::Result<Option<u64>> {
    match number::<u64>(var, name) {
        Ok(Some(n)) if (1..=max).contains(&n) => Ok(Some(n)),
        Ok(None) => Ok(None),
        _ => bail!("{name} must be a whole number from 1 to {max}"),
    }
}

/// A year of minutes: the longest token lifetime and login memory.
const YEAR_MINUTES: u64 = 366 * 24 * 60;

fn read_limits(var: &impl Fn(&str) -> Option<String>, l: &mut Limits) -> anyhow::Result<()> {
    let secs = |n: u64| Duration::from_secs(n.max(1));
    if let Some(n) = number::<i64>(var, "REGISTRY_LOGIN_FREE_FAILURES")? {
        l.login_free_failures = n.max(1);
    }
    if let Some(n) = number::<u64>(var, "REGISTRY_LOGIN_DELAY_SECONDS")? {
        l.login_delay = secs(n.min(86_400));
    }
    if let Some(n) = number::<u64>(var, "REGISTRY_LOGIN_MAX_DELAY_SECONDS")? {
        l.login_max_delay = secs(n.min(86_400));
    }
    if let Some(n) = number::<u64>(var, "REGISTRY_LOGIN_FORGET_MINUTES")? {
        l.login_forget_after = secs(n.min(YEAR_MINUTES) * 60);
    }
    for (name, slot) in [
        (
            "REGISTRY_LOGIN_FAILURES_PER_CLIENT_PER_MINUTE",
            &mut l.login_failures_per_client_per_minute,
        ),
        (
            "REGISTRY_REGISTER_PER_CLIENT_PER_HOUR",
            &mut l.register_per_client_per_hour,
        ),
        (
            "REGISTRY_RECOVERY_PER_CLIENT_PER_HOUR",
            &mut l.recovery_per_client_per_hour,
        ),
        (
            "REGISTRY_MAILS_PER_ADDRESS_PER_HOUR",
            &mut l.mails_per_address_per_hour,
        ),
        (
            "REGISTRY_MAX_CONNECTIONS_PER_CLIENT",
            &mut l.max_connections_per_client,
        ),
    ] {
        if let Some(n) = number::<u32>(var, name)? {
            *slot = n.max(1);
        }
    }
    if let Some(n) = number(var, "REGISTRY_READ_TIMEOUT_SECONDS")? {
        l.read_timeout = secs(n);
    }
    if let Some(n) = number(var, "REGISTRY_BODY_TIMEOUT_SECONDS")? {
        l.body_timeout = secs(n);
    }
    if let Some(n) = number::<u64>(var, "REGISTRY_SHUTDOWN_GRACE_SECONDS")? {
        l.shutdown_grace = secs(n.min(3600));
    }
    Ok(())
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
