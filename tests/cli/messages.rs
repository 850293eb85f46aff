//! What the CLI says when the input is wrong: command-line parse errors as JSON envelopes under
//! `-o json`, the server's validation errors in the terms of the flags that produced them, and
//! the smaller wordings. Flag values refused before sending are in `flag_values`.

use crate::harness::{Env, PASSWORD, strs};

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
