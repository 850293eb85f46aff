//! Equipment and QC tests through the CLI: types, create/list/edit/archive equipment, record tests,
//! their history and what falls due, edit and delete a record.

use crate::harness::{Env, equipment_args, record_args};
use registry_core::equipment::local_date;
use serde_json::{Value, json};

fn days_ago(n: u64) -> String {
    (local_date(chrono::Utc::now()) - chrono::Days::new(n)).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn equipment_is_created_listed_edited_and_archived() {
    let env = Env::logged_in().await;
    let cnpj = env.facility("Clinica Equipamentos", 11).await;

    let types = env.json(&["equipment", "types"]).await;
    let gamma = types
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Gama Câmara")
        .expect("seeded type")["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    env.test_type(
        json!({"name": "Uniformidade", "typeOfEquipment": gamma, "expirationInDays": 30}),
    )
    .await;

    // The type by name, ignoring case; attributes typed from KEY=VALUE.
    let created = env
        .json(&equipment_args(
            &cnpj,
            &[
                "--type",
                "gama câmara",
                "--manufacturer",
                "Siemens",
                "--model",
                "Symbia",
                "--serial-number",
                "SN-1",
                "--attribute",
                "detectors=2",
                "--attribute",
                "probe=LEHR",
            ],
        ))
        .await;
    assert_eq!(created["typeOfEquipment"]["_id"], gamma.as_str());
    assert_eq!(
        created["attributes"],
        json!({"detectors": 2, "probe": "LEHR"})
    );
    let id = created["_id"].as_str().unwrap().to_owned();

    // Without a terminal a missing input is a usage error naming its flag.
    env.run(&equipment_args(&cnpj, &[]))
        .await
        .expect(2)
        .says("--type");
    // An unknown type names the allowed ones.
    env.run(&equipment_args(&cnpj, &["--type", "Ressonância"]))
        .await
        .expect(5)
        .says("PET/CT");

    let listed = env.json(&["equipment", "list", "--facility", &cnpj]).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["serialNumber"], "SN-1");
    let csv = env
        .run(&["equipment", "list", "--facility", &cnpj, "-o", "csv"])
        .await
        .expect(0)
        .stdout;
    assert!(
        csv.starts_with("_id,facility,typeOfEquipment,manufacturer,model,serialNumber"),
        "{csv}"
    );
    let tests = env
        .json(&["equipment", "test-types", "--type", "gama camara"])
        .await;
    assert_eq!(tests[0]["name"], "Uniformidade");
    assert_eq!(tests[0]["expirationInDays"], 30);

    let edited = env
        .json(&[
            "equipment",
            "edit",
            &id,
            "--localization",
            "Sala 2",
            "--model",
            "",
            "--active",
            "false",
        ])
        .await;
    assert_eq!(edited["localization"], "Sala 2");
    assert_eq!(edited["model"], Value::Null);
    assert_eq!(edited["active"], false);
    env.run(&["equipment", "edit", &id]).await.expect(2);
    // --attribute adds to the stored attributes (KEY= removes one), keeping a VALUE as typed
    // unless it reads back as written; --attributes-json replaces them.
    let attributes = |edited: Value| edited["attributes"].clone();
    let edited = env
        .json(&[
            "equipment",
            "edit",
            &id,
            "--attribute",
            "firmware=2.0.1",
            "--attribute",
            "code=1e3",
            "--attribute",
            "probe=",
            "--attribute",
            "factor=2.5",
        ])
        .await;
    assert_eq!(
        attributes(edited),
        json!({"detectors": 2, "firmware": "2.0.1", "code": "1e3", "factor": 2.5})
    );
    let edited = env
        .json(&[
            "equipment",
            "edit",
            &id,
            "--attributes-json",
            r#"{"detectors": 1}"#,
            "--attribute",
            "probe=LEHR",
        ])
        .await;
    assert_eq!(attributes(edited), json!({"detectors": 1, "probe": "LEHR"}));

    env.archive_after_confirming("equipment", &id).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tests_are_recorded_with_history_and_due_dates() {
    let env = Env::logged_in().await;
    let cnpj = env.facility("Clinica Testes", 12).await;
    let gamma = env.equipment_type_id("Gama Câmara").await;
    for (name, days) in [("Uniformidade", 30), ("Centro de rotação", 180)] {
        env.test_type(json!({"name": name, "typeOfEquipment": gamma, "expirationInDays": days}))
            .await;
    }
    let equipment = env
        .run(&equipment_args(
            &cnpj,
            &["--type", &gamma, "--manufacturer", "GE", "-o", "json"],
        ))
        .await
        .expect(0)
        .id();

    let record = |date: String, conclusion: &'static str| {
        let equipment = equipment.clone();
        let env = &env;
        async move {
            env.run(&record_args(
                &equipment,
                "uniformidade",
                &[
                    "--date",
                    &date,
                    "--conclusion",
                    conclusion,
                    "--measurements",
                    r#"{"integral": 2.1}"#,
                    "-o",
                    "json",
                ],
            ))
            .await
        }
    };
    let first = record(days_ago(40), "Satisfatório").await.expect(0).json();
    assert_eq!(first["typeOfTest"]["name"], "Uniformidade");
    assert_eq!(first["measurements"]["integral"], 2.1);
    assert_eq!(first["performedBy"]["name"], "Administrator");

    // Refused locally, field by field, named by the flags: a future date (exit 4).
    let tomorrow = (local_date(chrono::Utc::now()) + chrono::Days::new(1)).to_string();
    record(tomorrow, "Satisfatório")
        .await
        .expect(4)
        .says("- --date:");
    // An unknown conclusion: refused locally (4), naming the allowed values.
    record(days_ago(1), "Bom")
        .await
        .expect(4)
        .says("- --conclusion: must be one of: Satisfatório, Satisfatório com observações");
    // No conclusion and no terminal: usage error naming the flag.
    env.run(&record_args(&equipment, "Uniformidade", &[]))
        .await
        .expect(2)
        .says("--conclusion");

    // 40 days after a 30-day test: overdue; the other type was never done.
    let due = env.json(&["test", "due", "--equipment", &equipment]).await;
    let state = |due: &Value, name: &str| {
        due.as_array()
            .unwrap()
            .iter()
            .find(|d| d["typeOfTest"]["name"] == name)
            .map(|d| d["state"].as_str().unwrap().to_owned())
    };
    assert_eq!(state(&due, "Uniformidade").as_deref(), Some("overdue"));
    assert_eq!(
        state(&due, "Centro de rotação").as_deref(),
        Some("never_done")
    );
    let overdue = env.json(&["test", "due", "--state", "overdue"]).await;
    assert_eq!(overdue.as_array().unwrap().len(), 1);
    assert_eq!(overdue[0]["equipment"]["_id"], equipment.as_str());

    let second = record(days_ago(5), "Satisfatório com observações")
        .await
        .expect(0)
        .json();
    let second_id = second["_id"].as_str().unwrap().to_owned();
    let history_args = [
        "test",
        "history",
        "--equipment",
        &equipment,
        "--test-type",
        "Uniformidade",
    ];
    let history = env.json(&history_args).await;
    let dates = crate::harness::each(&history, "date");
    assert_eq!(dates, [days_ago(5), days_ago(40)], "newest first");
    // A test type is named as its equipment type is: case and accents do not count, and a
    // part of a name that several hold is refused with their names.
    let mut args = history_args;
    args[5] = "UNIFORMIDADE";
    assert_eq!(env.json(&args).await, history);
    args[5] = "o";
    env.run(&args)
        .await
        .expect(5)
        .says("matches 2 test types of Gama Câmara (");
    let due = env.json(&["test", "due", "--equipment", &equipment]).await;
    assert_eq!(state(&due, "Uniformidade").as_deref(), Some("ok"));
    // Across facilities the default is what needs attention: the never-done test only.
    let attention = env.json(&["test", "due", "--facility", &cnpj]).await;
    assert_eq!(attention.as_array().unwrap().len(), 1);
    assert_eq!(attention[0]["state"], "never_done");

    let edited = env
        .json(&["test", "edit", &second_id, "--notes", "colimador trocado"])
        .await;
    assert_eq!(edited["notes"], "colimador trocado");
    env.run(&["test", "edit", &second_id, "--conclusion", "Ótimo"])
        .await
        .expect(4)
        .says("- --conclusion: must be one of");
    env.run(&["test", "delete", &second_id, "--yes"])
        .await
        .expect(0);
    let history = env.json(&history_args).await;
    assert_eq!(history.as_array().unwrap().len(), 1);
    env.run(&["test", "show", &second_id]).await.expect(5);
}
