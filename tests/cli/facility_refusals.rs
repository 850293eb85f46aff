//! What `registry facility create` and `edit` refuse, and how they say it: every missing flag or
//! problem of a file named at once, a value outside a flag's set, a cnpj's spaces, the `-o json`
//! error envelope.

use crate::harness::{Env, cnpj, facility_flags, punctuated, strs};

#[tokio::test(flavor = "multi_thread")]
async fn create_without_a_terminal_names_every_missing_flag() {
    let env = Env::logged_in().await;

    // --no-input with only some flags: a usage error naming each missing flag, nothing sent.
    let out = env
        .run(&[
            "facility",
            "create",
            "--no-input",
            "--name",
            "Clinica Partial",
            "--company-name",
            "Partial Ltda",
            "--city",
            "Recife",
        ])
        .await
        .expect(2);
    for flag in [
        "--cnpj",
        "--telephone",
        "--department",
        "--street",
        "--state",
    ] {
        assert!(
            out.stderr.contains(flag),
            "{flag} not named:\n{}",
            out.stderr
        );
    }
    for given in ["--name", "--company-name", "--city"] {
        assert!(
            !out.stderr.contains(given),
            "{given} named:\n{}",
            out.stderr
        );
    }
    // Not the field-by-field validation errors (exit 4) of the local check or the server.
    assert!(!out.stderr.contains("  - "), "{}", out.stderr);

    // No flags at all and stdin not a terminal (no --no-input): the same, naming every field.
    env.run(&["facility", "create"])
        .await
        .expect(2)
        .says("--name, --company-name, --cnpj, --telephone, --department, --street, --city and --state are required");

    // One missing flag is named alone.
    let mut flags = facility_flags("Clinica Almost", &cnpj(7));
    let at = flags.iter().position(|f| f == "--telephone").unwrap();
    flags.drain(at..at + 2);
    env.run(&strs(&flags))
        .await
        .expect(2)
        .says("--telephone is required");

    assert_eq!(env.facility_count().await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_value_outside_a_flags_set_is_exit_4_in_filters_and_in_records() {
    let env = Env::logged_in().await;
    let mut bad_department = facility_flags("Clinica Dept", &cnpj(50));
    let at = bad_department
        .iter()
        .position(|f| f == "Medicina Nuclear")
        .unwrap();
    bad_department[at] = "Foo".into();
    env.run(&strs(&bad_department)).await.expect(4);
    env.expect_each(&[
        (
            &["facility", "list", "--department", "Foo"],
            4,
            "--department `Foo`",
        ),
        // (`user create --role Bogus`: 4 too, users_groups.rs.)
        (&["user", "list", "--role", "Bogus"], 4, "--role `Bogus`"),
        (&["test", "due", "--state", "ok,nope"], 4, "--state `nope`"),
    ])
    .await;
    env.run(&["document", "list", "--status", "nope"])
        .await
        .expect(4);
    env.run(&["notices", "--kind", "nope"]).await.expect(4);
}

/// With `-o json` a failure prints the error envelope on stdout (the `_id` of the facility
/// already registered, the failing fields), with the exit code unchanged and the text on stderr.
#[tokio::test(flavor = "multi_thread")]
async fn json_output_prints_the_error_envelope() {
    let env = Env::logged_in().await;
    let flags = facility_flags("Clinica Envelope", &cnpj(41));
    let mut args = strs(&flags);
    args.extend(["-o", "json"]);
    let id = env.run(&args).await.expect(0).id();

    let again = env.run(&args).await.expect(5).says("already registered");
    let envelope = again.json();
    assert_eq!(envelope["code"], "duplicate_facility");
    assert_eq!(envelope["_id"], id.as_str());
    assert!(envelope["message"].as_str().is_some_and(|m| !m.is_empty()));

    let missing = env
        .run(&["facility", "show", "nope", "-o", "json"])
        .await
        .expect(5);
    assert!(missing.json()["message"].is_string(), "{}", missing.stdout);

    let invalid = env
        .run(&["facility", "edit", &id, "--telephone", "123", "-o", "json"])
        .await
        .expect(4);
    let envelope = invalid.json();
    assert_eq!(envelope["code"], "validation_failed");
    assert_eq!(envelope["errors"][0]["field"], "telephone", "{envelope}");
    // A list filter's refused value: the envelope names the API's filter, the text the flag.
    for (args, filter) in [
        (["user", "list", "--role", "Medico"], "role"),
        (["facility", "list", "--practice", "Diagnose"], "practice"),
        (["material", "list", "--radioisotope", "Zz"], "radioisotope"),
        (["waste", "list", "--radioisotope", "Zz"], "radioisotope"),
    ] {
        let refused = env
            .run(&[&args[..], &["-o", "json"]].concat())
            .await
            .expect(4);
        assert_eq!(
            refused.json()["errors"][0]["field"],
            filter,
            "{}",
            refused.stdout
        );
        env.run(&args)
            .await
            .expect(4)
            .says(&format!("--{filter} `{}`", args[3]));
    }

    // Without `-o json` stdout stays empty.
    let table = env.run(&strs(&flags)).await.expect(5);
    assert!(table.stdout.is_empty(), "{}", table.stdout);
}

/// `facility create --from-file` names everything wrong with the payload at once, as the server
/// would: what the payload alone decides (a required field, a radioisotope listed twice, two
/// Titulares) together with what needs the server (a user not found, a deactivated one, a group
/// not found), exit 4. A group not found alone stays exit 5; a payload the local check passes but
/// the server refuses is shown with the server's whole list.
#[tokio::test(flavor = "multi_thread")]
async fn create_from_a_file_names_every_problem_at_once() {
    let env = Env::logged_in().await;
    let (ana, _) = env.user("Ana Dupla", &["Cliente"]).await;
    let (bia, _) = env.user("Bia Dupla", &["Cliente"]).await;
    let (off, off_email) = env.user("Cleo Inativa", &["Cliente"]).await;
    env.run(&["user", "deactivate", &off_email, "--yes"])
        .await
        .expect(0);
    let payload = |cnpj: String| {
        serde_json::json!({
            "name": "Clinica Tudo Errado", "companyName": "T Ltda", "cnpj": cnpj,
            "telephone": "(81) 3333-4444", "department": "Medicina Nuclear",
            "address": [{"street": "Rua 1", "city": "Recife", "state": "PE"}],
        })
    };
    let mut wrong = payload(cnpj(60));
    let fields = wrong.as_object_mut().unwrap();
    fields.remove("telephone");
    fields.insert("group".into(), "Rede Inexistente".into());
    fields.insert(
        "radioisotopes".into(),
        serde_json::json!([{"name": "Tc(99m)", "quantity": 1}, {"name": "Tc(99m)", "quantity": 2}]),
    );
    fields.insert(
        "users".into(),
        serde_json::json!([
            {"_id": "no-such-user", "responsabilities": ["Substituto"]},
            {"_id": off, "responsabilities": []},
            {"_id": ana, "responsabilities": ["Titular"]},
            {"_id": bia, "responsabilities": ["Titular"]},
        ]),
    );
    let path = env.write("wrong.json", &wrong.to_string());
    let out = env
        .run(&["facility", "create", "--from-file", &path, "-o", "json"])
        .await
        .expect(4)
        .says("no group with _id or name `Rede Inexistente`")
        .says("Titular can have only one holder per facility");
    let codes: Vec<String> = out.json()["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", out.stdout))
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_owned())
        .collect();
    for code in [
        "required",
        "duplicate_radioisotope",
        "user_not_found",
        "user_inactive",
        "duplicate_role",
        "group_not_found",
    ] {
        assert!(codes.iter().any(|c| c == code), "{code} not in {codes:?}");
    }
    assert_eq!(env.facility_count().await, 0);

    // A group not found is, alone, not found.
    let mut only_group = payload(cnpj(61));
    only_group["group"] = "Rede Inexistente".into();
    let path = env.write("group.json", &only_group.to_string());
    env.run(&["facility", "create", "--from-file", &path])
        .await
        .expect(5)
        .says("no group with _id or name `Rede Inexistente`");

    // Only the server knows these: its answer is shown whole.
    let mut server_only = payload(cnpj(62));
    server_only["users"] = serde_json::json!([
        {"_id": "no-such-user", "responsabilities": ["Substituto"]},
        {"_id": off, "responsabilities": ["Titular"]},
    ]);
    let path = env.write("server.json", &server_only.to_string());
    env.run(&["facility", "create", "--from-file", &path])
        .await
        .expect(4)
        .says("users[0]._id: names no user with _id no-such-user")
        .says(&format!(
            "users[1]._id: names user {off}, who is deactivated"
        ));
}

