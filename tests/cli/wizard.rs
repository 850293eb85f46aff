//! Prompts driven through a pseudo-terminal, as a person would use them: the facility wizard,
//! and equipment, test types and conclusions picked from lists.

use crate::harness::{Env, answer, cnpj, dialogue, ends_saying, punctuated, reply, spawn};
use registry_client::ListQuery;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn the_create_wizard_validates_each_answer_and_registers() {
    let env = Env::logged_in().await;
    let bare = cnpj(77);
    let mut wrong = bare.clone();
    wrong.replace_range(13.., if bare.ends_with('0') { "1" } else { "0" });
    let punctuated = punctuated(&bare);
    let cmd = env.at_terminal(&["facility", "create"]);
    dialogue("the wizard dialogue", move || {
        let mut p = spawn(cmd)?;
        reply(&mut p, "Name", "Clinica Wizard")?;
        reply(&mut p, "Company name", "Wizard Ltda")?;
        reply(&mut p, "CNPJ", &wrong)?;
        reply(&mut p, "check digits do not match", &punctuated)?;
        p.exp_string("without punctuation")?;
        reply(&mut p, "Telephone", "3333-4444")?;
        reply(&mut p, "must include the area code", "(81) 3333-4444")?;
        answer(&mut p, "Department", "j\r")?; // down: Radiodiagnóstico
        reply(&mut p, "Street", "Rua do Sol, 5")?;
        reply(&mut p, "City", "Recife")?;
        reply(&mut p, "State", "PE")?;
        reply(&mut p, "CNEN registry", "")?;
        answer(&mut p, "Authorised practices", " \r")?;
        answer(&mut p, "Authorised radioisotopes", " \r")?;
        reply(&mut p, "mCi per week", "12,5")?;
        reply(&mut p, "with a dot for decimals", "12.5")?;
        answer(&mut p, "Link a user", "n")?;
        ends_saying(&mut p, "Registered facility Clinica Wizard")
    })
    .await;
    let list = env
        .admin
        .facilities(&ListQuery::default().filter("q", "Clinica Wizard"))
        .await
        .unwrap()
        .list;
    assert_eq!(list.len(), 1);
    let f = &list[0];
    assert_eq!(f.cnpj, bare);
    assert_eq!(f.department.as_str(), "Radiodiagnóstico");
    assert_eq!(f.practices[0].as_str(), "Terapia com Internação");
    assert_eq!(f.radioisotopes[0].name.as_str(), "C(11)");
    assert_eq!(f.radioisotopes[0].quantity, 12.5);
}

#[tokio::test(flavor = "multi_thread")]
async fn equipment_and_a_test_are_picked_from_lists_at_the_terminal() {
    let env = Env::logged_in().await;
    env.facility("Clinica Prompts", 78).await;
    let geiger = env.equipment_type_id("Contador Geiger").await;
    env.test_type(
        json!({"name": "Reprodutibilidade", "typeOfEquipment": geiger, "expirationInDays": 365}),
    )
    .await;

    let create = env.at_terminal(&["equipment", "create"]);
    let record = env.at_terminal(&["test", "record"]);
    dialogue("the prompts dialogue", move || {
        let mut p = spawn(create)?;
        answer(&mut p, "Facility", "\r")?;
        answer(&mut p, "Equipment type", "Geiger\r")?;
        reply(&mut p, "Manufacturer", "Ludlum")?;
        reply(&mut p, "Model", "")?;
        reply(&mut p, "Serial number", "G-9")?;
        ends_saying(&mut p, "Registered Contador Geiger Ludlum (SN G-9)")?;

        let mut p = spawn(record)?;
        answer(&mut p, "Facility", "\r")?;
        answer(&mut p, "Equipment", "\r")?;
        answer(&mut p, "Test type", "\r")?;
        answer(&mut p, "Conclusion", "Insat\r")?;
        ends_saying(&mut p, "Recorded Reprodutibilidade")
    })
    .await;
    let due = env
        .admin
        .tests_due(&ListQuery::default().filter("state", "ok"))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].type_of_test.name, "Reprodutibilidade");
    assert_eq!(due[0].equipment.serial_number.as_deref(), Some("G-9"));
    assert_eq!(due[0].equipment.model, None);
}
