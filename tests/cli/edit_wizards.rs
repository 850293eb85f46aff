//! The edit wizards of `user edit`, `group edit` and `equipment edit` at a terminal without field
//! flags: every field offered with its stored value, each answer checked, only what changed sent,
//! and "Nothing changed." (nothing sent) when every stored value is kept.

use crate::harness::{Env, answer, converse, dialogue, ends_saying, spawn};
use std::time::Duration;

/// Backspaces enough to erase `text` from a prompt's initial text.
fn erase(text: &str) -> String {
    "\x7f".repeat(text.chars().count())
}

#[tokio::test(flavor = "multi_thread")]
async fn user_edit_walks_every_field_and_sends_only_what_changed() {
    let env = Env::logged_in().await;
    let (id, email) = env.user("Gil Wizard", &["Físico"]).await;
    let steps = [
        ("Name", "\r"),
        ("E-mail", "\r"),
        ("Telephone with area code", "123\r"),
        ("must include the area code", "(81) 3333-4444\r"),
        ("CPF", "\r"),
        ("Roles", "\r"), // Físico stays marked
        ("AN licence number", "AN-1\r"),
        ("AN licence valid until", "2027-02-30\r"),
        ("must be a date", "2027-12-01\r"),
        ("FM licence number", "\r"),
        ("FM licence valid until", "\r"),
    ];
    let change = env.at_terminal(&["user", "edit", &email]);
    let keep = env.at_terminal(&["user", "edit", &email]);
    dialogue("the user edit wizard", move || {
        converse(change, &steps, "Saved Gil Wizard")
    })
    .await;
    let u = env.admin.user(&id).await.unwrap();
    assert_eq!(u.name, "Gil Wizard");
    assert_eq!(u.telephone.as_deref(), Some("(81) 3333-4444"));
    assert_eq!(u.licences.an_number.as_deref(), Some("AN-1"));
    assert_eq!(u.licences.an_validity.as_deref(), Some("2027-12-01"));
    assert_eq!(u.licences.fm_number, None);
    assert_eq!(
        u.roles.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
        ["Físico"]
    );

    // Walked again keeping every answer: nothing is sent.
    let before = u.updated_at;
    dialogue("the unchanged user edit", move || {
        let prompts = [
            "Name",
            "E-mail",
            "Telephone",
            "CPF",
            "Roles",
            "AN licence number",
        ];
        let prompts = [
            &prompts[..],
            &["AN licence valid", "FM licence number", "FM licence valid"],
        ];
        let steps: Vec<(&str, &str)> = prompts.concat().into_iter().map(|p| (p, "\r")).collect();
        converse(keep, &steps, "Nothing changed.")
    })
    .await;
    assert_eq!(env.admin.user(&id).await.unwrap().updated_at, before);
}

#[tokio::test(flavor = "multi_thread")]
async fn group_and_equipment_edit_walk_their_fields() {
    let env = Env::logged_in().await;
    let g = env
        .admin
        .register_group("Rede Wizard", Some("Antiga"))
        .await
        .unwrap();
    let flags = [
        "--manufacturer",
        "Siemens",
        "--model",
        "Symbia",
        "--localization",
        "Sala 2",
    ];
    let flags = [&flags[..], &["--attribute", "detectors=2"]].concat();
    let equipment = env
        .equipment("Clinica Equip Wizard", 321, "Gama Câmara", &flags)
        .await;

    let clear = env.at_terminal(&["group", "edit", "rede wizard"]);
    let keep = env.at_terminal(&["group", "edit", "rede wizard"]);
    let edit = env.at_terminal(&["equipment", "edit", &equipment]);
    dialogue("the group and equipment wizards", move || {
        let group = |cmd, description: &str, end: &str| {
            converse(
                cmd,
                &[("Group name", "\r"), ("Description", description)],
                end,
            )
        };
        // The description emptied: cleared; then every stored value kept: nothing sent.
        group(
            clear,
            &format!("{}\r", erase("Antiga")),
            "Saved group Rede Wizard",
        )?;
        group(keep, "\r", "Nothing changed.")?;

        let model = format!("{}\r", erase("Symbia"));
        let steps = [
            ("Equipment type", "\r"), // the stored one
            ("Manufacturer", "\r"),
            ("Model", &model),
            ("Serial number", "\r"),
            ("Patrimonial number", "PAT-9\r"),
            ("Localization", "\x7f3\r"), // Sala 2 → Sala 3
            ("Attributes", "[2]\r"),
            ("must be one JSON object", "\r"), // offered again as stored: kept
            ("In service?", "\r"),
        ];
        // The equipment as saved (its label names "Câmara", which the pseudo-terminal's reader,
        // taking bytes as Latin-1, does not match).
        converse(edit, &steps, "Sala 3")
    })
    .await;
    let g = env.admin.group(&g.id).await.unwrap();
    assert_eq!((g.name.as_str(), g.description), ("Rede Wizard", None));
    let e = env.admin.equipment(&equipment).await.unwrap();
    assert_eq!(e.type_of_equipment.name, "Gama Câmara");
    assert_eq!(e.manufacturer.as_deref(), Some("Siemens"));
    assert_eq!(e.model, None);
    assert_eq!(e.patrimonial_number.as_deref(), Some("PAT-9"));
    assert_eq!(e.localization.as_deref(), Some("Sala 3"));
    assert_eq!(e.attributes, serde_json::json!({"detectors": 2}));
    assert!(e.active);
}

/// Someone who thinks longer over an answer than the server keeps an idle connection open: the
/// wizard's look-ups used a connection the server has closed meanwhile, and the final request
/// still reaches the server (on a new connection) instead of failing with every answer lost.
#[tokio::test(flavor = "multi_thread")]
async fn a_slow_answer_still_saves() {
    let env = Env::start_configured(|c| c.limits.read_timeout = Duration::from_secs(2)).await;
    env.login_admin().await;
    let g = env
        .admin
        .register_group("Rede Pausa", Some("Antiga"))
        .await
        .unwrap();
    let edit = env.at_terminal(&["group", "edit", "Rede Pausa"]);
    dialogue("a slow group edit", move || {
        let mut p = spawn(edit)?;
        answer(&mut p, "Group name", "\r")?;
        p.exp_string("Description")?;
        // The person thinks; the server closes the idle connection after 2 s.
        std::thread::sleep(Duration::from_secs(3));
        p.send(&format!("{}Nova\r", erase("Antiga")))?;
        p.flush()?;
        ends_saying(&mut p, "Saved group Rede Pausa")
    })
    .await;
    let g = env.admin.group(&g.id).await.unwrap();
    assert_eq!(g.description.as_deref(), Some("Nova"));
}