/// A cnpj with spaces around it (` 11222333000181`, a trailing tab) is read without them and
/// said so, as punctuation is, on create and edit; the note says "read", not "sent", since a
/// cnpj the local check then refuses is never sent.
#[tokio::test(flavor = "multi_thread")]
async fn spaces_around_a_cnpj_are_stripped_and_said() {
    let env = Env::logged_in().await;
    let bare = cnpj(61);
    let spaced = format!(" {bare}");
    let flags = facility_flags("Clinica Espaco", &spaced);
    let out = env.run(&strs(&flags)).await.expect(0);
    assert!(
        out.stderr
            .contains(&format!("read without the spaces around it as {bare}")),
        "{}",
        out.stderr
    );
    let tabbed = format!("{bare}\t");
    env.run(&["facility", "edit", &bare, "--cnpj", &tabbed])
        .await
        .expect(0)
        .says(&format!("read without the spaces around it as {bare}"));

    let mut wrong = punctuated(&cnpj(62));
    wrong.replace_range(
        wrong.len() - 1..,
        if wrong.ends_with('0') { "1" } else { "0" },
    );
    let out = env
        .run(&strs(&facility_flags("Clinica Errada", &wrong)))
        .await
        .expect(4)
        .says("read without punctuation as");
    assert!(!out.stderr.contains("sent without"), "{}", out.stderr);
}
