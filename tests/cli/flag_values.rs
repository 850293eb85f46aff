//! Flag values refused before anything is sent: a filter's value outside its set or not a day
//! (exit 4, named by its flag), and without a terminal every missing flag named at once, with
//! the values refused beside them.

use crate::harness::{Env, PASSWORD};

/// `facility list --practice/--department/--radioisotope` filter by closed sets (spec §2.4, §2.5):
/// a value outside them is refused (exit 4) rather than answered with an empty list. A value is
/// read as the server reads the filter (in any case, with or without accents, any run of white
/// space as one space), and an isotope in any of its spellings, as `material receive` takes it.
#[tokio::test(flavor = "multi_thread")]
async fn list_filters_outside_their_sets_are_exit_4_naming_the_allowed_values() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Filtros", 70).await;
    for (flag, value, allowed) in [
        (
            "--practice",
            "Diagnose",
            "Terapia com Internação, Terapia Ambulatorial, Diagnóstico",
        ),
        ("--radioisotope", "Zz(1)", "Tc(99m)"),
    ] {
        env.run(&["facility", "list", flag, value])
            .await
            .expect(4)
            .says(&format!("{flag} `{value}`"))
            .says(allowed);
    }
    for (flag, value) in [
        ("--practice", "Diagnóstico"),
        ("--practice", "diagnostico"),
        ("--department", "MEDICINA\u{a0} nuclear"),
        ("--radioisotope", "Tc-99m"),
    ] {
        let found = env.json(&["facility", "list", flag, value]).await;
        assert_eq!(found[0]["cnpj"], c.as_str(), "{flag} {value}: {found}");
    }
    // The material and waste filters: 4 as well (they were usage errors, 2).
    for noun in ["material", "waste"] {
        env.run(&[noun, "list", "--radioisotope", "Zz"])
            .await
            .expect(4)
            .says("--radioisotope `Zz`");
    }
}

/// Without a terminal every missing flag is named at once, in one run, before anything is looked
/// up; a computed test's readings are asked for as `--measurements` (or `--readings FILE`).
#[tokio::test(flavor = "multi_thread")]
async fn every_missing_flag_is_named_at_once() {
    let env = Env::logged_in().await;
    let pdf = env.write("relatorio.pdf", "%PDF-1.4\n");
    for (args, named) in [
        (
            vec!["document", "upload", pdf.as_str(), "--facility", "x"],
            "--name, --date and --validity are required",
        ),
        (
            vec!["material", "receive", "--activity", "1"],
            "--facility, --radioisotope and --supplier are required",
        ),
        (
            vec!["waste", "store", "--form", "solid"],
            "--facility, --content, --mass and --location are required",
        ),
        (
            vec!["equipment", "create"],
            "--facility and --type are required",
        ),
        (
            vec!["test", "record"],
            "--equipment and --test-type are required",
        ),
    ] {
        env.run(&args).await.expect(2).says(named);
    }
    let rest = ["--content", "I(131)=1", "--mass", "1", "--location", "A"];
    let mut bad_form = vec!["waste", "store", "--facility", "nowhere", "--form", "gas"];
    bad_form.extend(rest);
    env.run(&bad_form)
        .await
        .expect(4)
        .says("--form `gas`: must be one of");
}

/// `user create`, `login`, `test history` and `user password` without a terminal name every
/// missing flag at once too (the password's `--password-stdin` among them), before anything is
/// looked up: `user password --user` says what it lacks before looking the user up.
#[tokio::test(flavor = "multi_thread")]
async fn accounts_and_history_name_every_missing_flag_at_once() {
    let env = Env::logged_in().await;
    for (args, named) in [
        (
            &["user", "create"][..],
            "--name, --email and --password-stdin are required",
        ),
        (
            &["user", "create", "--name", "Nina"],
            "--email and --password-stdin are required",
        ),
        (
            &[
                "user",
                "create",
                "--email",
                "nina@example.com",
                "--password-stdin",
            ],
            "--name is required",
        ),
        // A profile with no server yet: the server is missing too.
        (
            &["--profile", "novo", "login"],
            "--server, --email and --password-stdin are required",
        ),
        (&["login"], "--email and --password-stdin are required"),
        (
            &["test", "history"],
            "--equipment and --test-type are required",
        ),
        (
            &["user", "password", "--user", "nobody@example.com"],
            "--password-stdin is required",
        ),
    ] {
        env.run(args).await.expect(2).says(named);
    }
    // A value given that the local check refuses is said with the missing flags (exit 4).
    env.run(&["user", "create", "--email", "x", "--telephone", "123"])
        .await
        .expect(4)
        .says("--email: ")
        .says("--telephone: ")
        .says("--name: is required")
        .says("--password-stdin: is required");
    env.run(&["login", "--server", "localhost:1"])
        .await
        .expect(2)
        .says("the server URL `localhost:1` (from --server) is not valid");
}

