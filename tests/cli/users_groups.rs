//! `registry user …` and `registry group …`.

use crate::harness::{Env, PASSWORD};
use registry_core::api::UserInput;

#[tokio::test(flavor = "multi_thread")]
async fn users_are_created_listed_edited_and_deactivated() {
    let env = Env::logged_in().await;
    let out = env
        .run_with(
            &[
                "user",
                "create",
                "--name",
                "Carla Dias",
                "--email",
                "carla@example.com",
                "--role",
                "Físico",
                "--password-stdin",
                "-o",
                "json",
            ],
            &format!("{PASSWORD}\n"),
            &[],
        )
        .await
        .expect(0);
    assert_eq!(out.json()["roles"][0], "Físico");
    // Local validation before sending: a bad e-mail and a short password.
    let out = env
        .run_with(
            &[
                "user",
                "create",
                "--name",
                "X",
                "--email",
                "not-an-email",
                "--password-stdin",
            ],
            "short\n",
            &[],
        )
        .await
        .expect(4);
    assert!(
        out.stderr.contains("- --email:") && out.stderr.contains("- password:"),
        "{}",
        out.stderr
    );

    let csv = env
        .run(&["user", "list", "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    assert!(csv.starts_with("_id,name,email,roles,active"));
    assert!(csv.contains("carla@example.com"));
    let edited = env
        .json(&[
            "user",
            "edit",
            "carla@example.com",
            "--telephone",
            "(11) 98765-4321",
        ])
        .await;
    assert_eq!(edited["telephone"], "(11) 98765-4321");
    env.run(&["user", "deactivate", "Carla", "--yes"])
        .await
        .expect(0);
    let shown = env.json(&["user", "show", "carla@example.com"]).await;
    assert_eq!(shown["active"], false);
    env.run(&["user", "show", "nobody@example.com"])
        .await
        .expect(5);
}

#[tokio::test(flavor = "multi_thread")]
async fn groups_are_created_edited_and_deleted() {
    let env = Env::logged_in().await;
    let g = env
        .json(&[
            "group",
            "create",
            "--name",
            "Rede Norte",
            "--description",
            "Hospitais",
        ])
        .await;
    let id = g["_id"].as_str().unwrap();
    env.run(&["group", "edit", id, "--name", "Rede Nordeste"])
        .await
        .expect(0);
    let list = env.json(&["group", "list"]).await;
    assert_eq!(list[0]["name"], "Rede Nordeste");
    env.run(&["group", "create", "--name", "Rede Nordeste"])
        .await
        .expect(5);
    // A refused field is named by the flag typed; the JSON envelope keeps the API's path.
    env.run(&["group", "create", "--name", " "])
        .await
        .expect(4)
        .says("- --name: ");
    let envelope = env
        .run(&["group", "create", "--name", " ", "-o", "json"])
        .await
        .expect(4)
        .json();
    assert_eq!(envelope["errors"][0]["field"], "name");
    // Under `-o json` a delete prints the server's answer, as every archive and delete does.
    let deleted = env
        .run(&["group", "delete", id, "--yes", "-o", "json"])
        .await
        .expect(0)
        .json();
    assert_eq!(deleted["message"], "Group deleted.", "{deleted}");
    // At a terminal the note names what went: "Group deleted: <name>".
    let other = env
        .run(&["group", "create", "--name", "Rede Efêmera", "-o", "json"])
        .await
        .expect(0)
        .json();
    let other = other["_id"].as_str().unwrap();
    env.run(&["group", "delete", other, "--yes"])
        .await
        .expect(0)
        .says("Group deleted: Rede Efêmera");
    env.run(&["group", "show", id]).await.expect(5);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_role_is_refused_locally_with_the_allowed_ones() {
    let env = Env::logged_in().await;
    let allowed = "must be one of: Administrator, Admin, Físico, Laudos, Cliente";
    env.run_with(
        &[
            "user",
            "create",
            "--name",
            "Role Bogus",
            "--email",
            "bogus@example.com",
            "--role",
            "Físico",
            "--role",
            "Bogus",
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n"),
        &[],
    )
    .await
    .expect(4)
    .says(&format!("- --role `Bogus`: {allowed}"));
    let users = env.json(&["user", "list"]).await;
    assert!(
        !users.to_string().contains("bogus@example.com"),
        "nothing was sent"
    );
    let (_, email) = env.user("Role Edit", &["Cliente"]).await;
    env.run(&["user", "edit", &email, "--role", "Chefe"])
        .await
        .expect(4)
        .says("- --role `Chefe`:");
    // A role to list by is read as the server reads the filter, in any case and without accents
    // (a role given to a user must be written exactly: flag_values.rs).
    let (_, fisico) = env.user("Role Fisico", &["Físico"]).await;
    let listed = env
        .json(&["user", "list", "--role", "FISICO"])
        .await
        .to_string();
    assert!(listed.contains(&fisico), "{listed}");
    assert!(!listed.contains(&email), "{listed}");
    // --help still shows the allowed values.
    let help = env.run(&["user", "create", "--help"]).await.expect(0);
    assert!(
        help.stdout
            .contains("Administrator, Admin, Físico, Laudos, Cliente"),
        "{}",
        help.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn groups_are_named_by_id_or_name() {
    let env = Env::logged_in().await;
    let id = env
        .json(&["group", "create", "--name", "Rede Agreste"])
        .await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for name in ["rede agreste", "REDE  ÁGRESTE"] {
        let shown = env.json(&["group", "show", name]).await;
        assert_eq!(shown["_id"], id.as_str());
    }
    let edited = env
        .json(&["group", "edit", "Rede Agreste", "--description", "Interior"])
        .await;
    assert_eq!(edited["_id"], id.as_str());
    assert_eq!(edited["description"], "Interior");
    // A facility's --group and the list filter take the name too.
    let mut flags = crate::harness::facility_flags("Clinica Agreste", &crate::harness::cnpj(41));
    flags.extend([
        "--group".into(),
        "Rede Agreste".into(),
        "-o".into(),
        "json".into(),
    ]);
    let f = env
        .run(&crate::harness::strs(&flags))
        .await
        .expect(0)
        .json();
    assert_eq!(f["group"]["_id"], id.as_str());
    let listed = env
        .json(&["facility", "list", "--group", "rede agreste"])
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    // An edit shows the group as `group show` does: with its facilities.
    let shown = env
        .run(&["group", "edit", "rede agreste", "--description", "Agreste"])
        .await
        .expect(0);
    assert!(shown.stdout.contains("Clinica Agreste"), "{}", shown.stdout);
    let edited = env
        .json(&["group", "edit", "rede agreste", "--description", "Sertão"])
        .await;
    assert_eq!(
        edited["facilities"][0]["name"], "Clinica Agreste",
        "{edited}"
    );
    env.run(&["group", "show", "Rede Sertao"])
        .await
        .expect(5)
        .says("Rede Agreste");
    env.run(&[
        "facility",
        "edit",
        f["_id"].as_str().unwrap(),
        "--group",
        "",
    ])
    .await
    .expect(0);
    env.run(&["group", "delete", "REDE AGRESTE", "--yes"])
        .await
        .expect(0);
    env.run(&["group", "show", &id]).await.expect(5);
}

/// A cell a spreadsheet would run as a formula (a name a user chose, `=HYPERLINK(…)`) is written
/// to CSV behind a `'`, so that it is shown and not run.
#[tokio::test(flavor = "multi_thread")]
async fn csv_lists_neutralise_formulas() {
    let env = Env::logged_in().await;
    let formula = "=HYPERLINK(\"http://evil.example\",\"clique\")";
    let email = "formula@example.com";
    env.admin
        .register_user(&UserInput {
            name: Some(formula.into()),
            email: Some(email.into()),
            password: Some(PASSWORD.into()),
            ..UserInput::default()
        })
        .await
        .expect("user created");
    let csv = env
        .run(&["user", "list", "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    let row = csv.lines().find(|l| l.contains(email)).expect("the user");
    assert!(
        row.contains("\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"clique\"\")\""),
        "{row}"
    );
    let shown = env
        .run(&["user", "show", email, "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    assert!(shown.contains("\"'=HYPERLINK("), "{shown}");
}
