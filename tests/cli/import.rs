//! `registry facility import`: a summary, a failures file, a second run that creates nothing,
//! stdin and Excel's CSV, an export imported on another server; what a dry run predicts or
//! refuses is in `import_checks`.

use crate::harness::{Env, PASSWORD, cnpj, facility_flags, strs};
use registry_core::api::UserInput;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn importing_a_csv_twice_creates_nothing_the_second_time() {
    let env = Env::logged_in().await;
    let mut csv = String::from(
        "name,companyName,cnpj,telephone,department,street,city,state,practices,radioisotopes\n",
    );
    for n in 0..12 {
        csv.push_str(&format!(
            "Import {n},Import Ltda,{},(11) 3333-4444,Medicina Nuclear,Rua {n},São Paulo,SP,Diagnóstico;Terapia Ambulatorial,Tc(99m)=1500;I(131)=200.5\n",
            cnpj(500 + n)
        ));
    }
    // Two bad rows: a comma decimal, and a wrong department.
    csv.push_str(&format!(
        "Bad Quantity,X,{},(11) 3333-4444,Medicina Nuclear,R,C,SP,,\"Tc(99m)=1,5\"\n",
        cnpj(600)
    ));
    csv.push_str(&format!(
        "Bad Department,X,{},(11) 3333-4444,Cardiologia,R,C,SP,,\n",
        cnpj(601)
    ));
    let path = env.write("facilities.csv", &csv);

    let dry = env.import_summary(&path, &["--dry-run"], 1).await;
    assert_eq!(dry["created"], 12);
    assert_eq!(dry["failed"], 2);
    assert_eq!(env.facility_count().await, 0, "a dry run registers nothing");

    let first = env
        .run(&["facility", "import", &path, "--concurrency", "4"])
        .await
        .expect(1);
    assert!(first.stdout.contains("    12 created"), "{}", first.stdout);
    assert!(first.stdout.contains("     2 failed"), "{}", first.stdout);
    assert!(
        first.stdout.contains("radioisotopes `Tc(99m)=1,5` must be"),
        "{}",
        first.stdout
    );
    let failures = std::fs::read_to_string(format!("{path}.failures.csv")).unwrap();
    assert!(failures.starts_with("row,name,cnpj,reason"), "{failures}");
    assert!(
        failures.contains("Bad Department") && failures.contains("department must be one of"),
        "{failures}"
    );
    assert_eq!(failures.lines().count(), 3);

    let second = env.import_summary(&path, &[], 1).await;
    assert_eq!(second["created"], 0);
    assert_eq!(second["alreadyRegistered"], 12);
    assert_eq!(env.facility_count().await, 12);
    let f = &env.facilities_matching("Import 3").await[0];
    assert_eq!(f.practices.len(), 2);
    assert_eq!(f.radioisotopes[1].quantity, 200.5);

    // A clean file imports with exit 0; JSON input works too.
    let json = serde_json::json!([{
        "name": "Json One", "companyName": "J", "cnpj": cnpj(700), "telephone": "(11) 3333-4444",
        "department": "Radiodiagnóstico", "address": [{"street": "R", "city": "C", "state": "SP"}]
    }]);
    let path = env.write("facilities.json", &json.to_string());
    env.run(&["facility", "import", &path]).await.expect(0);
}

