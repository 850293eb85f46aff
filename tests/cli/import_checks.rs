//! `registry facility import`'s checks before sending: what a dry run predicts or refuses, and
//! every problem of a row named at once, by its CSV column.

use crate::harness::{Env, cnpj, facility_flags, strs};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_predicts_repeated_rows_writes_nothing_and_stripping_is_said() {
    let env = Env::logged_in().await;
    let header = "name,companyName,cnpj,telephone,department,street,city,state\n";
    let row = |name: &str, cnpj: &str| {
        format!("{name},X Ltda,{cnpj},(81) 3333-4444,Medicina Nuclear,Rua,Recife,PE\n")
    };
    let punctuated = crate::harness::punctuated(&cnpj(80));
    let mut csv = String::from(header);
    csv.push_str(&row("V1", &punctuated));
    csv.push_str(&row("V2", &cnpj(81)));
    csv.push_str(&row("V9", &cnpj(80)));
    csv.push_str(&row("Bad", "123"));
    let path = env.write("v.csv", &csv);
    let failures = format!("{path}.failures.csv");

    let dry = env
        .run(&["facility", "import", &path, "--dry-run", "-o", "json"])
        .await
        .expect(1)
        .says("1 cnpj read without punctuation")
        .says("row 2");
    let dry = dry.json();
    assert_eq!(dry["created"], 2);
    assert_eq!(dry["alreadyRegistered"], 1);
    assert_eq!(dry["failed"], 1);
    assert!(
        !std::path::Path::new(&failures).exists(),
        "a dry run writes no failures file"
    );

    // The repeated row is not sent: the first one is what is registered.
    let real = env
        .run(&["facility", "import", &path, "-o", "json"])
        .await
        .expect(1)
        .says("row 4 repeats row 2 (same cnpj and department): skipped")
        .json();
    assert_eq!(real["created"], dry["created"]);
    assert_eq!(real["alreadyRegistered"], dry["alreadyRegistered"]);
    assert!(std::path::Path::new(&failures).exists());
    let stored = env.facilities_matching(&cnpj(80)).await;
    assert_eq!(stored[0].name, "V1");
}

/// A file with nothing to import says so (exit 4); a bad row reports every problem at once — the
/// missing group and each field, named by its CSV column, with a hint for a cnpj whose leading
/// zeros a spreadsheet dropped — so that one pass fixes the file.
#[tokio::test(flavor = "multi_thread")]
async fn an_import_says_everything_wrong_at_once() {
    let env = Env::logged_in().await;
    for (file, text, said) in [
        ("empty.csv", "", "is empty"),
        (
            "other.csv",
            "foo,bar\n1,2\n",
            "no known column in its header row (`foo`, `bar`)",
        ),
        ("header.csv", "name,cnpj\n", "holds no facilities"),
        ("none.json", "[]", "holds no facilities"),
    ] {
        let path = env.write(file, text);
        env.run(&["facility", "import", &path])
            .await
            .expect(4)
            .says(said);
    }
    let path = env.write(
        "bad.csv",
        "name,companyName,cnpj,telephone,department,street,city,state,radioisotopes,practices,group\n\
         Clínica C,C Ltda,191,(81) 3333-4444,Medicina Nuclear,Rua 1,,PE,\"Tc(99m)=1;Xx=3;I(131)\",Nada,Rede X\n",
    );
    let dry = env.import_summary(&path, &["--dry-run"], 1).await;
    let failure = &dry["failures"][0];
    assert_eq!(
        (failure["name"].as_str(), failure["cnpj"].as_str()),
        (Some("Clínica C"), Some("191"))
    );
    let reason = failure["reason"].as_str().unwrap();
    let unsaid: Vec<&str> = [
        "radioisotopes: `I(131)` must be NAME=QUANTITY",
        "group `Rede X`: no group",
        "city ",
        "practices `Nada` ",
        "radioisotopes `Xx=3` ",
        "a spreadsheet may have dropped its leading zeros (with them: 00000000000191)",
    ]
    .into_iter()
    .filter(|said| !reason.contains(said))
    .collect();
    assert!(unsaid.is_empty(), "{unsaid:?} not in: {reason}");
    assert!(!reason.contains("address[0]"), "{reason}");
}

/// The local check runs every rule the row alone decides, one holder per facility of a main role
/// among them: a dry run refuses what the real import would (naming the links by their places in
/// the file, also after a link to a user not on this server) and the real import sends nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_refuses_two_holders_of_one_main_role() {
    let env = Env::logged_in().await;
    let (_, ana) = env.user("Ana Titular", &["Cliente"]).await;
    let (_, bia) = env.user("Bia Titular", &["Cliente"]).await;
    let row = |n: u64, users: serde_json::Value| {
        json!({
            "name": format!("Duas Titulares {n}"), "companyName": "D Ltda", "cnpj": cnpj(n),
            "telephone": "(81) 3333-4444", "department": "Medicina Nuclear",
            "address": [{"street": "Rua 1", "city": "Recife", "state": "PE"}], "users": users,
        })
    };
    let titular = |email: &str| json!({"email": email, "responsabilities": ["Titular"]});
    let missing = json!({"email": "ninguem@example.com", "responsabilities": ["Substituto"]});
    let rows = json!([
        row(720, json!([titular(&ana), titular(&bia)])),
        row(721, json!([missing, titular(&ana), titular(&bia)])),
    ]);
    let path = env.write("titulares.json", &rows.to_string());
    let dry = env.import_summary(&path, &["--dry-run"], 1).await;
    assert_eq!(
        (dry["created"].as_u64(), dry["failed"].as_u64()),
        (Some(0), Some(2)),
        "{dry}"
    );
    let reason = |i: usize| dry["failures"][i]["reason"].as_str().unwrap().to_owned();
    let one_holder = "responsabilities[0] Titular can have only one holder per facility";
    assert!(
        reason(0).contains(&format!("users[1].{one_holder}")),
        "{}",
        reason(0)
    );
    let both = reason(1);
    assert!(both.contains(&format!("users[2].{one_holder}")), "{both}");
    assert!(
        both.contains("user `ninguem@example.com`: no user"),
        "{both}"
    );
    env.run(&["facility", "import", &path])
        .await
        .expect(1)
        .says("2 of 2 facilities failed");
    assert_eq!(env.facility_count().await, 0);
}

