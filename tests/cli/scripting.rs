//! What scripts rely on: a server URL carrying credentials, a query or a fragment
//! refused without echoing its password; refused flags named all at once (`facility create`,
//! `user create`, `waste store`, `material receive`), negative numbers reaching the fields'
//! rules; the hint for a deactivated account; `login` / `logout` under `-o json`; the note of an
//! empty list.

use crate::harness::{ADMIN_EMAIL, Env, login_args};

#[tokio::test(flavor = "multi_thread")]
async fn a_server_url_with_credentials_a_query_or_a_fragment_is_refused() {
    let env = Env::start().await;
    let with_password = env.server.replace("http://", "http://ana:s3cret@");
    let out = env
        .run_with(
            &login_args(&with_password, None, ADMIN_EMAIL),
            "whatever\n",
            &[],
        )
        .await
        .expect(2)
        .says("(from --server)")
        .says("carries credentials");
    assert!(!out.stderr.contains("s3cret"), "{}", out.stderr);
    let saved = std::fs::read_to_string(env.config.path().join("profiles.json"));
    assert!(!saved.unwrap_or_default().contains("s3cret"));
    for (url, says) in [
        (format!("{}/api?x=1", env.server), "query"),
        (format!("{}/api#top", env.server), "fragment"),
    ] {
        env.run(&["--server", &url, "facility", "list"])
            .await
            .expect(2)
            .says(says);
    }
    // A profile saved with one before (written by hand): refused, its password never shown.
    std::fs::write(
        env.config.path().join("profiles.json"),
        format!(r#"{{"current": "old", "profiles": {{"old": {{"server": "{with_password}"}}}}}}"#),
    )
    .unwrap();
    let out = env
        .run(&["facility", "list"])
        .await
        .expect(2)
        .says("(from profile `old`)");
    assert!(!out.stderr.contains("s3cret"), "{}", out.stderr);
    let out = env.run(&["profiles"]).await.expect(0);
    assert!(!out.stdout.contains("s3cret"), "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_values_are_named_with_every_other_refused_flag() {
    let env = Env::logged_in().await;
    // An empty --name is a value refused, named with the missing flags.
    env.run(&[
        "facility",
        "create",
        "--name",
        "",
        "--cnpj",
        "11222333000181",
    ])
    .await
    .expect(4)
    .says("--name: cannot be empty")
    .says("--company-name: is required");
    // An unknown --role with a weak password read from stdin.
    env.run_with(
        &[
            "user",
            "create",
            "--name",
            "X",
            "--email",
            "x@y.com",
            "--role",
            "Fisico",
            "--password-stdin",
        ],
        "weak\n",
        &[],
    )
    .await
    .expect(4)
    .says("--role `Fisico`: must be one of")
    .says("password: ");
    // Every refused flag of `waste store` at once, before the facility is looked up.
    env.run(&[
        "waste",
        "store",
        "--facility",
        "Nowhere",
        "--form",
        "goo",
        "--content",
        "Xx=1",
        "--mass",
        "0",
        "--location",
        "",
    ])
    .await
    .expect(4)
    .says("--form `goo`: must be one of")
    .says("--content `Xx`: must be one of")
    .says("--mass: ")
    .says("--location: ");
    // And of `material receive`, a negative number reaching the activity's rule.
    env.run(&[
        "material",
        "receive",
        "--facility",
        "Nowhere",
        "--radioisotope",
        "Xx",
        "--activity",
        "-5",
        "--supplier",
        "",
    ])
    .await
    .expect(4)
    .says("--radioisotope `Xx`: must be one of")
    .says("--activity: ")
    .says("--supplier: ");
}

#[tokio::test(flavor = "multi_thread")]
async fn negative_numbers_reach_the_fields_rules() {
    let env = Env::logged_in().await;
    let out = env
        .run(&[
            "waste",
            "store",
            "--facility",
            "Nowhere",
            "--form",
            "solid",
            "--content",
            "I(131)=1",
            "--mass",
            "-1",
            "--location",
            "A",
        ])
        .await
        .expect(4)
        .says("--mass: ");
    assert!(
        !out.stderr.contains("unexpected argument"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deactivated_account_is_not_told_to_log_in_again() {
    let env = Env::logged_in().await;
    let (_, email) = env.user("Eva", &["Físico"]).await;
    env.login_as("eva", &email).await;
    env.run(&[
        "--profile",
        "production",
        "user",
        "deactivate",
        &email,
        "--yes",
    ])
    .await
    .expect(0);
    let out = env
        .run(&["--profile", "eva", "facility", "list"])
        .await
        .expect(3)
        .says("an Administrator must reactivate it")
        .says(&format!("registry user edit {email} --active true"));
    assert!(!out.stderr.contains("log in again with"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn login_and_logout_print_json_for_scripts() {
    let env = Env::start().await;
    let mut args = login_args(&env.server, None, ADMIN_EMAIL);
    args.extend(["-o", "json"]);
    let out = env
        .run_with(&args, &format!("{}\n", crate::common::ADMIN_PASSWORD), &[])
        .await
        .expect(0);
    let login = out.json();
    assert_eq!(login["email"], ADMIN_EMAIL);
    assert_eq!(login["profile"], "production");
    assert_eq!(login["loggedIn"], true);
    assert!(!out.stdout.contains("token"), "{}", out.stdout);
    let logout = env.json(&["logout"]).await;
    assert_eq!(logout["profile"], "production");
    assert_eq!(logout["loggedOut"], true);
    assert_eq!(logout["wasLoggedIn"], true);
    // Table output keeps stdout empty.
    assert_eq!(env.run(&["logout"]).await.expect(0).stdout, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_list_says_so() {
    let env = Env::logged_in().await;
    env.run(&["group", "list"])
        .await
        .expect(0)
        .says("note: no records");
    let json = env.json(&["group", "list"]).await;
    assert_eq!(json, serde_json::json!([]));
}