/// An export is importable on another server: the group goes by name (an `_id` is the exporting
/// server's own), and the linked users of a JSON export are found by e-mail.
#[tokio::test(flavor = "multi_thread")]
async fn an_export_imports_on_another_server() {
    let a = Env::logged_in().await;
    a.run(&["group", "create", "--name", "Rede Centro"])
        .await
        .expect(0);
    let (_, linked) = a.user("Titular Export", &["Cliente"]).await;
    for (name, n) in [("Export Um", 810), ("Export Dois", 811)] {
        let mut flags = facility_flags(name, &cnpj(n));
        flags.extend(["--group".into(), "Rede Centro".into()]);
        a.run(&strs(&flags)).await.expect(0);
    }
    a.run(&[
        "facility",
        "assign",
        &cnpj(811),
        "--user",
        &linked,
        "--role",
        "Titular",
    ])
    .await
    .expect(0);
    let exported = a.run(&["facility", "export"]).await.expect(0);
    // CSV holds no linked users: the export says which facility lost them, pointing to JSON.
    let warned = &exported.stderr;
    assert!(
        warned.contains("1 facility lost some")
            && warned.contains(&format!("Export Dois ({}): 1 linked user", cnpj(811)))
            && !warned.contains("Export Um")
            && warned.contains("--format json"),
        "{warned}"
    );
    let csv = exported.stdout;
    assert!(csv.contains(",Rede Centro,"), "the group by name:\n{csv}");
    let json = a
        .run(&["facility", "export", "--format", "json"])
        .await
        .expect(0)
        .stdout;

    let b = Env::logged_in().await;
    let csv_path = b.write("export.csv", &csv);
    let json_path = b.write("export.json", &json);
    // No such group here yet: each row fails, naming it; nothing is registered.
    b.run(&["facility", "import", &csv_path])
        .await
        .expect(1)
        .says("2 facilities failed");
    let failures = std::fs::read_to_string(format!("{csv_path}.failures.csv")).unwrap();
    assert!(failures.contains("group `Rede Centro`"), "{failures}");
    assert_eq!(b.facility_count().await, 0);

    // The same group name (case aside) and a user with the same e-mail on this server.
    b.run(&["group", "create", "--name", "rede centro"])
        .await
        .expect(0);
    b.admin
        .register_user(&UserInput {
            name: Some("Titular Aqui".into()),
            email: Some(linked.clone()),
            password: Some(PASSWORD.into()),
            ..UserInput::default()
        })
        .await
        .unwrap();
    // A deactivated user cannot be linked: the dry run says so, as the real run would fail.
    b.run(&["user", "deactivate", &linked, "--yes"])
        .await
        .expect(0);
    let dry = b.import_summary(&json_path, &["--dry-run"], 1).await;
    assert_eq!(
        (dry["created"].as_u64(), dry["failed"].as_u64()),
        (Some(1), Some(1)),
        "{dry}"
    );
    assert!(dry.to_string().contains("is deactivated"), "{dry}");
    b.run(&["user", "edit", &linked, "--active", "true"])
        .await
        .expect(0);
    let created = b.import_summary(&json_path, &[], 0).await;
    assert_eq!(created["created"], 2);
    let two = &b.facilities_matching("Export Dois").await[0];
    assert_eq!(two.group.as_ref().unwrap().name, "rede centro");
    assert_eq!(two.users.len(), 1);
    assert_eq!(two.users[0].email, linked);
    assert_eq!(two.users[0].responsabilities, ["Titular"]);
    // The CSV names the same facilities: all already registered.
    let again = b.import_summary(&csv_path, &[], 0).await;
    assert_eq!(again["alreadyRegistered"], 2);
    // So is the JSON's row whose linked user has been deactivated since: skipped, not failed.
    b.run(&["user", "deactivate", &linked, "--yes"])
        .await
        .expect(0);
    for dry_run in [&["--dry-run"][..], &[]] {
        let again = b.import_summary(&json_path, dry_run, 0).await;
        assert_eq!(
            (
                again["alreadyRegistered"].as_u64(),
                again["failed"].as_u64()
            ),
            (Some(2), Some(0)),
            "{again}"
        );
    }
}

