//! Prompts driven through a pseudo-terminal, as a person would use them: the facility wizard,
//! and equipment, test types and conclusions picked from lists.

use crate::harness::{Env, answer, cnpj, dialogue, punctuated, spawn};
use registry_client::ListQuery;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn the_create_wizard_validates_each_answer_and_registers() {
    let env = Env::start().await;
    env.login_admin().await;
    let bare = cnpj(77);
    let mut wrong = bare.clone();
    wrong.replace_range(13.., if bare.ends_with('0') { "1" } else { "0" });
    let punctuated = punctuated(&bare);
    let cmd = env.at_terminal(&["facility", "create"]);
    dialogue("the wizard dialogue", move || {
        let mut p = spawn(cmd)?;
        p.exp_string("Name")?;
        p.send_line("Clinica Wizard")?;
        p.exp_string("Company name")?;
        p.send_line("Wizard Ltda")?;
        p.exp_string("CNPJ")?;
        p.send_line(&wrong)?;
        p.exp_string("check digits do not match")?;
        p.send_line(&punctuated)?;
        p.exp_string("without punctuation")?;
        p.exp_string("Telephone")?;
        p.send_line("3333-4444")?;
        p.exp_string("must include the area code")?;
        p.send_line("(81) 3333-4444")?;
        answer(&mut p, "Department", "j\r")?; // down: Radiodiagnóstico
        p.exp_string("Street")?;
        p.send_line("Rua do Sol, 5")?;
        p.exp_string("City")?;
        p.send_line("Recife")?;
        p.exp_string("State")?;
        p.send_line("PE")?;
        p.exp_string("CNEN registry")?;
        p.send_line("")?;
        answer(&mut p, "Authorised practices", " \r")?;
        answer(&mut p, "Authorised radioisotopes", " \r")?;
        p.exp_string("mCi per week")?;
        p.send_line("12,5")?;
        p.exp_string("with a dot for decimals")?;
        p.send_line("12.5")?;
        answer(&mut p, "Link a user", "n")?;
        p.exp_string("Registered facility Clinica Wizard")?;
        p.exp_eof()?;
        Ok(())
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
    let env = Env::start().await;
    env.login_admin().await;
    env.facility("Clinica Prompts", 78).await;
    let types = env
        .admin
        .equipment_types(&ListQuery::default())
        .await
        .unwrap();
    let geiger = types.iter().find(|t| t.name == "Contador Geiger").unwrap();
    env.test_type(
        json!({"name": "Reprodutibilidade", "typeOfEquipment": geiger.id, "expirationInDays": 365}),
    )
    .await;

    let create = env.at_terminal(&["equipment", "create"]);
    let record = env.at_terminal(&["test", "record"]);
    dialogue("the prompts dialogue", move || {
        let mut p = spawn(create)?;
        answer(&mut p, "Facility", "\r")?;
        answer(&mut p, "Equipment type", "Geiger\r")?;
        p.exp_string("Manufacturer")?;
        p.send_line("Ludlum")?;
        p.exp_string("Model")?;
        p.send_line("")?;
        p.exp_string("Serial number")?;
        p.send_line("G-9")?;
        p.exp_string("Registered Contador Geiger Ludlum (SN G-9)")?;
        p.exp_eof()?;

        let mut p = spawn(record)?;
        answer(&mut p, "Facility", "\r")?;
        answer(&mut p, "Equipment", "\r")?;
        answer(&mut p, "Test type", "\r")?;
        answer(&mut p, "Conclusion", "Insat\r")?;
        p.exp_string("Recorded Reprodutibilidade")?;
        p.exp_eof()?;
        Ok(())
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
