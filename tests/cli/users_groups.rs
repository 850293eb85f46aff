//! `registry user …` and `registry group …`.

use crate::harness::{Env, PASSWORD};

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
        out.stderr.contains("- email:") && out.stderr.contains("- password:"),
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
    env.run(&["group", "delete", id, "--yes"]).await.expect(0);
    env.run(&["group", "show", id]).await.expect(5);
}
