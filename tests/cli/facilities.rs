//! Facilities through the CLI: create by flags and by file, edit, list as table/JSON/CSV, assign
//! a Responsável Técnico replacing the previous holder, unassign, archive, export.

use crate::harness::{Env, cnpj, facility_flags, punctuated, strs};

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
        "address": [{"street": "Av. Paulista, 1", "city": "São Paulo", "state": "SP"}],
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

    // Archive.
    env.archive_after_confirming("facility", &id).await;
}

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
    // A role nobody may be given is refused by the server, field by field.
    env.run(&role_args("assign", &id, &ana_email, "Chefe"))
        .await
        .expect(4)
        .says("responsabilities");
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
    assert_eq!(env.facility_count().await, 205);
}

/// `registry facility assign|unassign` (`verb`) of `role` at facility `id` to or from `user`.
fn role_args<'a>(verb: &'a str, id: &'a str, user: &'a str, role: &'a str) -> [&'a str; 7] {
    ["facility", verb, id, "--user", user, "--role", role]
}
