//! `facility assign` and `unassign` at a terminal: the facility picked from the list, the user
//! among those linked to it, what to take away, and a custom responsibility typed in; and without
//! a terminal, a usage error naming what is missing; a deactivated linked user named when the
//! links are refused.

use crate::harness::{Env, answer, converse, dialogue, keep_fields_up_to_links, role_args};

/// The responsibilities of user `id` at facility `cnpj` (`None`: not linked), read through the
/// API.
async fn held(env: &Env, cnpj: &str, id: &str) -> Option<Vec<String>> {
    let list = env.facilities_matching(cnpj).await;
    let link = list[0].users.iter().find(|u| u.id == id)?;
    Some(link.responsabilities.clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn unassign_at_a_terminal_picks_the_facility_then_a_linked_user() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Vinculos", 301).await;
    let (ana, ana_email) = env.user("Ana Vinculo", &["Físico"]).await;
    let (bruno, bruno_email) = env.user("Bruno Vinculo", &["Físico"]).await;
    for (email, role) in [
        (&ana_email, "Responsável Técnico"),
        (&ana_email, "Substituto"),
        (&bruno_email, "Titular"),
    ] {
        env.assign(&c, email, role).await;
    }

    // Without a terminal (or with --no-input) nothing is asked: every missing argument is
    // named at once, exit 2.
    let unassign_role = ["facility", "unassign", &c, "--role", "Substituto"];
    for (args, missing) in [
        (
            &["facility", "unassign"][..],
            "FACILITY and --user are required",
        ),
        (&unassign_role[..], "--user is required"),
        (
            &["--no-input", "facility", "assign", &c][..],
            "--user and --role are required",
        ),
    ] {
        env.run(args).await.expect(2).says(missing);
    }

    let pick_all = env.at_terminal(&["facility", "unassign"]);
    let pick_user = env.at_terminal(&["facility", "unassign", &c]);
    dialogue("the unassign pick lists", move || {
        // Ana's responsibilities in order, then the whole link: the second one.
        let steps = [
            ("Facility", "Vinculos\r"),
            ("User to unassign", "Ana\r"),
            ("Take away", "j\r"),
        ];
        let done = "Ana Vinculo no longer holds Substituto at Clinica Vinculos";
        converse(pick_all, &steps, done)?;
        // Bruno's Titular, then the whole link.
        let steps = [("User to unassign", "Bruno\r"), ("Take away", "j\r")];
        converse(
            pick_user,
            &steps,
            "Bruno Vinculo unlinked from Clinica Vinculos",
        )
    })
    .await;
    assert_eq!(held(&env, &c, &ana).await.unwrap(), ["Responsável Técnico"]);
    assert_eq!(held(&env, &c, &bruno).await, None);
}

/// The role pick list ends with "Other…", which takes a responsibility typed in: one the server
/// is configured with is saved; another is refused by the server, naming the allowed values.
#[tokio::test(flavor = "multi_thread")]
async fn assign_at_a_terminal_takes_a_custom_responsibility() {
    let env = Env::start_configured(|c| c.extra_responsibilities = vec!["Enfermeiro".into()]).await;
    env.login_admin().await;
    let (carla, carla_email) = env.user("Carla Custom", &["Físico"]).await;
    let c = env.facility("Clinica Custom", 302).await;
    let custom = env.at_terminal(&["facility", "assign", &c, "--user", &carla_email]);
    let unknown = env.at_terminal(&["facility", "assign", &c, "--user", &carla_email]);
    let picked = env.at_terminal(&["facility", "assign", "--user", &carla_email]);
    dialogue("the custom responsibility", move || {
        // Past the four main roles: "Other…", then the value typed in.
        let other = |cmd, typed: &str, end: &str| {
            let typed = format!("{typed}\r");
            let steps = [
                ("Responsibility", "jjjj\r"),
                ("Custom responsibility", &typed[..]),
            ];
            converse(cmd, &steps, end)
        };
        other(
            custom,
            "Enfermeiro",
            "Enfermeiro of Clinica Custom: Carla Custom",
        )?;
        other(unknown, "Chefe", "Supervisor, Enfermeiro")?;
        // The facility picked from the list, then a main role.
        let steps = [("Facility", "Custom\r"), ("Responsibility", "\r")];
        converse(picked, &steps, "Titular of Clinica Custom: Carla Custom")
    })
    .await;
    assert_eq!(
        held(&env, &c, &carla).await.unwrap(),
        ["Enfermeiro", "Titular"]
    );
    // The flag takes it too, for scripts.
    let (dora, dora_email) = env.user("Dora Custom", &["Físico"]).await;
    env.assign(&c, &dora_email, "Enfermeiro").await;
    assert_eq!(held(&env, &c, &dora).await.unwrap(), ["Enfermeiro"]);
}

/// `user facilities USER` answers "where is this user responsible, and as what": the user's own
/// responsibilities per facility, in the table and CSV.
#[tokio::test(flavor = "multi_thread")]
async fn user_facilities_shows_the_users_own_responsibilities() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Ana", 90).await;
    let ana = env.user("Ana Souza", &["Físico"]).await.1;
    let bruno = env.user("Bruno Lima", &["Físico"]).await.1;
    let links = [
        (&ana, "Titular"),
        (&ana, "Substituto"),
        (&bruno, "Responsável Técnico"),
    ];
    for (email, role) in links {
        env.assign(&c, email, role).await;
    }
    let csv = env
        .run(&["user", "facilities", &ana, "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    let mut lines = csv.lines();
    // The column is named as in `facility users -o csv` and the API: `responsabilities`.
    assert!(
        lines.next().unwrap().ends_with(",responsabilities"),
        "{csv}"
    );
    let users = env
        .run(&["facility", "users", &c, "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    let header = users.lines().next().unwrap();
    assert!(
        header.split(',').any(|h| h == "responsabilities"),
        "{users}"
    );
    let row = lines.next().unwrap();
    assert!(row.ends_with(",\"Titular, Substituto\""), "{csv}");
    assert!(!csv.contains("Bruno") && !csv.contains("Técnico"), "{csv}");
}

/// The edit wizard offers a user already linked with the responsibilities they hold marked:
/// Enter keeps them (nothing changes), and marking another one adds it, replacing only that
/// role's holder.
#[tokio::test(flavor = "multi_thread")]
async fn linking_a_linked_user_again_in_the_edit_wizard_keeps_their_responsibilities() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Relink", 302).await;
    let (ana, ana_email) = env.user("Ana Relink", &["Físico"]).await;
    let (bruno, bruno_email) = env.user("Bruno Relink", &["Físico"]).await;
    env.assign(&c, &ana_email, "Titular").await;
    env.assign(&c, &ana_email, "Supervisor").await;
    env.assign(&c, &bruno_email, "Substituto").await;
    let keep = env.at_terminal(&["facility", "edit", &c]);
    let add = env.at_terminal(&["facility", "edit", &c]);
    dialogue("linking a linked user again", move || {
        for (cmd, keys, outcome) in [
            (keep, "\r", "Nothing changed."),
            // Titular, Responsável Técnico, Substituto (marked here), Supervisor.
            (add, "\x1b[B\x1b[B \r", "Saved"),
        ] {
            let mut p = keep_fields_up_to_links(cmd)?;
            answer(&mut p, "Link a user", "y\r")?;
            answer(&mut p, "User (type part", "Ana Relink\r")?;
            answer(
                &mut p,
                "Responsibilities of Ana Relink (linked: Titular, Supervisor)",
                keys,
            )?;
            answer(&mut p, "Link a user", "n\r")?;
            p.exp_string(outcome)?;
            p.exp_eof()?;
        }
        Ok(())
    })
    .await;
    let mut ana_holds = held(&env, &c, &ana).await.unwrap();
    ana_holds.sort();
    assert_eq!(ana_holds, ["Substituto", "Supervisor", "Titular"]);
    assert_eq!(held(&env, &c, &bruno).await.unwrap(), Vec::<String>::new());
}

/// Two `assign`s (and an `unassign`) at once all land: each sends the whole list of links with
/// the version it was computed from, and computes it again when the other changed it first.
#[tokio::test(flavor = "multi_thread")]
async fn assigns_at_once_all_land() {
    let env = Env::logged_in().await;
    let (carla, carla_email) = env.user("Carla Paralela", &["Físico"]).await;
    let (davi, davi_email) = env.user("Davi Paralelo", &["Físico"]).await;
    let (eva, eva_email) = env.user("Eva Paralela", &["Físico"]).await;
    for round in 0..3 {
        let c = env
            .facility(&format!("Clinica Paralela {round}"), 303 + round)
            .await;
        env.assign(&c, &eva_email, "Titular").await;
        let carla_args = role_args("assign", &c, &carla_email, "Supervisor");
        let davi_args = role_args("assign", &c, &davi_email, "Substituto");
        let eva_args = ["facility", "unassign", &c, "--user", &eva_email];
        let (a, b, e) = futures::join!(
            env.run(&carla_args),
            env.run(&davi_args),
            env.run(&eva_args)
        );
        for out in [a, b, e] {
            out.expect(0);
        }
        assert_eq!(held(&env, &c, &carla).await.unwrap(), ["Supervisor"]);
        assert_eq!(held(&env, &c, &davi).await.unwrap(), ["Substituto"]);
        assert_eq!(held(&env, &c, &eva).await, None);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deactivated_linked_user_is_named_when_the_links_are_refused() {
    let env = Env::logged_in().await;
    let (_, carla) = env.user("Carla Dias", &["Físico"]).await;
    let (_, bruno) = env.user("Bruno Lima", &["Físico"]).await;
    let c = env.facility("Clinica Links", 60).await;
    env.assign(&c, &carla, "Supervisor").await;
    env.run(&["user", "deactivate", &carla, "--yes"])
        .await
        .expect(0);
    let out = env
        .run(&role_args("assign", &c, &bruno, "Titular"))
        .await
        .expect(4)
        .says(&format!("Carla Dias <{carla}>"))
        .says("is deactivated")
        .says(&format!("--user {carla}"));
    assert!(!out.stderr.contains("users["), "{}", out.stderr);
    // As the message says: unlink her, then the assignment goes through.
    let id = env.json(&["facility", "show", &c]).await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    env.run(&["facility", "unassign", &id, "--user", &carla])
        .await
        .expect(0);
    env.assign(&c, &bruno, "Titular").await;
}
