//! Prompts driven through a pseudo-terminal, as a person would use them: the facility wizard,
//! and equipment, test types and conclusions picked from lists.

use crate::harness::{
    Env, answer, answering, cnpj, creates_user, dialogue, ends_saying, facility_flags,
    keep_fields_up_to_links, punctuated, record_args, registers_unlinked, reply, spawn, strs,
};
use registry_client::ListQuery;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn the_create_wizard_validates_each_answer_and_registers() {
    let env = Env::logged_in().await;
    let bare = cnpj(77);
    let mut wrong = bare.clone();
    wrong.replace_range(13.., if bare.ends_with('0') { "1" } else { "0" });
    let punctuated = punctuated(&bare);
    let cmd = env.at_terminal(&["facility", "create"]);
    dialogue("the wizard dialogue", move || {
        let mut p = spawn(cmd)?;
        // A blank answer is asked again, saying why.
        reply(&mut p, "Name", "")?;
        reply(&mut p, "is required", "Clinica Wizard")?;
        reply(&mut p, "Company name", "Wizard Ltda")?;
        reply(&mut p, "CNPJ", &wrong)?;
        reply(&mut p, "check digits do not match", &punctuated)?;
        p.exp_string("without punctuation")?;
        reply(&mut p, "Telephone", "3333-4444")?;
        reply(&mut p, "must include the area code", "(81) 3333-4444")?;
        answer(&mut p, "Department", "j\r")?; // down: Radiodiagnóstico
        reply(&mut p, "Street", "  ")?;
        reply(&mut p, "is required", "Rua do Sol, 5")?;
        reply(&mut p, "Complement", "Sala 2")?;
        reply(&mut p, "City", "Recife")?;
        reply(&mut p, "State", "PE")?;
        reply(&mut p, "CEP", "50000-000")?;
        reply(&mut p, "CNEN registry", "")?;
        answer(&mut p, "Authorised practices", " \r")?;
        answer(&mut p, "Authorised radioisotopes", " \r")?;
        reply(&mut p, "mCi per week", "12,5")?;
        reply(&mut p, "with a dot as decimal separator", "12.5")?;
        registers_unlinked(&mut p, "Clinica Wizard")
    })
    .await;
    let list = env.facilities_matching("Clinica Wizard").await;
    assert_eq!(list.len(), 1);
    let f = &list[0];
    assert_eq!(f.cnpj, bare);
    assert_eq!(f.department.as_str(), "Radiodiagnóstico");
    assert_eq!(f.practices[0].as_str(), "Terapia com Internação");
    assert_eq!(f.radioisotopes[0].name.as_str(), "C(11)");
    assert_eq!(f.radioisotopes[0].quantity, 12.5);
    assert_eq!(f.address[0].complement.as_deref(), Some("Sala 2"));
    assert_eq!(f.address[0].zip_code.as_deref(), Some("50000-000"));
}