/// A row whose linked user holds a custom responsibility is not promised by a dry run: the
/// server decides which custom ones it accepts (`REGISTRY_EXTRA_RESPONSIBILITIES`, not
/// published), so it is counted apart, naming the responsibility.
#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_does_not_promise_a_custom_responsibility() {
    let env = Env::logged_in().await;
    let (_, email) = env.user("Carla Custom", &["Físico"]).await;
    let row = |name: &str, cnpj: String, role: &str| {
        json!({
            "name": name, "companyName": "X Ltda", "cnpj": cnpj,
            "telephone": "(81) 3333-4444", "department": "Medicina Nuclear",
            "address": [{"street": "Rua", "city": "Recife", "state": "PE"}],
            "users": [{"email": email, "responsabilities": [role]}],
        })
    };
    let rows = json!([
        row("Com Enfermeiro", cnpj(65), "Enfermeiro"),
        row("Com Titular", cnpj(66), "Titular"),
    ]);
    let path = env.write("custom.json", &rows.to_string());
    let table = env
        .run(&["facility", "import", &path, "--dry-run"])
        .await
        .expect(0)
        .stdout;
    assert!(table.contains("     1 would be created\n"), "{table}");
    assert!(
        table.contains("1 would be created if the server accepts the responsibility `Enfermeiro`"),
        "{table}"
    );
    let dry = env.json(&["facility", "import", &path, "--dry-run"]).await;
    assert_eq!(dry["created"], 1, "{dry}");
    assert_eq!(dry["createdIfAccepted"], 1, "{dry}");
    assert_eq!(
        dry["responsibilitiesToCheck"],
        json!(["Enfermeiro"]),
        "{dry}"
    );
    // The server refuses the responsibility before it looks for a duplicate: a row it refuses
    // whose facility is registered already is skipped, not failed.
    env.run(&strs(&facility_flags("Com Enfermeiro", &cnpj(65))))
        .await
        .expect(0);
    let run = env.json(&["facility", "import", &path]).await;
    assert_eq!(
        (run["created"].as_u64(), run["alreadyRegistered"].as_u64()),
        (Some(1), Some(1)),
        "{run}"
    );
    // A row of that cnpj whose department is missing or not one of the list names no facility:
    // it fails, in the dry run and the real one alike.
    let mut missing = row("Sem Departamento", cnpj(65), "Titular");
    missing["department"] = json!("");
    let mut unknown = row("Departamento Errado", cnpj(65), "Titular");
    unknown["department"] = json!("medicina nuclear");
    let path = env.write("no-department.json", &json!([missing, unknown]).to_string());
    for dry_run in [&["--dry-run"][..], &[]] {
        let run = env.import_summary(&path, dry_run, 1).await;
        assert_eq!(
            (run["alreadyRegistered"].as_u64(), run["failed"].as_u64()),
            (Some(0), Some(2)),
            "{run}"
        );
    }
}

/// A CSV row with no address names its three columns in the plural.
#[tokio::test(flavor = "multi_thread")]
async fn a_row_without_an_address_says_its_columns_are_required() {
    let env = Env::logged_in().await;
    let csv = format!(
        "name,companyName,cnpj,telephone,department\nSem Endereco,X Ltda,{},(81) 3333-4444,Medicina Nuclear\n",
        cnpj(68)
    );
    let path = env.write("no-address.csv", &csv);
    let out = env
        .run(&["facility", "import", &path, "--dry-run"])
        .await
        .expect(1);
    assert!(
        out.stdout.contains("street, city and state are required"),
        "{}",
        out.stdout
    );
}

/// What a file holds reaches the terminal escaped where it would steer it: an escape sequence
/// in a name would clear the screen and print a green "all good" over the failures.
#[tokio::test(flavor = "multi_thread")]
async fn an_imported_files_control_characters_are_shown_escaped() {
    let env = Env::logged_in().await;
    let csv = format!(
        "name,companyName,cnpj,telephone,department,street,city,state,radioisotopes\n\
         Imp\u{1b}[2J\u{1b}[32mALL GOOD,X Ltda,{},(81) 3333-4444,Medicina Nuclear,Rua,Recife,PE,Tc\u{1b}[8m=5\n",
        cnpj(69)
    );
    let path = env.write("escapes.csv", &csv);
    for flags in [&["--dry-run"][..], &[]] {
        let mut args = vec!["facility", "import", &path];
        args.extend_from_slice(flags);
        let out = env.run(&args).await.expect(1);
        for said in [&out.stdout, &out.stderr] {
            assert!(!said.contains('\u{1b}'), "{said:?}");
        }
        assert!(
            out.stdout.contains("Imp\\u{1b}[2J\\u{1b}[32mALL GOOD")
                && out.stdout.contains("Tc\\u{1b}[8m=5"),
            "{}",
            out.stdout
        );
    }
}
