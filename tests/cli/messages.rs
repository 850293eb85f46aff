//! What the CLI says when the input is wrong: values outside a flag's set (exit 4, naming the
//! flag and the allowed values), command-line parse errors as JSON envelopes under `-o json`,
//! and the server's validation errors in the terms of the flags that produced them.

use crate::harness::Env;

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