/// At a terminal, a command the caller may not run, or a session that no longer holds, is
/// refused before its wizard asks anything: no answers are asked for a request that would fail.
#[tokio::test(flavor = "multi_thread")]
async fn a_wizard_is_not_started_for_a_request_that_would_be_refused() {
    let env = Env::logged_in().await;
    let (_, email) = env.user("Cliente Sem Assistente", &["Cliente"]).await;
    env.login_as("cliente", &email).await;
    let as_client = env.at_terminal(&["facility", "create"]);
    let mut bad_token = env.at_terminal(&["facility", "create"]);
    bad_token.env("REGISTRY_TOKEN", "not.a.token");
    for (cmd, refusal) in [
        (as_client, "needs a staff role"),
        (bad_token, "The token is not valid"),
    ] {
        let before = dialogue("the refusal", move || {
            let mut p = spawn(cmd)?;
            let (before, _) = p.exp_regex(refusal)?;
            p.exp_eof()?;
            Ok(before)
        })
        .await;
        assert!(!before.contains("Name"), "{refusal}: asked {before}");
    }
    assert_eq!(env.facility_count().await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn equipment_and_a_test_are_picked_from_lists_at_the_terminal() {
    let env = Env::logged_in().await;
    env.facility("Clinica Prompts", 78).await;
    let geiger = env.equipment_type_id("Contador Geiger").await;
    env.test_type(
        json!({"name": "Reprodutibilidade", "typeOfEquipment": geiger, "expirationInDays": 365}),
    )
    .await;

    let create = env.at_terminal(&["equipment", "create"]);
    let record = env.at_terminal(&["test", "record"]);
    dialogue("the prompts dialogue", move || {
        let mut p = spawn(create)?;
        answer(&mut p, "Facility", "\r")?;
        answer(&mut p, "Equipment type", "Geiger\r")?;
        reply(&mut p, "Manufacturer", "Ludlum")?;
        reply(&mut p, "Model", "")?;
        reply(&mut p, "Serial number", "G-9")?;
        ends_saying(&mut p, "Registered Contador Geiger Ludlum (SN G-9)")?;

        let mut p = spawn(record)?;
        answer(&mut p, "Facility", "\r")?;
        answer(&mut p, "Equipment", "\r")?;
        answer(&mut p, "Test type", "\r")?;
        answer(&mut p, "Conclusion", "Insat\r")?;
        ends_saying(&mut p, "Recorded Reprodutibilidade")
    })
    .await;
    let due = env
        .admin
        .tests_due(&ListQuery::default().filter("state", "ok"))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].type_of_test.name, "Reprodutibilidade");
    assert_eq!(due[0].equipment.serial_number.as_deref(), Some("G-9"));
    assert_eq!(due[0].equipment.model, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn user_create_offers_only_the_roles_the_caller_may_grant() {
    let env = Env::logged_in().await;
    let (_, fisico) = env.user("Fisico Wizard", &["Físico"]).await;
    let fisico_token = env.token_of(&fisico).await;
    // The Administrator may grant any role: they are offered, none marked.
    let by_admin = env.at_terminal(&["user", "create"]);
    // A Físico may grant only Cliente: nothing to ask, straight to the password.
    let mut by_fisico = env.at_terminal(&["user", "create"]);
    by_fisico.env("REGISTRY_TOKEN", &fisico_token);
    dialogue("the user wizards", move || {
        let mut p = spawn(by_admin)?;
        reply(&mut p, "Name", "Dora Wizard")?;
        reply(&mut p, "E-mail", "dora.wizard@example.com")?;
        // Administrator, Admin, Físico, Laudos, Cliente, none marked: mark Físico only.
        answer(&mut p, "Roles", "jj \r")?;
        creates_user(&mut p, "Password", "Dora Wizard")?;

        let mut p = spawn(by_fisico)?;
        reply(&mut p, "Name", "Ivo Wizard")?;
        reply(&mut p, "E-mail", "ivo.wizard@example.com")?;
        creates_user(&mut p, "Password", "Ivo Wizard")
    })
    .await;
    let roles = |email: &'static str| {
        let admin = env.admin.clone();
        async move {
            let users = admin
                .users(&ListQuery::default().filter("q", email))
                .await
                .unwrap()
                .list;
            users[0]
                .roles
                .iter()
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(",")
        }
    };
    assert_eq!(roles("dora.wizard@example.com").await, "Físico");
    assert_eq!(roles("ivo.wizard@example.com").await, "Cliente");
}

#[tokio::test(flavor = "multi_thread")]
async fn facility_create_asks_for_the_group_when_there_are_groups() {
    let env = Env::logged_in().await;
    for name in ["Rede Leste", "Rede Oeste"] {
        env.admin.register_group(name, None).await.unwrap();
    }
    env.user("Carla Dias", &["Físico"]).await;
    let flags = facility_flags("Clinica Grupo", &cnpj(79));
    let with_group = env.at_terminal(&strs(&flags));
    let other = facility_flags("Clinica Sem Grupo", &cnpj(80));
    let without_group = env.at_terminal(&strs(&other));
    dialogue("the group question", move || {
        let mut p = spawn(with_group)?;
        reply(&mut p, "CNEN registry", "")?;
        answer(&mut p, "Group", "Leste\r")?;
        // A link needs a responsibility: none marked is asked again.
        answer(&mut p, "Link a user", "y\r")?;
        answer(&mut p, "User (type part", "Carla\r")?;
        answer(&mut p, "Responsibilities of Carla Dias", "\r")?;
        answer(&mut p, "mark at least one responsibility", " \r")?;
        registers_unlinked(&mut p, "Clinica Grupo")?;

        let mut p = spawn(without_group)?;
        reply(&mut p, "CNEN registry", "")?;
        answer(&mut p, "Group", "\r")?; // the first choice: no group
        registers_unlinked(&mut p, "Clinica Sem Grupo")
    })
    .await;
    let group_of = async |q: &str| {
        let list = env.facilities_matching(q).await;
        list[0].group.as_ref().map(|g| g.name.clone())
    };
    assert_eq!(
        group_of("Clinica Grupo").await.as_deref(),
        Some("Rede Leste")
    );
    assert_eq!(group_of("Clinica Sem Grupo").await, None);
    let linked = env.json(&["facility", "users", &cnpj(79)]).await;
    assert_eq!(linked.as_array().map(Vec::len), Some(1), "{linked}");
    assert!(
        !linked.to_string().contains("\"responsabilities\":[]"),
        "{linked}"
    );
    // Without a terminal nothing is asked: flags alone register it, without a group.
    env.run(&strs(&facility_flags("Clinica Script", &cnpj(81))))
        .await
        .expect(0);
}

/// Walking the edit wizard keeping every stored value saves nothing, also when the stored
/// radioisotopes (Tc(99m), I(131)) are not in the order the wizard lists them: "Nothing
/// changed.", the facility, exit 0, the version unchanged.
#[tokio::test(flavor = "multi_thread")]
async fn walking_the_edit_wizard_without_changes_saves_nothing() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Intacta", 82).await;
    let cmd = env.at_terminal(&["facility", "edit", &c]);
    dialogue("the unchanged edit", move || {
        let mut p = keep_fields_up_to_links(cmd)?;
        answer(&mut p, "Link a user", "n\r")?;
        p.exp_string("Nothing changed.")?;
        ends_saying(&mut p, "Clinica Intacta")
    })
    .await;
    let shown = env.json(&["facility", "show", &c]).await;
    assert_eq!(shown["version"], 1, "{shown}");
}

