//! The exit codes of product.md §7 and the failures behind them: a token that is not a registry
//! token, a server URL that is not valid, a server that cannot be reached or never answers; and
//! a closed stdout, which ends quietly with exit 0.

use crate::harness::{ADMIN_EMAIL, Env, PASSWORD, cnpj, facility_flags, login_args, strs};

#[tokio::test(flavor = "multi_thread")]
async fn each_exit_code() {
    let env = Env::start().await;
    // 2: usage — an unknown flag, and no server configured at all.
    env.run(&["facility", "list", "--bogus"]).await.expect(2);
    env.run(&["facility", "list"])
        .await
        .expect(2)
        .says("--server");
    // 2: a prompt would be needed but there is no terminal.
    env.run(&["login", "--server", &env.server]).await.expect(2);

    // 3: wrong password, said as a refused login (not an expired session).
    let out = env
        .run_with(
            &login_args(&env.server, None, ADMIN_EMAIL),
            "wrong-password\n",
            &[],
        )
        .await
        .expect(3)
        .says("refused");
    for wrong in ["session expired", "log in again"] {
        assert!(!out.stderr.contains(wrong), "{}", out.stderr);
    }

    env.login_admin().await;
    // 0.
    env.run(&["facility", "list"]).await.expect(0);
    let flags = facility_flags("Clinica Exit", &cnpj(900));
    env.run(&strs(&flags)).await.expect(0);

    // 3: permission — a Cliente may not register facilities.
    let (_, client_email) = env.user("Cliente Person", &["Cliente"]).await;
    let token = env
        .admin
        .clone()
        .login(&client_email, PASSWORD)
        .await
        .unwrap()
        .token;
    let flags2 = facility_flags("Clinica Cliente", &cnpj(901));
    let denied = env
        .run_with(&strs(&flags2), "", &[("REGISTRY_TOKEN", &token)])
        .await
        .expect(3)
        .says("permission denied");
    assert!(
        !denied
            .stderr
            .contains("permission denied: permission denied"),
        "said once: {}",
        denied.stderr
    );

    // 4: validation, field by field in plain words.
    let mut bad = facility_flags("Clinica Bad", "11222333000100");
    let tel = bad.iter().position(|a| a == "(81) 3333-4444").unwrap();
    bad[tel] = "3333-4444".into();
    env.run(&strs(&bad))
        .await
        .expect(4)
        .says("- --cnpj: check digits do not match")
        .says("- --telephone: must include the area code");

    // 5: not found, and conflict (the same cnpj in the same department).
    env.run(&["facility", "show", "no-such-facility"])
        .await
        .expect(5);
    env.run(&strs(&flags))
        .await
        .expect(5)
        .says("already registered");

    // 1: a connection error names the URL it tried.
    env.run(&["--server", "http://127.0.0.1:9", "facility", "list"])
        .await
        .expect(1)
        .says("http://127.0.0.1:9/api/facilities");
}

/// `registry … | head -1`, `registry … | true`: when the reader of stdout goes away, every kind of
/// output (a record, a table, JSON, CSV, a bare line, an export, a completion script) stops
/// quietly with exit 0 — no panic, no "Broken pipe" error.
#[tokio::test(flavor = "multi_thread")]
async fn a_closed_stdout_ends_quietly_with_exit_0() {
    let env = Env::logged_in().await;
    let facility = env.facility("Clinica Pipe", 950).await;
    let commands: &[&[&str]] = &[
        &["whoami", "-o", "json"],
        &["whoami"],
        &["-o", "json", "facility", "list"],
        &["facility", "list"],
        &["facility", "list", "-o", "csv"],
        &["facility", "show", &facility],
        &["facility", "export"],
        &["document", "signing-key"],
        &["profiles"],
        &["completions", "bash"],
    ];
    for args in commands {
        let out = env.run_into_closed_pipe(args).await;
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (0, ""),
            "registry {} into a closed pipe",
            args.join(" ")
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_that_is_not_a_registry_token_is_an_auth_error() {
    let env = Env::start().await;
    for (args, envs) in [
        (vec!["--token", "garbage", "whoami"], vec![]),
        (vec!["whoami"], vec![("REGISTRY_TOKEN", "garbage")]),
        (vec!["--token", "garbage", "facility", "list"], vec![]),
    ] {
        let mut all = vec!["--server", env.server.as_str()];
        all.extend(args);
        env.run_with(&all, "", &envs).await.expect(3);
    }
    env.run(&["--server", &env.server, "--token", "garbage", "whoami"])
        .await
        .expect(3)
        .says("not a registry token");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_server_url_is_a_usage_error_naming_where_it_came_from() {
    let env = Env::start().await;
    env.run(&["--server", "not a url", "facility", "list"])
        .await
        .expect(2)
        .says("`not a url` (from --server)")
        .says("http://host:port");
    env.run(&["facility", "list", "--server", "ftp://example.org"])
        .await
        .expect(2)
        .says("(from --server)")
        .says("not http or https");
    env.run_with(
        &["facility", "list"],
        "",
        &[("REGISTRY_URL", "localhost:8080")],
    )
    .await
    .expect(2)
    .says("(from REGISTRY_URL)");
    env.run(&["login", "--server", "http://", "--email", "a@example.com"])
        .await
        .expect(2)
        .says("(from --server)");
    // A profile holding a bad URL (written by hand).
    std::fs::write(
        env.config.path().join("profiles.json"),
        r#"{"current": "broken", "profiles": {"broken": {"server": "127.0.0.1:8080"}}}"#,
    )
    .unwrap();
    env.run(&["facility", "list"])
        .await
        .expect(2)
        .says("(from profile `broken`)")
        .says("http://");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connection_error_gives_its_cause() {
    let env = Env::start().await;
    env.run(&[
        "--server",
        "http://127.0.0.1:9",
        "--token",
        "x.y.z",
        "facility",
        "list",
    ])
    .await
    .expect(1)
    .says("Connection refused");
}

/// A server that takes the connection and never answers: the command gives up after
/// `REGISTRY_TIMEOUT_SECS` (exit 1), naming the URL and saying it timed out, instead of hanging.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_times_out() {
    let env = Env::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent = format!("http://{}", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            open.push(socket);
        }
    });
    let started = std::time::Instant::now();
    let args = ["--server", &silent, "--token", "x.y.z", "facility", "list"];
    let out = env
        .run_with(&args, "", &[("REGISTRY_TIMEOUT_SECS", "1")])
        .await
        .expect(1)
        .says(&format!("{silent}/api/facilities"))
        .says("timed out")
        .says("REGISTRY_TIMEOUT_SECS");
    assert!(started.elapsed().as_secs() < 15, "{}", out.stderr);
    env.run_with(&args, "", &[("REGISTRY_TIMEOUT_SECS", "soon")])
        .await
        .expect(2)
        .says("REGISTRY_TIMEOUT_SECS");
    held.abort();
}