/// `facility import -` reads stdin: CSV, or JSON when it starts with `[`.
#[tokio::test(flavor = "multi_thread")]
async fn import_reads_stdin() {
    let env = Env::logged_in().await;
    let csv = format!(
        "name,companyName,cnpj,telephone,department,street,city,state\n\
         Stdin CSV,X Ltda,{},(11) 3333-4444,Medicina Nuclear,Rua 1,São Paulo,SP\n",
        cnpj(700)
    );
    let dry = env
        .run_with(
            &["facility", "import", "-", "--dry-run", "-o", "json"],
            &csv,
            &[],
        )
        .await
        .expect(0)
        .json();
    assert_eq!(dry["created"], 1, "{dry}");
    let json = serde_json::json!([{
        "name": "Stdin JSON", "companyName": "Y Ltda", "cnpj": cnpj(701),
        "telephone": "(11) 3333-4444", "department": "Radiodiagnóstico",
        "address": [{"street": "Rua 2", "city": "São Paulo", "state": "SP"}],
    }]);
    let run = env
        .run_with(
            &["facility", "import", "-", "-o", "json"],
            &format!("  \n{json}"),
            &[],
        )
        .await
        .expect(0)
        .json();
    assert_eq!(run["created"], 1, "{run}");
    assert_eq!(env.facility_count().await, 1);
}

/// A CSV as Excel saves it in a Brazilian locale: `;` between fields, Windows-1252 text.
#[tokio::test(flavor = "multi_thread")]
async fn a_csv_saved_by_excel_in_brazil_imports() {
    let env = Env::logged_in().await;
    // Excel writes a row of empty cells for each row formatted but left empty: no facility.
    let csv = format!(
        "name;companyName;cnpj;telephone;department;street;city;state;practices\r\n\
         Clínica Excel;Excel Ltda;{};(11) 3333-4444;Medicina Nuclear;Rua 1;São Paulo;SP;\
         \"Diagnóstico;Terapia Ambulatorial\"\r\n;;;;;;;;\r\n; ;;;;;;;\r\n",
        cnpj(710)
    );
    // Every character here is Latin-1, which Windows-1252 writes as one byte.
    let bytes: Vec<u8> = csv.chars().map(|c| u8::try_from(c).unwrap()).collect();
    let path = env.write("excel.csv", "");
    std::fs::write(&path, bytes).unwrap();
    let out = env
        .run(&["facility", "import", &path, "-o", "json"])
        .await
        .expect(0)
        .says("not UTF-8: read as Windows-1252");
    assert_eq!(out.json()["created"], 1, "{}", out.stdout);
    assert_eq!(out.json()["total"], 1, "{}", out.stdout);
    let f = env
        .run(&["facility", "show", "Clínica Excel", "-o", "json"])
        .await
        .expect(0)
        .json();
    assert_eq!(f["address"][0]["city"], "São Paulo");
    assert_eq!(
        f["practices"],
        serde_json::json!(["Terapia Ambulatorial", "Diagnóstico"])
    );
}

