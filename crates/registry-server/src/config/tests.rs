//! Reading the settings: environment over file, checks, defaults.

use super::*;

fn config(env: &[(&str, &str)], file: &str) -> anyhow::Result<Config> {
    let env: std::collections::HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_sources(|k| env.get(k).cloned(), &file.parse().unwrap())
}

#[test]
fn environment_wins_over_the_file() {
    let file = "bind = \"0.0.0.0:9000\"\ndata_dir = \"/srv/registry\"\nextra_responsibilities = [\"Físico Médico\", \"Enfermeiro\"]\ntoken_ttl_minutes = 30\nself_registration = false";
    let c = config(&[("REGISTRY_BIND", "127.0.0.1:7000")], file).unwrap();
    assert_eq!(c.bind, "127.0.0.1:7000");
    assert_eq!(c.data_dir, std::path::PathBuf::from("/srv/registry"));
    assert_eq!(
        c.extra_responsibilities,
        vec!["Físico Médico", "Enfermeiro"]
    );
    assert_eq!(c.token_ttl, Duration::from_secs(1800));
    assert!(!c.self_registration);
}

#[test]
fn limits_are_read_and_checked() {
    let c = config(
        &[
            ("REGISTRY_LOGIN_FAILURES_PER_CLIENT_PER_MINUTE", "7"),
            ("REGISTRY_READ_TIMEOUT_SECONDS", "3"),
        ],
        "login_delay_seconds = 2\nmails_per_address_per_hour = 1",
    )
    .unwrap();
    assert_eq!(c.limits.login_failures_per_client_per_minute, 7);
    assert_eq!(c.limits.read_timeout, Duration::from_secs(3));
    assert_eq!(c.limits.login_delay, Duration::from_secs(2));
    assert_eq!(c.limits.mails_per_address_per_hour, 1);
    assert_eq!(c.limits.login_free_failures, 5);
    let e = config(&[("REGISTRY_BODY_TIMEOUT_SECONDS", "soon")], "").unwrap_err();
    assert!(e.to_string().contains("REGISTRY_BODY_TIMEOUT_SECONDS"));
}

#[test]
fn bad_values_are_refused_with_the_variable_named() {
    let e = config(&[("REGISTRY_ENV", "prod")], "").unwrap_err();
    assert!(e.to_string().contains("REGISTRY_ENV"));
    let e = config(&[("REGISTRY_ADMIN_EMAIL", "a@b.c")], "").unwrap_err();
    assert!(e.to_string().contains("REGISTRY_ADMIN_PASSWORD"));
    let c = config(&[], "").unwrap();
    assert_eq!(c.bind, "127.0.0.1:8080");
    assert!(c.self_registration);
    assert_eq!(c.notices.digest_hour, Some(7));
}

#[test]
fn values_that_would_break_the_service_are_refused() {
    for (bad, named) in [
        (
            ("REGISTRY_TOKEN_TTL_MINUTES", "0"),
            "REGISTRY_TOKEN_TTL_MINUTES",
        ),
        (
            ("REGISTRY_UPLOAD_LIMIT_MIB", "0"),
            "REGISTRY_UPLOAD_LIMIT_MIB",
        ),
        // So large that the seconds or bytes made of them would overflow.
        (
            ("REGISTRY_TOKEN_TTL_MINUTES", "999999999999999999"),
            "REGISTRY_TOKEN_TTL_MINUTES must be a whole number from 1 to 527040",
        ),
        (
            ("REGISTRY_UPLOAD_LIMIT_MIB", "17592186044416"),
            "REGISTRY_UPLOAD_LIMIT_MIB must be a whole number from 1 to 1048576",
        ),
        (
            ("REGISTRY_EXTRA_RESPONSIBILITIES", "Enfermeiro, titular"),
            "REGISTRY_EXTRA_RESPONSIBILITIES",
        ),
    ] {
        let e = config(&[bad], "").unwrap_err();
        assert!(e.to_string().contains(named), "{e}");
    }
    // Capped where they are read: no overflow.
    let c = config(
        &[
            ("REGISTRY_LOGIN_FORGET_MINUTES", "999999999999999999"),
            ("REGISTRY_LOGIN_DELAY_SECONDS", "999999999999999999"),
        ],
        "",
    )
    .unwrap();
    assert_eq!(c.limits.login_delay, Duration::from_secs(86_400));
    assert!(c.limits.login_forget_after <= Duration::from_secs(366 * 24 * 3600));
    // A key of the file that no setting reads is a typo, not a default silently taken.
    let e = config(
        &[],
        "databse_url = \"postgres://x/y\"\nbind = \"0.0.0.0:1\"",
    )
    .unwrap_err();
    assert!(e.to_string().contains("\"databse_url\""), "{e}");
    assert!(!e.to_string().contains("\"bind\""), "{e}");
    assert!(config(&[], "database_url = \"postgres://x/y\"\ndigest_hour = 3").is_ok());
}

#[test]
fn the_file_takes_the_log_filter_and_its_errors_quote_no_line() {
    let c = config(&[], "log = \"debug\"").unwrap();
    assert_eq!(c.log.as_deref(), Some("debug"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.toml");
    std::fs::write(
        &path,
        "bind = \"127.0.0.1:1\"\njwt_secret = \"S3CRET-never-shown-0123456789abcdef\n",
    )
    .unwrap();
    let e = read_file(path.to_str().unwrap()).unwrap_err().to_string();
    assert!(
        e.contains("is not valid TOML") && e.contains("(line 2)"),
        "{e}"
    );
    assert!(!e.contains("S3CRET"), "{e}");
}

#[test]
fn the_public_address_is_a_web_address() {
    for bad in ["not a url", "ftp://x.example", "http://", "example.org"] {
        let e = config(&[("REGISTRY_PUBLIC_URL", bad)], "").unwrap_err();
        assert!(e.to_string().contains("REGISTRY_PUBLIC_URL"), "{bad}: {e}");
    }
    for good in [
        "https://registro.example.org",
        "http://10.0.0.5:8080/registro",
    ] {
        assert_eq!(
            config(&[("REGISTRY_PUBLIC_URL", good)], "")
                .unwrap()
                .public_url,
            good
        );
    }
    let spaced = config(&[("REGISTRY_PUBLIC_URL", " https://r.example ")], "").unwrap();
    assert_eq!(spaced.public_url, "https://r.example");
}

#[test]
fn notice_settings() {
    let c = config(
        &[
            ("REGISTRY_DIGEST_HOUR", "off"),
            ("REGISTRY_CLEARANCE_LEVELS", "I(131)=100"),
        ],
        "notice_qc_days = 7\nnotice_validity_days = 60",
    )
    .unwrap();
    assert_eq!(c.notices.digest_hour, None);
    assert_eq!(
        (c.notices.qc_lead_days, c.notices.validity_lead_days),
        (7, 60)
    );
    assert_eq!(
        c.notices.clearance.level(registry_core::Radioisotope::I131),
        100.0
    );
    assert_eq!(
        config(&[("REGISTRY_DIGEST_HOUR", "0")], "")
            .unwrap()
            .notices
            .digest_hour,
        Some(0)
    );
    for bad in [
        ("REGISTRY_DIGEST_HOUR", "24"),
        ("REGISTRY_CLEARANCE_LEVELS", "I(131)=-1"),
    ] {
        let e = config(&[bad], "").unwrap_err();
        assert!(format!("{e:#}").contains(bad.0), "{e:#}");
    }
}
