//! What the CLI says when the input is wrong: values outside a flag's set (exit 4, naming the
//! flag and the allowed values), command-line parse errors as JSON envelopes under `-o json`,
//! and the server's validation errors in the terms of the flags that produced them.

use crate::harness::{Env, PASSWORD, strs};

/// `facility list --practice/--radioisotope` filter by closed sets (spec §2.4, §2.5): a value
/// outside them is refused (exit 4) rather than answered with an empty list; an isotope is
/// taken in any of its spellings, as `material receive` takes it.
#[tokio::test(flavor = "multi_thread")]
async fn list_filters_outside_their_sets_are_exit_4_naming_the_allowed_values() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Filtros", 70).await;
    for (flag, value, allowed) in [
        (
            "--practice",
            "Diagnostico",
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
    for (flag, value) in [("--practice", "Diagnóstico"), ("--radioisotope", "Tc-99m")] {
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

/// Under `-o json` a command line clap cannot read (a bad value, an unknown subcommand, a missing
/// argument) still gives the error envelope on stdout, code `usage`, exit 2, with clap's own text
/// on stderr; `--help` stays help.
#[tokio::test(flavor = "multi_thread")]
async fn parse_errors_under_json_output_print_the_usage_envelope() {
    let env = Env::start().await;
    for (args, message) in [
        (
            &["facility", "list", "--page", "0", "-o", "json"][..],
            "'--page <PAGE>'",
        ),
        (
            &["facilty", "list", "-o", "json"][..],
            "unrecognized subcommand 'facilty'",
        ),
        (
            &["-o", "json", "facility", "show"][..],
            "not provided: <FACILITY>",
        ),
        // A decimal comma, as a Brazilian user types it: how to write it instead.
        (
            &["material", "receive", "--activity", "1,5", "-o", "json"][..],
            "'1,5' for '--activity <ACTIVITY>': use a dot as the decimal separator: 1.5",
        ),
    ] {
        let out = env.run(args).await.expect(2).says("error: ");
        let envelope = out.json();
        assert_eq!(envelope["code"], "usage", "{envelope}");
        assert!(
            envelope["message"].as_str().unwrap().contains(message),
            "{envelope}"
        );
    }
    let plain = env
        .run(&["facility", "list", "--page", "0"])
        .await
        .expect(2);
    assert!(plain.stdout.is_empty(), "{}", plain.stdout);
    let help = env
        .run(&["facility", "list", "--help", "-o", "json"])
        .await
        .expect(0);
    assert!(help.stdout.contains("Usage:"), "{}", help.stdout);
}

/// A refusal names the flags the person typed, not the API's paths: `--street`, the `--isotope`
/// as given, `--cnpj`; `--role` the same in `user create` as in `user list`; the passwords of
/// `user password` once each, as the prompts name them; a computed test's refused or missing
/// `--measurements` with the shape they should have.
#[tokio::test(flavor = "multi_thread")]
async fn refusals_name_the_flags_typed_with_the_servers_reasons() {
    let env = Env::start_configured(|c| c.qc_catalogue = true).await;
    env.login_admin().await;
    let out = env
        .run(&[
            "facility",
            "create",
            "--name",
            "X",
            "--company-name",
            "Y",
            "--cnpj",
            "11222333000182",
            "--telephone",
            "123",
            "--department",
            "Medicina Nuclear",
            "--street",
            "",
            "--city",
            "C",
            "--state",
            "PE",
            "--isotope",
            "Xx(1)=1,5",
        ])
        .await
        .expect(4)
        .says("  - --cnpj: check digits do not match")
        .says("  - --telephone: must include the area code")
        .says("  - --street: cannot be empty")
        .says("  - --isotope `Xx(1)=1,5`: must be one of: C(11)")
        .says("  - --isotope `Xx(1)=1,5`: must be a positive number");
    assert!(!out.stderr.contains("address[0]") && !out.stderr.contains("radioisotopes["));
    env.run(&[
        "user",
        "create",
        "--name",
        "Z",
        "--email",
        "z@example.com",
        "--role",
        "Fisico",
    ])
    .await
    .expect(4)
    .says("  - --role `Fisico`: must be one of:");

    // The server's 422 on the new password: said once, named as the prompt names it.
    let out = env
        .run_with(
            &["user", "password", "--password-stdin"],
            "admin-password-1\nshort\n",
            &[],
        )
        .await;
    let said = out.stderr.matches("at least 8 characters").count();
    assert_eq!(said, 1, "{}", out.stderr);
    assert!(!out.stderr.contains("newPassword"), "{}", out.stderr);
    // A recovery code the server does not know is named by its flag, not the API's `token`.
    let code = "0".repeat(64);
    let out = env
        .run_with(
            &[
                "user",
                "reset-password",
                "--code",
                &code,
                "--password-stdin",
            ],
            "a-good-new-password\n",
            &[],
        )
        .await
        .expect(4)
        .says("  - --code: ");
    assert!(!out.stderr.contains("token"), "{}", out.stderr);

    let equipment = env.equipment("Clinica Qc", 72, "Gama Câmara", &[]).await;
    for given in [&["--measurements", "{}"][..], &[][..]] {
        let args = crate::harness::record_args(&equipment, "Uniformidade", given);
        let out = env.run(&args).await;
        assert!(matches!(out.code, 2 | 4), "{out:?}");
        out.says(r#"hint: a recorded test's --measurements look like '{"values": {"#)
            .says("integralUfov");
    }
    // Measurements that are not JSON are a refused value (exit 4), as a file's content is.
    let args = crate::harness::record_args(&equipment, "Uniformidade", &["--measurements", "{bad"]);
    env.run(&args)
        .await
        .expect(4)
        .says("--measurements is not valid JSON");
}

/// A server URL with a wrong path gets 404 on every call: the error names the URL tried and says
/// the server URL may be wrong; a record that does not exist is still just not found.
#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_base_path_names_the_url_and_the_likely_cause() {
    let env = Env::logged_in().await;
    let token = env.admin.token().unwrap().to_owned();
    let wrong = format!("{}/wrong/", env.server);
    env.run(&["--server", &wrong, "--token", &token, "facility", "list"])
        .await
        .expect(5)
        .says(&format!(
            "no such endpoint: {}/wrong/api/facilities",
            env.server
        ))
        .says("Check the server URL");
    let missing = env
        .run(&["facility", "show", "no-such-facility"])
        .await
        .expect(5);
    assert!(!missing.stderr.contains("server URL"), "{}", missing.stderr);
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

/// Small wording points: a count of one in the singular, stdin named as such, a page size over
/// the largest refused, the unit in the usage headers, `active` the same in a list and a record.
#[tokio::test(flavor = "multi_thread")]
async fn counts_units_and_names_read_right() {
    let env = Env::logged_in().await;
    env.admin.register_group("Rede Uma", None).await.unwrap();
    let mut flags = crate::harness::facility_flags("Clinica Grupo", &crate::harness::cnpj(73));
    flags.extend(["--group".into(), "Rede Uma".into()]);
    env.run(&crate::harness::strs(&flags)).await.expect(0);
    let group_delete = ["group", "delete", "Rede Uma", "--yes"];
    let from_stdin = ["facility", "create", "--from-file", "-"];
    let page_size = ["facility", "list", "--page-size", "500"];
    for (args, stdin, code, said) in [
        (&group_delete, "", 5, "used by 1 facility;"),
        (&from_stdin, "{nope", 4, "standard input is not valid JSON"),
        (&page_size, "", 2, "--page-size"),
    ] {
        env.run_with(args, stdin, &[]).await.expect(code).says(said);
    }
    let usage = env
        .run(&[
            "material",
            "usage",
            "--facility",
            &crate::harness::cnpj(73),
            "-o",
            "csv",
        ])
        .await
        .expect(0);
    // The week's bounds in Brasília time, to the second (JSON keeps the API's UTC).
    assert!(
        usage.stderr.contains(" 00:00:00 -03:00 to ") && !usage.stderr.contains(".000000Z"),
        "{}",
        usage.stderr
    );
    assert!(
        usage
            .stdout
            .starts_with("radioisotope,authorised mCi,received mCi,remaining mCi,"),
        "{}",
        usage.stdout
    );
    let (_, email) = env.user("Ativa Sim", &["Cliente"]).await;
    let listed = env
        .run(&["user", "list", "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    let shown = env
        .run(&["user", "show", &email, "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    assert!(listed.contains(",yes"), "{listed}");
    assert!(shown.contains(",Cliente,yes,"), "{shown}");
}

/// A refusal for the role says which roles may do it, and which the caller has.
#[tokio::test(flavor = "multi_thread")]
async fn permission_denied_names_the_roles_needed() {
    let env = Env::logged_in().await;
    env.admin
        .register_group("Rede Nordeste", None)
        .await
        .unwrap();
    let (_, email) = env.user("Ana Fisica", &["Físico"]).await;
    env.login_as("ana", &email).await;
    env.run(&[
        "--profile",
        "ana",
        "group",
        "delete",
        "Rede Nordeste",
        "--yes",
    ])
    .await
    .expect(3)
    .says("permission denied")
    .says("hint: `group delete` needs the Administrator role (you are Físico)");
    // The user commands, refused for the role of the user or the role given, say so too.
    let (_, other_admin) = env.user("Outra Admin", &["Administrator"]).await;
    let as_ana = |args: &[&str]| {
        let mut all = vec!["--profile", "ana"];
        all.extend(args);
        all.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let manage =
        "hint: `user {}` needs the Administrator role for a user with a role other than Cliente";
    for (args, hint) in [
        (
            as_ana(&[
                "user",
                "edit",
                &other_admin,
                "--telephone",
                "(81) 3333-4444",
            ]),
            manage.replace("{}", "edit"),
        ),
        (
            as_ana(&[
                "user",
                "create",
                "--name",
                "Nova Admin",
                "--email",
                "nova.admin@example.com",
                "--role",
                "Admin",
                "--password-stdin",
            ]),
            manage.replace("{}", "create"),
        ),
        (
            as_ana(&[
                "user",
                "password",
                "--user",
                &other_admin,
                "--password-stdin",
            ]),
            "hint: `user password` needs the Administrator role to set another user's password"
                .to_owned(),
        ),
    ] {
        env.run_with(&strs(&args), &format!("{PASSWORD}\n"), &[])
            .await
            .expect(3)
            .says(&hint)
            .says("(you are Físico)");
    }
    // A read only staff may make: the history of a facility, for a Cliente linked to it.
    let id = env.facility("Clinica Historia", 57).await;
    let (_, cliente) = env.user("Cleo Cliente", &["Cliente"]).await;
    env.assign(&id, &cliente, "Titular").await;
    env.login_as("cleo", &cliente).await;
    env.run(&["--profile", "cleo", "facility", "history", &id])
        .await
        .expect(3)
        .says("hint: `facility history` needs a staff role")
        .says("(you are Cliente)");
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

/// The smaller messages: `document verify` without a document says one of the two flags is
/// needed; `document return` without `--text` says so before looking the document up; a page
/// past the last says so; `user password --password-stdin` with one line names the missing new
/// password; `whoami` without a token at a server that is down names the server, not an
/// internal path.
#[tokio::test(flavor = "multi_thread")]
async fn small_messages_say_what_is_wrong() {
    let env = Env::logged_in().await;
    let file = env.write("f.pdf", "%PDF-1.4\n");
    env.run(&["document", "verify", &file])
        .await
        .expect(2)
        .says("one of --document ID")
        .says("--document-json");
    env.run(&["document", "return", "no-such-document"])
        .await
        .expect(2)
        .says("--text is required");
    env.facility("Clinica Pagina", 71).await;
    let out = env
        .run(&["facility", "list", "--page", "9"])
        .await
        .expect(0);
    assert!(
        out.stderr.contains("page 9 is past the end")
            && out.stderr.contains("the only page is --page 1"),
        "{}",
        out.stderr
    );
    env.run_with(
        &["user", "password", "--password-stdin"],
        "old-password\n",
        &[],
    )
    .await
    .expect(2)
    .says("no new one: give the new password on the second line");
    let out = env
        .run(&[
            "--server",
            "http://127.0.0.1:9",
            "--profile",
            "none",
            "whoami",
        ])
        .await
        .expect(1)
        .says("http://127.0.0.1:9/api (whoami checks that the server answers");
    assert!(!out.stderr.contains("signing-key"), "{}", out.stderr);
}
