//! Facilities through the CLI: create by flags and by file, edit, list as table/JSON/CSV, assign
//! a Responsável Técnico replacing the previous holder, unassign, archive, export; what `create`
//! and `edit` refuse is in `facility_refusals`.

use crate::harness::{Env, cnpj, facility_flags, punctuated, role_args, strs};

#[tokio::test(flavor = "multi_thread")]
async fn create_by_flags_and_by_file_then_edit_and_list() {
    let env = Env::logged_in().await;

    // By flags, with a punctuated CNPJ that the CLI cleans and says so.
    let bare = cnpj(1);
    let punctuated = punctuated(&bare);
    let flags = facility_flags("Clinica Flags", &punctuated);
    let mut args = strs(&flags);
    args.extend(["-o", "json"]);
    let out = env.run(&args).await.expect(0);
    assert!(
        out.stderr
            .contains(&format!("without punctuation as {bare}")),
        "{}",
        out.stderr
    );
    let created = out.json();
    assert_eq!(created["cnpj"], bare.as_str());
    assert_eq!(created["radioisotopes"][1]["quantity"], 200.5);
    let id = created["_id"].as_str().unwrap().to_owned();

    // By file (and from stdin).
    let payload = serde_json::json!({
        "name": "Clinica File", "companyName": "File Ltda", "cnpj": cnpj(2),
        "telephone": "(11) 98765-4321", "department": "Radiodiagnóstico",
        "address": [{"street": "Av. Paulista, 1", "city": "São Paulo", "state": "SP"},
                    {"street": "Rua B, 2", "city": "Santos", "state": "SP"}],
    });
    let path = env.write("facility.json", &payload.to_string());
    let from_file = env
        .json(&["facility", "create", "--from-file", &path])
        .await;
    assert_eq!(from_file["department"], "Radiodiagnóstico");
    let mut from_stdin = payload.clone();
    from_stdin["cnpj"] = cnpj(3).into();
    env.run_with(
        &["facility", "create", "--from-file", "-"],
        &from_stdin.to_string(),
        &[],
    )
    .await
    .expect(0);

    // Edit: only the given field changes; the rest of the address stays.
    let edited = env
        .json(&["facility", "edit", &id, "--city", "Olinda"])
        .await;
    assert_eq!(edited["address"][0]["city"], "Olinda");
    assert_eq!(edited["address"][0]["street"], "Rua da Aurora, 100");
    assert_eq!(edited["version"], 2);
    assert_eq!(edited["practices"][0], "Diagnóstico");
    // An address flag changes the first address and keeps the others.
    let file_id = from_file["_id"].as_str().unwrap();
    let edited = env
        .json(&["facility", "edit", file_id, "--city", "Guarujá"])
        .await;
    assert_eq!(
        edited["address"],
        serde_json::json!([
            {"street": "Av. Paulista, 1", "city": "Guarujá", "state": "SP"},
            {"street": "Rua B, 2", "city": "Santos", "state": "SP"}
        ])
    );
    // By cnpj instead of _id.
    env.run(&["facility", "edit", &bare, "--name", "Clinica Renamed"])
        .await
        .expect(0);

    // Lists: table, JSON (the API's field names), CSV.
    let table = env.run(&["facility", "list"]).await.expect(0).stdout;
    assert!(
        table.contains("Clinica Renamed") && table.contains("Clinica File"),
        "{table}"
    );
    let json = env.json(&["facility", "list"]).await;
    assert_eq!(json.as_array().unwrap().len(), 3);
    assert!(json[0]["companyName"].is_string() && json[0]["_id"].is_string());
    let csv = env
        .run(&["facility", "list", "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "_id,name,cnpj,department,city,state,Responsável Técnico"
    );
    assert_eq!(lines.count(), 3);
    let filtered = env
        .json(&["facility", "list", "--department", "Radiodiagnóstico"])
        .await;
    assert_eq!(filtered.as_array().unwrap().len(), 2);

    // Archive; the history stays readable by `_id`, and a look-up by cnpj says how to find it.
    env.archive_after_confirming("facility", &id).await;
    let history = env.json(&["facility", "history", &id]).await;
    let actions = crate::harness::each(&history, "action");
    assert_eq!(actions[0], "archive", "{history}");
    assert_eq!(actions.last(), Some(&"create"), "{history}");
    env.run(&["facility", "history", &bare])
        .await
        .expect(5)
        .says("an archived facility's history is found by its _id");
}

#[tokio::test(flavor = "multi_thread")]
async fn assigning_a_responsavel_tecnico_replaces_the_previous_holder() {
    let env = Env::logged_in().await;
    let (ana, ana_email) = env.user("Ana Souza", &["Físico"]).await;
    let (bruno, bruno_email) = env.user("Bruno Lima", &["Físico"]).await;
    let flags = facility_flags("Clinica Roles", &cnpj(10));
    let mut args = strs(&flags);
    args.extend(["-o", "json"]);
    let id = env.run(&args).await.expect(0).id();

    let rt = "Responsável Técnico";
    let out = env
        .run(&role_args("assign", &id, &ana_email, rt))
        .await
        .expect(0);
    assert!(out.stdout.contains("nobody held"), "{}", out.stdout);
    env.run(&role_args("assign", &id, &ana_email, "Substituto"))
        .await
        .expect(0);

    // Bruno, found by part of his name, takes over; Ana stays linked as Substituto.
    let out = env
        .run(&role_args("assign", &id, "Bruno", rt))
        .await
        .expect(0);
    assert!(
        out.stdout
            .contains(&format!("replaced Ana Souza <{ana_email}>")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("still linked as Substituto"),
        "{}",
        out.stdout
    );
    let f = env.admin.facility(&id).await.unwrap();
    let holders: Vec<&str> = f
        .users
        .iter()
        .filter(|u| u.responsabilities.iter().any(|r| r == rt))
        .map(|u| u.id.as_str())
        .collect();
    assert_eq!(holders, [bruno.as_str()]);
    let ana_link = f.users.iter().find(|u| u.id == ana).unwrap();
    assert_eq!(ana_link.responsabilities, ["Substituto"]);

    // The users table shows both; the history records the change.
    let users = env.run(&["facility", "users", &id]).await.expect(0).stdout;
    assert!(
        users.contains(&bruno_email) && users.contains(&ana_email),
        "{users}"
    );
    let history = env.json(&["facility", "history", &id]).await;
    assert!(history.as_array().unwrap().len() >= 4);

    // Unassign a role, then the whole link.
    env.run(&role_args("unassign", &id, &ana_email, "Substituto"))
        .await
        .expect(0);
    env.run(&["facility", "unassign", &id, "--user", &bruno_email])
        .await
        .expect(0);
    let f = env.admin.facility(&id).await.unwrap();
    assert_eq!(f.users.len(), 1);
    assert!(f.users[0].responsabilities.is_empty());
    // A role nobody may be given is refused by the server, named by the flag and the value
    // given (the JSON envelope keeps the API's path).
    env.run(&role_args("assign", &id, &ana_email, "Chefe"))
        .await
        .expect(4)
        .says("--role `Chefe`: must be one of");
    let refused = env
        .run(
            &[
                &role_args("assign", &id, &ana_email, "Chefe")[..],
                &["-o", "json"],
            ]
            .concat(),
        )
        .await
        .expect(4);
    assert_eq!(
        refused.json()["errors"][0]["field"],
        "users[0].responsabilities[0]"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn export_gives_every_page_as_csv_or_json() {
    let env = Env::logged_in().await;
    for n in 0..205 {
        let payload = serde_json::json!({
            "name": format!("Export {n}"), "companyName": "X", "cnpj": cnpj(1000 + n),
            "telephone": "(11) 3333-4444", "department": "Medicina Nuclear",
            "address": {"street": "R", "city": "C", "state": "SP"},
        });
        env.admin.register_facility(&payload).await.unwrap();
    }
    let json = env
        .run(&["facility", "export", "--format", "json"])
        .await
        .expect(0)
        .json();
    assert_eq!(json.as_array().unwrap().len(), 205);
    let path = env.work.path().join("all.csv");
    env.run(&["facility", "export", "--file", path.to_str().unwrap()])
        .await
        .expect(0);
    let csv = std::fs::read_to_string(&path).unwrap();
    assert_eq!(csv.lines().count(), 206);
    assert!(csv.starts_with("_id,name,companyName,cnpj"));
    // `--file -` is stdout, as for every file argument: no file named `-`.
    let piped = env
        .run(&["facility", "export", "--format", "csv", "--file", "-"])
        .await
        .expect(0);
    assert_eq!(piped.stdout, csv);
    assert!(!env.work.path().join("-").exists());
    assert_eq!(env.facility_count().await, 205);

    // Exported while facilities are created (the pages shift under the walk): each once, and
    // every one that was there before.
    let ids = |export: &serde_json::Value| -> Vec<String> {
        (export.as_array().unwrap().iter())
            .map(|f| f["_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let before: std::collections::HashSet<String> = ids(&json).into_iter().collect();
    let writer = env.admin.clone();
    let creating = tokio::spawn(async move {
        for n in 0..300 {
            let payload = serde_json::json!({
                "name": format!("Meanwhile {n}"), "companyName": "X", "cnpj": cnpj(2000 + n),
                "telephone": "(11) 3333-4444", "department": "Medicina Nuclear",
                "address": {"street": "R", "city": "C", "state": "SP"},
            });
            writer.register_facility(&payload).await.unwrap();
        }
    });
    let mut exports = 0;
    while !creating.is_finished() || exports == 0 {
        let export = env
            .run(&["facility", "export", "--format", "json"])
            .await
            .expect(0)
            .json();
        let ids = ids(&export);
        let once: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(once.len(), ids.len(), "a facility exported twice");
        assert!(
            before.iter().all(|id| once.contains(id)),
            "a facility left out"
        );
        exports += 1;
    }
    creating.await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn facilities_are_named_by_names_with_spaces_and_punctuation_and_past_the_first_page() {
    let env = Env::logged_in().await;
    for (name, n) in [
        ("Clínica Boa Vista", 20),
        ("Radio-Centro S.A.", 21),
        ("Nova 1/2", 22),
    ] {
        env.facility(name, n).await;
        let shown = env.json(&["facility", "show", name]).await;
        assert_eq!(shown["name"], name);
    }
    env.run(&["facility", "edit", "Clínica Boa Vista", "--city", "Olinda"])
        .await
        .expect(0);
    env.run(&["equipment", "list", "--facility", "Radio-Centro S.A."])
        .await
        .expect(0);

    // `Hosp` is older than the 21 facilities whose names begin with it.
    env.facility("Hosp", 300).await;
    let mut csv = String::from("name,companyName,cnpj,telephone,department,street,city,state\n");
    for n in 1..=21 {
        csv.push_str(&format!(
            "Hosp{n},Hosp Ltda,{},(81) 3333-4444,Medicina Nuclear,Rua,Recife,PE\n",
            cnpj(300 + n)
        ));
    }
    let path = env.write("hosp.csv", &csv);
    env.run(&["facility", "import", &path]).await.expect(0);
    assert_eq!(
        env.json(&["facility", "show", "Hosp"]).await["name"],
        "Hosp"
    );

    // A path segment stays one: no other endpoint is reached.
    env.run(&["facility", "show", "../users"]).await.expect(5);
    env.run(&["user", "show", "../facilities"]).await.expect(5);
    env.run(&["document", "show", "../documents"])
        .await
        .expect(5);
    env.run(&["equipment", "show", ".."]).await.expect(5);
}

#[tokio::test(flavor = "multi_thread")]
async fn list_paging_flags_and_notes() {
    let env = Env::logged_in().await;
    for n in 0..3 {
        env.facility(&format!("Paged {n}"), 40 + n).await;
    }
    // The "more pages" note in every format, on stderr; stdout stays the records.
    for format in ["table", "json", "csv"] {
        let out = env
            .run(&["facility", "list", "--page-size", "2", "-o", format])
            .await
            .expect(0)
            .says("page 1 of 2 (3 facilities, 2 per page); next: --page 2, or --all");
        assert!(!out.stdout.contains("page 1 of"), "{}", out.stdout);
    }
    env.expect_each(&[
        (&["facility", "list", "--page", "0"], 2, "--page"),
        (&["facility", "list", "--page-size", "0"], 2, "--page-size"),
    ])
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn export_follows_the_global_output_and_does_not_overwrite() {
    let env = Env::logged_in().await;
    env.facility("Clinica Export", 70).await;
    let path = env.work.path().join("all.json");
    let file = path.to_str().unwrap();
    env.run(&["facility", "export", "-o", "json", "--file", file])
        .await
        .expect(0);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written[0]["name"], "Clinica Export");
    env.run(&["facility", "export", "-o", "json", "--file", file])
        .await
        .expect(2)
        .says("--force");
    env.run(&[
        "facility", "export", "--format", "csv", "--file", file, "--force",
    ])
    .await
    .expect(0);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("_id,name")
    );
    env.run(&["facility", "export", "--format", "csv", "-o", "json"])
        .await
        .expect(2)
        .says("disagree");
}

/// A facility is named by its name with case and accents ignored (as the server's search
/// ignores them), and by a lower-case alphanumeric cnpj.
#[tokio::test(flavor = "multi_thread")]
async fn names_fold_case_and_accents_and_a_cnpj_its_letters() {
    let env = Env::logged_in().await;
    env.run(&strs(&facility_flags("Clínica Acentuada", &cnpj(42))))
        .await
        .expect(0);
    for name in [
        "CLÍNICA ACENTUADA",
        "Clinica Acentuada",
        "clínica acentuada",
    ] {
        let shown = env.json(&["facility", "show", name]).await;
        assert_eq!(shown["name"], "Clínica Acentuada", "{name}");
    }
    env.run(&strs(&facility_flags("Clinica Alfa", "12ABC34501DE35")))
        .await
        .expect(0);
    let shown = env.json(&["facility", "show", "12abc34501de35"]).await;
    assert_eq!(shown["cnpj"], "12ABC34501DE35");
    // Found by the search but not by the name: the error names the near matches.
    env.run(&["facility", "show", "Clínica"])
        .await
        .expect(5)
        .says("did you mean")
        .says(&format!("Clínica Acentuada ({})", cnpj(42)));
    // A run of white space is one space to the name too; a name written exactly as one
    // facility's is that one, beside its look-alikes.
    env.run(&strs(&facility_flags("Clínica\u{a0}Acentuada", &cnpj(43))))
        .await
        .expect(0);
    for (name, cnpj) in [
        ("Clínica Acentuada", cnpj(42)),
        ("Clínica\u{a0}Acentuada", cnpj(43)),
    ] {
        let shown = env.json(&["facility", "show", name]).await;
        assert_eq!(shown["cnpj"], cnpj.as_str(), "{name:?}");
    }
    env.run(&["facility", "show", "clinica  acentuada"])
        .await
        .expect(5)
        .says("matches 2 facilities");
}

/// A record's table at a terminal of 50 or 80 columns never splits an identifier or a time: the
/// facility's `_id` and its `updatedAt` show whole (a word too long for the value column gets a
/// line of its own, the table wider than the terminal for it).
#[tokio::test(flavor = "multi_thread")]
async fn a_record_table_never_splits_ids_or_times() {
    let env = Env::logged_in().await;
    let c = env
        .facility("Clinica Estreita Com Um Nome Bem Comprido Mesmo", 67)
        .await;
    let shown = env.json(&["facility", "show", &c]).await;
    let id = shown["_id"].as_str().unwrap().to_owned();
    let time = env
        .run(&["facility", "show", &c, "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    let updated = time
        .lines()
        .last()
        .and_then(|row| row.rsplit(',').next())
        .unwrap()
        .to_owned();
    assert!(updated.ends_with("-03:00"), "{time}");
    for columns in [50, 80] {
        let bin = crate::harness::registry_bin();
        let mut cmd = std::process::Command::new("sh");
        cmd.args([
            "-c",
            &format!(
                "stty cols {columns} rows 40; exec '{}' facility show {c}",
                bin.display()
            ),
        ])
        .env("REGISTRY_CONFIG_DIR", env.config.path())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
        let (id, updated) = (id.clone(), updated.clone());
        crate::harness::dialogue("a narrow record table", move || {
            let mut p = crate::harness::spawn(cmd)?;
            let table = p.exp_eof()?;
            assert!(table.contains(&id), "{columns} columns:\n{table}");
            assert!(table.contains(&updated), "{columns} columns:\n{table}");
            assert!(table.contains("Clinica Estreita"), "{table}");
            Ok(())
        })
        .await;
    }
}