/// The summary is printed whatever becomes of the failures file: one that cannot be written is
/// reported after it, naming the path (exit 1). A run without failures removes the failures file
/// an earlier run left, whose rows would be stale.
#[tokio::test(flavor = "multi_thread")]
async fn the_failures_file_comes_after_the_summary_and_goes_when_nothing_fails() {
    let env = Env::logged_in().await;
    let header = "name,companyName,cnpj,telephone,department,street,city,state\n";
    let good = format!(
        "Boa,B Ltda,{},(81) 3333-4444,Medicina Nuclear,Rua 1,Recife,PE\n",
        cnpj(730)
    );
    let bad = format!(
        "Ruim,R Ltda,{},(81) 3333-4444,Cardiologia,Rua 2,Recife,PE\n",
        cnpj(731)
    );
    let path = env.write("f.csv", &format!("{header}{good}{bad}"));
    let nowhere = "/nonexistent/dir/f.csv";
    let out = env
        .run(&[
            "facility",
            "import",
            &path,
            "--failures",
            nowhere,
            "-o",
            "json",
        ])
        .await
        .expect(1)
        .says(nowhere);
    let summary = out.json();
    assert_eq!(
        (summary["created"].as_u64(), summary["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(summary.get("failuresFile").is_none(), "{summary}");
    let out = env
        .run(&["facility", "import", &path, "--failures", nowhere])
        .await
        .expect(1)
        .says(nowhere);
    assert!(
        out.stdout.contains("     1 already registered") && out.stdout.contains("     1 failed"),
        "{}",
        out.stdout
    );

    let failures = format!("{path}.failures.csv");
    env.run(&["facility", "import", &path]).await.expect(1);
    assert!(std::path::Path::new(&failures).exists());
    env.write("f.csv", &format!("{header}{good}"));
    env.run(&["facility", "import", &path])
        .await
        .expect(0)
        .says(&format!("removed {failures}"));
    assert!(
        !std::path::Path::new(&failures).exists(),
        "stale failures left"
    );

    // Only a failures file is replaced or removed: not the file imported, nor any other.
    let kept = env.write("notes.txt", "my notes\n");
    for (failures_path, said) in [
        (&path, "is the file being imported"),
        (&kept, "is not a failures file"),
    ] {
        env.run(&["facility", "import", &path, "--failures", failures_path])
            .await
            .expect(2)
            .says(said);
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "my notes\n");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("{header}{good}")
    );
}

/// `export --format csv` writes a text a spreadsheet would run as a formula behind a `'`, and
/// `import` reads it back without it: the facility arrives on the other server exactly as it was.
#[tokio::test(flavor = "multi_thread")]
async fn an_export_neutralises_formulas_and_imports_back_exactly() {
    let a = Env::logged_in().await;
    let name = "=HYPERLINK(\"http://evil.example\",\"Clínica\")";
    let mut flags = facility_flags(name, &cnpj(740));
    let company = flags.iter().position(|f| f == "--company-name").unwrap() + 1;
    flags[company] = "@Empresa Ltda".into();
    flags.extend(["--complement=-Sala 3", "--cnen-registry=+CNEN-7"].map(String::from));
    a.run(&strs(&flags)).await.expect(0);
    let csv = a.run(&["facility", "export"]).await.expect(0).stdout;
    for neutralised in [
        "\"'=HYPERLINK(",
        ",'@Empresa Ltda,",
        ",'-Sala 3,",
        ",'+CNEN-7,",
    ] {
        assert!(csv.contains(neutralised), "{neutralised} not in:\n{csv}");
    }

    let b = Env::logged_in().await;
    let path = b.write("export.csv", &csv);
    b.run(&["facility", "import", &path]).await.expect(0);
    let f = &b.facilities_matching(&cnpj(740)).await[0];
    assert_eq!(f.name, name);
    assert_eq!(f.company_name, "@Empresa Ltda");
    assert_eq!(f.address[0].complement.as_deref(), Some("-Sala 3"));
    assert_eq!(f.cnen_registry.as_deref(), Some("+CNEN-7"));
}

/// Spaces around a cnpj in a CSV cell or a JSON row are taken out before sending, as
/// punctuation is, and the note names the rows.
#[tokio::test(flavor = "multi_thread")]
async fn spaces_around_a_cnpj_are_stripped_on_import() {
    let env = Env::logged_in().await;
    let row = |name: &str, cnpj: &str| {
        format!("{name},X Ltda,\"{cnpj}\",(81) 3333-4444,Medicina Nuclear,Rua,Recife,PE\n")
    };
    let csv = format!(
        "name,companyName,cnpj,telephone,department,street,city,state\n{}",
        row("Espaco CSV", &format!(" {}\t", cnpj(63)))
    );
    let path = env.write("spaces.csv", &csv);
    let out = env
        .run(&["facility", "import", &path, "-o", "json"])
        .await
        .expect(0)
        .says("1 cnpj read without punctuation or the spaces around it")
        .says("row 2");
    assert_eq!(out.json()["created"], 1);
    let rows = json!([{
        "name": "Espaco JSON", "companyName": "X Ltda", "cnpj": format!("{}\t", cnpj(64)),
        "telephone": "(81) 3333-4444", "department": "Medicina Nuclear",
        "address": [{"street": "Rua", "city": "Recife", "state": "PE"}],
    }]);
    let path = env.write("spaces.json", &rows.to_string());
    let out = env
        .run(&["facility", "import", &path, "-o", "json"])
        .await
        .expect(0)
        .says("row 1");
    assert_eq!(out.json()["created"], 1);
    assert_eq!(env.facilities_matching(&cnpj(64)).await.len(), 1);
}
