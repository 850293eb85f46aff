//! Login, profiles, whoami, logout; the exit codes of product.md §7 (and the failures behind them)
//! are in `exit_codes`.

use crate::common::ADMIN_PASSWORD;
use crate::harness::{ADMIN_EMAIL, Env, PASSWORD, dialogue, login_args, spawn};
use serde_json::Value;

/// `registry whoami -o json` with `envs` set, which must succeed: the user it names.
async fn whoami_with(env: &Env, envs: &[(&str, &str)]) -> Value {
    env.run_with(&["whoami", "-o", "json"], "", envs)
        .await
        .expect(0)
        .json()
}

/// Without a session, `user create` registers the person at the terminal (a `Cliente`): the
/// server's answer is the same whether the e-mail was new or taken, and the account then logs in.
#[tokio::test(flavor = "multi_thread")]
async fn a_person_without_a_session_registers_themself() {
    let env = Env::start().await;
    let email = "self.registered@example.com";
    let args = [
        "--server",
        &env.server,
        "-o",
        "json",
        "--no-input",
        "user",
        "create",
        "--name",
        "Self Registered",
        "--email",
        email,
        "--password-stdin",
    ];
    let out = env.run_with(&args, &format!("{PASSWORD}\n"), &[]).await;
    assert!(out.expect(0).json()["message"].is_string());
    env.login_as("self", email).await;
    let me = whoami_with(&env, &[]).await;
    assert_eq!(me["roles"], serde_json::json!(["Cliente"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn login_keeps_the_token_in_a_private_profile_and_logout_forgets_it() {
    let env = Env::logged_in().await;
    let file = env.config.path().join("profiles.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the profiles file holds tokens");
    }
    let who = env
        .run(&["whoami", "--output", "json"])
        .await
        .expect(0)
        .json();
    assert_eq!(who["email"], ADMIN_EMAIL);
    assert_eq!(who["roles"][0], "Administrator");

    env.run(&["logout"]).await.expect(0);
    env.run(&["whoami"]).await.expect(3).says("no token");
}

#[tokio::test(flavor = "multi_thread")]
async fn profiles_are_separate_and_env_vars_override_them() {
    let env = Env::logged_in().await;
    let (_, email) = env.user("Staging Person", &["Físico"]).await;
    env.run_with(
        &[
            "login",
            "--profile",
            "staging",
            "--server",
            &env.server,
            "--email",
            &email,
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n"),
        &[],
    )
    .await
    .expect(0);
    // The last login is the active profile; --profile picks another.
    let staging = env.json(&["whoami"]).await;
    assert_eq!(staging["email"], email);
    let production = env.json(&["--profile", "production", "whoami"]).await;
    assert_eq!(production["email"], ADMIN_EMAIL);
    let listed = env.json(&["profiles"]).await;
    assert_eq!(listed.as_array().unwrap().len(), 2);

    // REGISTRY_TOKEN and REGISTRY_URL win over the stored profile.
    let admin_token = env.admin.token().unwrap().to_owned();
    let via_env = whoami_with(
        &env,
        &[
            ("REGISTRY_TOKEN", &admin_token),
            ("REGISTRY_URL", &env.server),
        ],
    )
    .await;
    assert_eq!(via_env["email"], ADMIN_EMAIL);
}

#[tokio::test(flavor = "multi_thread")]
async fn completions_are_printed_for_each_shell() {
    let env = Env::start().await;
    for shell in ["bash", "zsh", "fish"] {
        let out = env.run(&["completions", shell]).await.expect(0);
        assert!(out.stdout.contains("facility"), "{shell}");
    }
    // Flags with a fixed set of values offer it (docs/cli.md); zsh takes multi-word ones whole.
    let zsh = env.run(&["completions", "zsh"]).await.expect(0).stdout;
    for offered in [
        r"Terapia\ com\ Internação",
        r"Responsável\ Técnico",
        r"Falta\ assinar",
        "Tc(99m)",
        "overdue",
        "Laudos",
        " PE ",
    ] {
        assert!(zsh.contains(offered), "{offered} not offered");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_profiles_token_goes_only_to_the_profiles_server() {
    let env = Env::logged_in().await;
    // The same server spelled with `/api/`: the profile's token is sent.
    let with_api = format!("{}/api/", env.server);
    let same = env
        .run(&["--server", &with_api, "facility", "list"])
        .await
        .expect(0);
    assert!(!same.stderr.contains("not sent"), "{}", same.stderr);

    // Another server (here the same port under another host name): no token, and a note.
    let other = env.server.replace("127.0.0.1", "localhost");
    let out = env
        .run(&["--server", &other, "facility", "list"])
        .await
        .expect(3)
        .says("token of profile `production`")
        .says("is not sent to");
    assert_eq!(
        out.stderr.matches("is not sent to").count(),
        1,
        "{}",
        out.stderr
    );
    env.run_with(&["facility", "list"], "", &[("REGISTRY_URL", &other)])
        .await
        .expect(3)
        .says("(from REGISTRY_URL)");
    // An explicit token goes wherever it is told.
    let token = env.admin.token().unwrap().to_owned();
    env.run(&["--server", &other, "--token", &token, "facility", "list"])
        .await
        .expect(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn empty_environment_variables_count_as_unset() {
    let env = Env::logged_in().await;
    let who = whoami_with(
        &env,
        &[
            ("REGISTRY_TOKEN", ""),
            ("REGISTRY_URL", ""),
            ("REGISTRY_PROFILE", ""),
        ],
    )
    .await;
    assert_eq!(who["email"], ADMIN_EMAIL);
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_logins_into_different_profiles_keep_each_other() {
    let env = Env::start().await;
    let logins = (1..=6).map(|i| {
        let env = &env;
        async move {
            let profile = format!("p{i}");
            env.admin_login(Some(&profile), &[]).await.expect(0);
        }
    });
    futures::future::join_all(logins).await;
    let listed = env.json(&["profiles"]).await;
    let mut names = crate::harness::each(&listed, "name");
    names.sort();
    assert_eq!(names, ["p1", "p2", "p3", "p4", "p5", "p6"]);
    let leftovers: Vec<_> = std::fs::read_dir(env.config.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn profiles_use_switches_the_active_profile() {
    let env = Env::logged_in().await;
    env.admin_login(Some("staging"), &[]).await.expect(0);
    let active = |listed: serde_json::Value| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["active"] == true)
            .map(|p| p["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(active(env.json(&["profiles"]).await), ["staging"]);
    env.run(&["profiles", "use", "production"])
        .await
        .expect(0)
        .says("`production` is now the active one");
    assert_eq!(active(env.json(&["profiles"]).await), ["production"]);
    env.run(&["profiles", "use", "nowhere"])
        .await
        .expect(5)
        .says("production, staging");

    // CSV: the active marker in its own column, the name alone.
    let csv = env.run(&["profiles", "-o", "csv"]).await.expect(0).stdout;
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "active,profile,server,email,loggedIn"
    );
    assert!(
        lines.any(|l| l.starts_with(&format!("*,production,{}", env.server))),
        "{csv}"
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn the_config_folder_is_created_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::start().await;
    let folder = env.config.path().join("new").join("registry");
    let folder_text = folder.to_str().unwrap().to_owned();
    env.admin_login(None, &[("REGISTRY_CONFIG_DIR", &folder_text)])
        .await
        .expect(0);
    let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
}

/// `--profile ""` names no profile: a usage error naming the flag (exit 2), and nothing saved
/// under an empty name; `REGISTRY_PROFILE=` still counts as unset.
#[tokio::test(flavor = "multi_thread")]
async fn an_empty_profile_flag_is_a_usage_error() {
    let env = Env::logged_in().await;
    let before = std::fs::read_to_string(env.config.path().join("profiles.json")).unwrap();
    for blank in ["", "  "] {
        // Refused before the password is read: stdin stays empty.
        let login = login_args(&env.server, Some(blank), ADMIN_EMAIL);
        env.run(&login).await.expect(2).says("--profile");
        let out = env
            .run(&["--profile", blank, "whoami", "-o", "json"])
            .await
            .expect(2)
            .says("--profile");
        assert_eq!(out.json()["code"], "usage");
    }
    let after = std::fs::read_to_string(env.config.path().join("profiles.json")).unwrap();
    assert_eq!(before, after);
    whoami_with(&env, &[("REGISTRY_PROFILE", "")]).await;
}

/// `whoami` names the profile only when the token came from it; otherwise where it came from
/// (`--token`, `REGISTRY_TOKEN`), in the table and in the CSV (the same columns every time).
#[tokio::test(flavor = "multi_thread")]
async fn whoami_says_where_the_token_came_from() {
    let env = Env::start().await;
    let token = env.admin.token().unwrap().to_owned();
    let envs = [
        ("REGISTRY_URL", env.server.as_str()),
        ("REGISTRY_TOKEN", &token),
    ];
    // No profiles file at all.
    let table = env.run_with(&["whoami"], "", &envs).await.expect(0).stdout;
    assert!(!table.contains("production"), "{table}");
    assert!(table.contains("REGISTRY_TOKEN"), "{table}");

    // The active profile is someone else's; --token is whose the command runs as.
    let (_, fisica) = env.user("Fisica Perfil", &["Físico"]).await;
    env.login_as("fisica", &fisica).await;
    let table = env
        .run(&["--token", &token, "whoami"])
        .await
        .expect(0)
        .stdout;
    assert!(
        table.contains(ADMIN_EMAIL) && table.contains("--token"),
        "{table}"
    );
    assert!(!table.contains("fisica"), "{table}");

    let csv = |out: crate::harness::Out| {
        let mut lines = out.stdout.lines().map(str::to_owned);
        (lines.next().unwrap(), lines.next().unwrap())
    };
    let (header, row) = csv(env.run(&["whoami", "-o", "csv"]).await.expect(0));
    assert_eq!(header, "name,email,roles,_id,server,profile,token from");
    assert!(row.ends_with(",fisica,profile `fisica`"), "{row}");
    let (again, row) = csv(env
        .run(&["--token", &token, "whoami", "-o", "csv"])
        .await
        .expect(0));
    assert_eq!(again, header);
    // Behind a `'` as any CSV cell a spreadsheet would take for a formula.
    assert!(row.ends_with(",,'--token"), "{row}");
}

/// "Log in again" names the profile to log into when a bare `registry login` would log into
/// another one; a token given by `--token` that the server refuses is said to be refused (no
/// login would change it); a login that moves a profile to another server warns.
#[tokio::test(flavor = "multi_thread")]
async fn log_in_again_hints_name_the_profile() {
    let env = Env::start().await;
    env.admin_login(Some("staging"), &[]).await.expect(0);
    // `production` is the active profile again.
    env.admin_login(Some("production"), &[]).await.expect(0);
    env.run(&["--profile", "staging", "logout"]).await.expect(0);
    let out = env
        .run(&["--profile", "staging", "facility", "list"])
        .await
        .expect(3)
        .says("log in again with `registry --profile staging login`");
    assert!(!out.stderr.contains("`registry login`"), "{}", out.stderr);
    env.run(&["--profile", "staging", "whoami"])
        .await
        .expect(3)
        .says("`registry --profile staging login`");
    env.run(&["--profile", "fresh", "facility", "list"])
        .await
        .expect(2)
        .says("run `registry --profile fresh login --server URL`");
    // The active profile needs no --profile.
    env.run(&["logout"]).await.expect(0);
    env.run(&["facility", "list"])
        .await
        .expect(3)
        .says("log in again with `registry login`");

    let token = env.admin.token().unwrap().to_owned();
    let out = env
        .run(&["--token", &format!("{token}x"), "facility", "list"])
        .await
        .expect(3)
        .says("the token given by --token was refused");
    assert!(!out.stderr.contains("log in again"), "{}", out.stderr);

    let moved = env.server.replace("127.0.0.1", "localhost");
    let args = login_args(&moved, Some("staging"), ADMIN_EMAIL);
    env.run_with(&args, &format!("{}\n", crate::common::ADMIN_PASSWORD), &[])
        .await
        .expect(0)
        .says(&format!(
            "profile `staging` pointed at {} and now points at {moved}",
            env.server
        ));
}

/// `--password-stdin` typed at a terminal is not shown: read as the prompt reads it.
#[tokio::test(flavor = "multi_thread")]
async fn a_password_from_stdin_typed_at_a_terminal_is_not_shown() {
    let env = Env::logged_in().await;
    let login = env.at_terminal(&login_args(&env.server, Some("typed"), ADMIN_EMAIL));
    let shown = dialogue("--password-stdin at a terminal", move || {
        let mut p = spawn(login)?;
        p.exp_string("Password")?;
        p.send_line(ADMIN_PASSWORD)?;
        let shown = p.exp_eof()?;
        let status = format!("{:?}", p.process.wait()?);
        assert!(status.ends_with(", 0)"), "{status}: {shown}");
        Ok(shown)
    })
    .await;
    assert!(!shown.contains(ADMIN_PASSWORD), "{shown}");
    env.run(&["--profile", "typed", "whoami"]).await.expect(0);
}

/// A profiles file that cannot be read says how to get out: mend it or move it away.
#[tokio::test(flavor = "multi_thread")]
async fn a_broken_profiles_file_says_how_to_get_out() {
    let env = Env::logged_in().await;
    let file = env.config.path().join("profiles.json");
    std::fs::write(&file, r#"{"current": "production", "profiles": {"#).unwrap();
    let out = env.run(&["whoami"]).await.expect(1);
    let moved = format!("{}.broken", file.display());
    assert!(
        out.stderr.contains("is not a valid profiles file")
            && out.stderr.contains(&format!("'{moved}'")),
        "{}",
        out.stderr
    );
    std::fs::rename(&file, &moved).unwrap();
    env.login_admin().await;
    env.run(&["whoami"]).await.expect(0);
}