/// Prompts check each answer with the core readers and ask again with the reason: a wrong
/// e-mail and a short password at `user create`; a wrong `--cnpj` and `--telephone` given with
/// the facility wizard are asked for first, before any other question, with the value given.
#[tokio::test(flavor = "multi_thread")]
async fn prompts_ask_again_until_the_answer_is_valid() {
    let env = Env::logged_in().await;
    let user = env.at_terminal(&["user", "create"]);
    let good = cnpj(83);
    let mut wrong = good.clone();
    wrong.replace_range(13.., if good.ends_with('0') { "1" } else { "0" });
    let mut flags = facility_flags("Clinica Flags Erradas", &wrong);
    let telephone = flags.iter().position(|f| f == "(81) 3333-4444").unwrap();
    flags[telephone] = "123".into();
    let facility = env.at_terminal(&strs(&flags));
    let last_digit = good[13..].to_owned();
    dialogue("the checked prompts", move || {
        let mut p = spawn(user)?;
        // A terminal in a Latin-1 locale sends `çã` as two bytes that are not UTF-8: refused and
        // asked again, not read as "Eva Conceio".
        p.exp_string("Name")?;
        std::io::Write::write_all(&mut p.writer, b"Eva Concei\xe7\xe3o\n")?;
        reply(&mut p, "is not UTF-8", "Eva Checks")?;
        reply(&mut p, "E-mail", "not-an-email")?;
        reply(
            &mut p,
            "is not a valid e-mail address",
            "eva.checks@example.com",
        )?;
        answer(&mut p, "Roles", "\r")?;
        reply(&mut p, "Password", "short")?;
        creates_user(&mut p, "must have at least 8 characters", "Eva Checks")?;

        let mut p = spawn(facility)?;
        p.exp_string("check digits do not match")?;
        // The value given is the text to correct: the last digit, then the whole telephone.
        reply(&mut p, "CNPJ", &format!("\x7f{last_digit}"))?;
        reply(&mut p, "Telephone", "\x7f\x7f\x7f(81) 3333-4444")?;
        reply(&mut p, "CNEN registry", "")?;
        registers_unlinked(&mut p, "Clinica Flags Erradas")
    })
    .await;
    let list = env.facilities_matching("Clinica Flags Erradas").await;
    assert_eq!(list[0].cnpj, good);
    assert_eq!(list[0].telephone, "(81) 3333-4444");
}

