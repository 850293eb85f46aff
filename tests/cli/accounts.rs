//! What a user does with their own account: a `Cliente` names themself by e-mail or name
//! (which needs no user list, staff-only), and a password change keeps the profile logged in.

use crate::harness::{ADMIN_EMAIL, Env, PASSWORD};

#[tokio::test(flavor = "multi_thread")]
async fn a_cliente_names_themself_by_email_or_name() {
    let env = Env::logged_in().await;
    let facility = env.facility("Clinica Propria", 31).await;
    let (id, email) = env.user("Cliente Proprio", &["Cliente"]).await;
    env.assign(&facility, &email, "Titular").await;
    env.login_as("cliente", &email).await;
    let me = |args: &[&str]| {
        let mut all = vec!["--profile", "cliente"];
        all.extend_from_slice(args);
        all.extend(["-o", "json"]);
        all.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };

    // By e-mail (any case) and by name or a part of either, as by _id: no `GET /users`, which
    // is staff-only.
    let upper = email.to_uppercase();
    for named in [
        email.as_str(),
        upper.as_str(),
        "cliente proprio",
        "PRÓPRIO",
        id.as_str(),
    ] {
        let args = me(&["user", "show", named]);
        let shown = env.run(&crate::harness::strs(&args)).await.expect(0).json();
        assert_eq!(shown["_id"], id.as_str(), "user show {named}");
    }
    let args = me(&["user", "facilities", &email]);
    let facilities = env.run(&crate::harness::strs(&args)).await.expect(0).json();
    assert_eq!(facilities[0]["cnpj"], facility.as_str());
    let args = me(&["user", "edit", &email, "--telephone", "(11) 98765-4321"]);
    let edited = env.run(&crate::harness::strs(&args)).await.expect(0).json();
    assert_eq!(edited["telephone"], "(11) 98765-4321");

    // Someone else: not found for a Cliente (5), saying what they can name; no "permission denied".
    let out = env
        .run(&["--profile", "cliente", "user", "show", ADMIN_EMAIL])
        .await
        .expect(5)
        .says("you can name yourself");
    assert!(!out.stderr.contains("permission denied"), "{}", out.stderr);

    // Staff keep looking others up by e-mail and name.
    let shown = env
        .json(&["--profile", "production", "user", "show", &email])
        .await;
    assert_eq!(shown["_id"], id.as_str());
    let shown = env
        .json(&["--profile", "production", "user", "show", "Cliente Proprio"])
        .await;
    assert_eq!(shown["_id"], id.as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn changing_your_password_keeps_the_profile_logged_in() {
    let env = Env::logged_in().await;
    let (_, email) = env.user("Fisica Senha", &["Físico"]).await;
    env.login_as("fisica", &email).await;
    let new_password = "another-good-password";
    env.run_with(
        &[
            "--profile",
            "fisica",
            "user",
            "password",
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n{new_password}\n"),
        &[],
    )
    .await
    .expect(0)
    .says("stays logged in");
    // The server ended the older sessions; the profile holds the fresh token.
    let who = env.json(&["--profile", "fisica", "whoami"]).await;
    assert_eq!(who["email"], email.as_str());

    // A token given by REGISTRY_TOKEN is not the profile's: the profile is left alone, and the
    // person told to log in again.
    let (_, other) = env.user("Fisico Script", &["Físico"]).await;
    let token = env.token_of(&other).await;
    let before = std::fs::read_to_string(env.config.path().join("profiles.json")).unwrap();
    env.run_with(
        &["user", "password", "--password-stdin"],
        &format!("{PASSWORD}\n{new_password}\n"),
        &[("REGISTRY_TOKEN", &token)],
    )
    .await
    .expect(0)
    .says("log in again");
    let after = std::fs::read_to_string(env.config.path().join("profiles.json")).unwrap();
    assert_eq!(before, after);
    env.run_with(&["whoami"], "", &[("REGISTRY_TOKEN", &token)])
        .await
        .expect(3);
}
