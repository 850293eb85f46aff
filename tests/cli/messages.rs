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