/// `user create` checks the telephone, CPF and licence dates given as flags before the password:
/// without a terminal it fails (exit 4) without reading one, and at a terminal a wrong one is
/// asked for again, with the reason and the value given, before the password prompt.
#[tokio::test(flavor = "multi_thread")]
async fn user_create_checks_its_flags_before_the_password() {
    let env = Env::logged_in().await;
    env.run(&[
        "user",
        "create",
        "--name",
        "Ivo Flags",
        "--email",
        "ivo.flags@example.com",
        "--telephone",
        "123",
        "--an-license-validity",
        "2027-02-30",
    ])
    .await
    .expect(4)
    .says("telephone: must include the area code")
    .says("--an-license-validity: must be a date");

    let cmd = env.at_terminal(&[
        "user",
        "create",
        "--name",
        "Lia Flags",
        "--email",
        "lia.flags@example.com",
        "--telephone",
        "123",
        "--cpf",
        "529.982.247-26",
    ]);
    dialogue("the checked flags", move || {
        // Each refused value is the text to correct: the telephone, then the CPF's last digit.
        let steps = [
            ("--telephone `123`: must include the area code", ""),
            ("Telephone", "\x7f\x7f\x7f(81) 3333-4444\r"),
            ("is not a valid CPF", ""),
            ("CPF", "\x7f5\r"),
            ("Roles", "\r"),
        ];
        let mut p = answering(cmd, &steps)?;
        creates_user(&mut p, "Password", "Lia Flags")
    })
    .await;
    let lia = env.json(&["user", "show", "lia.flags@example.com"]).await;
    assert_eq!(lia["telephone"], "(81) 3333-4444");
    assert_eq!(lia["cpf"], "52998224725");
}

/// `test record` checks its flags (a date in the future, not a date) before asking for the
/// readings of a computed test, or failing for want of them without a terminal.
#[tokio::test(flavor = "multi_thread")]
async fn test_record_checks_its_flags_before_the_readings() {
    let env = Env::logged_in().await;
    let geiger = env.equipment_type_id("Contador Geiger").await;
    env.test_type(
        json!({"name": "Reprodutibilidade", "typeOfEquipment": geiger,
                         "expirationInDays": 365, "kind": "reproducibility"}),
    )
    .await;
    let equipment = env.equipment("Clinica Leituras", 84, &geiger, &[]).await;
    env.run(&record_args(
        &equipment,
        "Reprodutibilidade",
        &["--date", "2026-02-30"],
    ))
    .await
    .expect(4)
    .says("date: must be a date");
    let cmd = env.at_terminal(&record_args(
        &equipment,
        "Reprodutibilidade",
        &["--date", "2999-01-01"],
    ));
    dialogue("the date refused before the readings", move || {
        let mut p = spawn(cmd)?;
        ends_saying(&mut p, "cannot be in the future")
    })
    .await;
}