/// `--from` / `--to` of `document list` and `test history` are days, `YYYY-MM-DD`: one that is
/// not (`2026-13-01`, `2026-02-30`) is refused before anything is looked up, named by its flag
/// (not by the API's `dateGte` / `dateLt`), exit 4 and the validation envelope as for the other
/// filter flags (`--status`).
#[tokio::test(flavor = "multi_thread")]
async fn date_filters_are_named_by_their_flags() {
    let env = Env::logged_in().await;
    let history = [
        "test",
        "history",
        "--equipment",
        "nowhere",
        "--test-type",
        "X",
    ];
    let with = |base: &[&'static str], extra: &[&'static str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args
    };
    for (args, said) in [
        (
            with(&["document", "list"], &["--from", "2026-13-01"]),
            "  - --from `2026-13-01`: must be a date as YYYY-MM-DD",
        ),
        (
            with(&["document", "list"], &["--to", "2026-02-30"]),
            "  - --to `2026-02-30`: must be a date as YYYY-MM-DD",
        ),
        (
            with(&history, &["--from", "2026-13-01"]),
            "  - --from `2026-13-01`: must be a date as YYYY-MM-DD",
        ),
        (
            with(&history, &["--to", "2026-1-5"]),
            "  - --to `2026-1-5`: must be a date as YYYY-MM-DD",
        ),
    ] {
        let out = env.run(&args).await.expect(4).says(said);
        assert!(
            !out.stderr.contains("dateGte") && !out.stderr.contains("dateLt"),
            "{}",
            out.stderr
        );
    }
    // Both refused at once.
    env.run(&with(
        &history,
        &["--from", "2026-00-10", "--to", "2026-02-30"],
    ))
    .await
    .expect(4)
    .says("--from `2026-00-10`")
    .says("--to `2026-02-30`");
    // Under -o json, the envelope of a refused filter value: the same shape as `--status`'s,
    // naming the API's filter.
    let mut envelopes = Vec::new();
    for flag in [["--from", "2026-13-01"], ["--status", "nada"]] {
        let args = with(&["document", "list", "-o", "json"], &flag);
        envelopes.push(env.run(&args).await.expect(4).json());
    }
    let (from, status) = (&envelopes[0], &envelopes[1]);
    assert_eq!(from["code"], "validation_failed", "{from}");
    assert_eq!(from["code"], status["code"]);
    assert_eq!(from["message"], status["message"]);
    assert_eq!(from["errors"][0]["field"], "dateGte", "{from}");
    assert_eq!(from["errors"][0]["code"], status["errors"][0]["code"]);
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(from), keys(status));
    // Days that are days still filter.
    env.run(&[
        "document",
        "list",
        "--from",
        "2026-01-01",
        "--to",
        "2027-01-01",
    ])
    .await
    .expect(0);
}

/// An unknown `--role` hides no other refused flag: `user create` and `user edit` name every
/// one at once (exit 4).
#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_role_is_named_with_every_other_refused_flag() {
    let env = Env::logged_in().await;
    let bad = [
        "--email",
        "x",
        "--telephone",
        "123",
        "--cpf",
        "111",
        "--an-license-validity",
        "2026-13-01",
        "--role",
        "Fisico",
    ];
    let mut create = vec!["user", "create", "--name", "Nina", "--password-stdin"];
    create.extend(bad);
    let (_, email) = env.user("Nina Edit", &["Físico"]).await;
    let mut edit = vec!["user", "edit", email.as_str()];
    edit.extend(bad);
    for args in [create, edit] {
        env.run_with(&args, &format!("{PASSWORD}\n"), &[])
            .await
            .expect(4)
            .says("--role `Fisico`: must be one of")
            .says("--email: ")
            .says("--telephone: ")
            .says("--cpf: ")
            .says("--an-license-validity: ");
    }
}

/// `facility create` without a terminal names the values it refuses together with the missing
/// flags (exit 4, as `user create`); only missing flags stay a usage error (exit 2).
#[tokio::test(flavor = "multi_thread")]
async fn facility_create_names_refused_values_with_the_missing_flags() {
    let env = Env::logged_in().await;
    env.run(&[
        "facility",
        "create",
        "--name",
        "X",
        "--cnpj",
        "11222333000182",
    ])
    .await
    .expect(4)
    .says("--cnpj: ")
    .says("--company-name: is required")
    .says("--street: is required");
    env.run(&[
        "facility",
        "create",
        "--name",
        "X",
        "--cnpj",
        "11222333000181",
    ])
    .await
    .expect(2)
    .says("--company-name, --telephone, --department, --street, --city and --state are required");
}