/// A confirm waits for Enter: the Enter typed after `y` at "Link a user to this facility?" is
/// not taken by the user picker that follows (it used to pick the list's first user), so each
/// user typed is the one linked.
#[tokio::test(flavor = "multi_thread")]
async fn a_confirm_waits_for_enter() {
    let env = Env::logged_in().await;
    env.user("Carla Confirma", &["Físico"]).await;
    env.user("Bruno Confirma", &["Físico"]).await;
    let c = cnpj(83);
    let cmd = env.at_terminal(&strs(&facility_flags("Clinica Confirma", &c)));
    dialogue("links after a confirm", move || {
        let mut p = spawn(cmd)?;
        reply(&mut p, "CNEN registry", "")?;
        for (who, keys) in [("Carla", " \r"), ("Bruno", "\x1b[B \r")] {
            answer(&mut p, "Link a user", "y\r")?;
            answer(&mut p, "User (type part", &format!("{who} Confirma\r"))?;
            answer(&mut p, &format!("Responsibilities of {who} Confirma"), keys)?;
        }
        registers_unlinked(&mut p, "Clinica Confirma")
    })
    .await;
    let linked = env.json(&["facility", "users", &c]).await;
    let held: Vec<(String, String)> = linked
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["name"].as_str().unwrap().to_owned(),
                u["responsabilities"][0].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        held.contains(&("Carla Confirma".into(), "Titular".into()))
            && held.contains(&("Bruno Confirma".into(), "Responsável Técnico".into()))
            && held.len() == 2,
        "{linked}"
    );
}

/// A blank answer at a password prompt is asked again saying why (`✘ is required`), as every
/// other prompt does, and a password typed then logs in.
#[tokio::test(flavor = "multi_thread")]
async fn a_blank_password_is_asked_again_saying_it_is_required() {
    let env = Env::start().await;
    let cmd = env.at_terminal(&[
        "login",
        "--server",
        &env.server,
        "--email",
        crate::harness::ADMIN_EMAIL,
    ]);
    dialogue("a blank password", move || {
        let mut p = spawn(cmd)?;
        reply(&mut p, "Password", "")?;
        p.exp_string("is required")?;
        reply(&mut p, "Password", crate::common::ADMIN_PASSWORD)?;
        ends_saying(&mut p, "Logged in")
    })
    .await;
}

/// Two facilities of one cnpj (one per department) are told apart at the pick list by their
/// department, shown before a name long enough to be cut at the terminal's edge.
#[tokio::test(flavor = "multi_thread")]
async fn a_pick_list_shows_what_tells_the_facilities_apart_first() {
    let env = Env::logged_in().await;
    let name =
        "Clínica São João de Radiodiagnóstico Avançado e Medicina Nuclear do Nordeste Brasileiro";
    let cnpj = cnpj(84);
    let mut flags = facility_flags(name, &cnpj);
    env.run(&strs(&flags)).await.expect(0);
    let department = flags.iter().position(|f| f == "Medicina Nuclear").unwrap();
    flags[department] = "Radiodiagnóstico".into();
    env.run(&strs(&flags)).await.expect(0);
    let show = env.at_terminal(&["facility", "show", &cnpj]);
    dialogue("the facility pick list", move || {
        let mut p = spawn(show)?;
        p.exp_string("Which facility?")?;
        // Newest first, each department before the cnpj (the session reads bytes as Latin-1:
        // only ASCII is matched).
        let departments = [p.exp_string(&cnpj)?, p.exp_string(&cnpj)?];
        assert!(departments[0].contains("Radiodiagn"), "{departments:?}");
        assert!(
            departments[1].ends_with("Medicina Nuclear \u{c2}\u{b7} "),
            "{departments:?}"
        );
        p.send("\r")?;
        p.flush()?;
        p.exp_eof()?;
        Ok(())
    })
    .await;
}
