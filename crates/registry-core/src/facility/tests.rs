use super::*;
use crate::error::{assert_codes, codes};
use serde_json::json;

pub(crate) fn valid() -> Value {
    json!({
        "name": "Clínica Nuclear Paulista",
        "companyName": "CNP Serviços Médicos Ltda",
        "cnpj": "11222333000181",
        "telephone": "(11) 3456-7890",
        "department": "Medicina Nuclear",
        "address": [{"street": "Av. Paulista, 1000", "city": "São Paulo", "state": "SP"}],
        "CNENregistry": "CNEN-1234",
        "users": [{"_id": "u1", "responsabilities": ["Titular", "Responsável Técnico"]}],
        "radioisotopes": [{"name": "Tc(99m)", "quantity": 1500}, {"name": "I(131)", "quantity": "200.5"}],
        "practices": ["Diagnóstico", "Terapia Ambulatorial", "Diagnóstico"]
    })
}

pub(crate) fn link(id: &str, roles: &[MainRole]) -> UserLink {
    UserLink {
        user_id: id.into(),
        responsibilities: roles.iter().map(|r| Responsibility::Main(*r)).collect(),
    }
}

#[test]
fn reads_a_complete_create_payload() {
    let f = read_facility(&valid(), Mode::Create, &[]).unwrap();
    assert_eq!(f.name.as_deref(), Some("Clínica Nuclear Paulista"));
    assert_eq!(f.department, Some(Department::NuclearMedicine));
    assert_eq!(f.radioisotopes.as_ref().unwrap()[1].quantity.mci(), 200.5);
    assert_eq!(
        f.practices.unwrap().len(),
        2,
        "duplicate practices collapse"
    );
    assert_eq!(f.cnen_registry, Some(Some("CNEN-1234".into())));
    assert_eq!(f.users.unwrap()[0].responsibilities.len(), 2);
}

#[test]
fn create_reports_every_missing_required_field_at_once() {
    let errs = read_facility(&json!({}), Mode::Create, &[]).unwrap_err();
    assert_eq!(
        codes(&errs),
        [
            "name",
            "companyName",
            "cnpj",
            "telephone",
            "department",
            "address"
        ]
        .map(|f| (f, FieldCode::Required))
        .to_vec()
    );
}

#[test]
fn blank_strings_and_address_parts_are_required() {
    let mut body = valid();
    body["name"] = json!("   ");
    body["address"] = json!([{"street": "", "city": "Recife"}]);
    assert_codes(
        read_facility(&body, Mode::Create, &[]),
        &[
            ("name", FieldCode::Required),
            ("address[0].street", FieldCode::Required),
            ("address[0].state", FieldCode::Required),
        ],
    );
}

#[test]
fn a_single_address_object_is_accepted() {
    let mut body = valid();
    body["address"] =
        json!({"street": "Rua A, 1", "city": "Natal", "state": "RN", "zipCode": "59000-000"});
    let f = read_facility(&body, Mode::Create, &[]).unwrap();
    assert_eq!(f.address.unwrap()[0].zip_code.as_deref(), Some("59000-000"));
}

#[test]
fn field_rules_each_give_their_code() {
    let body = json!({
        "name": 12,
        "companyName": "X",
        "cnpj": "11.222.333/0001-81",
        "telephone": "3456-7890",
        "department": "Cardiologia",
        "address": [{"street": "s", "city": "c", "state": "st"}],
        "group": 5,
        "users": [{"_id": "u1", "responsabilities": ["Chefe"]}, {"_id": "u1"}],
        "radioisotopes": [{"name": "Tc(99m)", "quantity": "12,5"}, {"name": "Xx(1)", "quantity": 1}, {"name": "Tc(99m)", "quantity": -2}, {"name": "F(18)"}],
        "practices": ["Cirurgia"]
    });
    let errs = assert_codes(
        read_facility(&body, Mode::Create, &[]),
        &[
            ("name", FieldCode::InvalidValue),
            ("cnpj", FieldCode::InvalidCnpj),
            ("telephone", FieldCode::InvalidTelephone),
            ("department", FieldCode::InvalidDepartment),
            ("group", FieldCode::InvalidValue),
            (
                "users[0].responsabilities[0]",
                FieldCode::InvalidResponsibility,
            ),
            ("users[1]._id", FieldCode::InvalidValue),
            ("radioisotopes[0].quantity", FieldCode::InvalidQuantity),
            ("radioisotopes[1].name", FieldCode::InvalidRadioisotope),
            ("radioisotopes[2].name", FieldCode::DuplicateRadioisotope),
            ("radioisotopes[2].quantity", FieldCode::InvalidQuantity),
            ("radioisotopes[3].quantity", FieldCode::Required),
            ("practices[0]", FieldCode::InvalidPractice),
        ],
    );
    let cnpj = errs.iter().find(|e| e.field == "cnpj").unwrap();
    assert!(
        cnpj.message.contains("11222333000181"),
        "shows the bare form: {}",
        cnpj.message
    );
}

#[test]
fn invalid_and_alphanumeric_cnpjs() {
    let mut body = valid();
    body["cnpj"] = json!("12ABC34501DE35");
    assert!(read_facility(&body, Mode::Create, &[]).is_ok());
    for bad in [
        "00000000000000",
        "A1B2C3D41A2B99",
        "11222333000182",
        "1122233300018",
        " 11222333000181",
        "11222333000181 ",
    ] {
        body["cnpj"] = json!(bad);
        assert_eq!(
            codes(&read_facility(&body, Mode::Create, &[]).unwrap_err()),
            vec![("cnpj", FieldCode::InvalidCnpj)],
            "{bad}"
        );
    }
}

#[test]
fn custom_responsibilities_only_when_configured() {
    let mut body = valid();
    body["users"] = json!([{"_id": "u1", "responsabilities": ["Físico Médico"]}]);
    assert!(read_facility(&body, Mode::Create, &[]).is_err());
    let f = read_facility(&body, Mode::Create, &["Físico Médico".into()]).unwrap();
    assert_eq!(
        f.users.unwrap()[0].responsibilities,
        vec![Responsibility::Custom("Físico Médico".into())]
    );
}

#[test]
fn edit_accepts_partial_payloads_and_keeps_absent_parts() {
    let f = read_facility(
        &json!({"_id": "x", "telephone": "(21) 2222-3333"}),
        Mode::Edit,
        &[],
    )
    .unwrap();
    assert!(
        f.name.is_none()
            && f.address.is_none()
            && f.users.is_none()
            && f.department.is_none()
            && f.group.is_none()
    );
    assert_eq!(f.telephone.unwrap().as_str(), "(21) 2222-3333");
    let f = read_facility(
        &json!({"group": null, "CNENregistry": "", "radioisotopes": []}),
        Mode::Edit,
        &[],
    )
    .unwrap();
    assert_eq!(f.group, Some(None));
    assert_eq!(f.cnen_registry, Some(None));
    assert_eq!(f.radioisotopes.unwrap().len(), 0);
}

#[test]
fn edit_cannot_blank_a_required_field() {
    assert_codes(
        read_facility(&json!({"name": "", "address": []}), Mode::Edit, &[]),
        &[
            ("name", FieldCode::Required),
            ("address", FieldCode::Required),
        ],
    );
}

#[test]
fn sizes_are_bounded() {
    let mut v = valid();
    let address = json!({"street": "Rua A", "city": "Santos", "state": "SP"});
    v["address"] = Value::Array(vec![address.clone(); MAX_ADDRESSES + 1]);
    v["users"] = Value::Array(vec![
        json!({"_id": "u", "responsabilities": []});
        MAX_USER_LINKS + 1
    ]);
    v["name"] = json!("n".repeat(201));
    v["radioisotopes"] =
        json!([{"name": "Tc(99m)", "quantity": 1e300}, {"name": "I(131)", "quantity": 1e-320}]);
    let (_, errs) = read_facility_partial(&v, Mode::Create, &[]);
    let errs = errs.into_vec();
    let mut got = codes(&errs);
    got.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(
        got,
        [
            ("address", FieldCode::InvalidValue),
            ("name", FieldCode::InvalidValue),
            ("radioisotopes[0].quantity", FieldCode::InvalidQuantity),
            ("radioisotopes[1].quantity", FieldCode::InvalidQuantity),
            ("users", FieldCode::InvalidValue),
        ]
    );
    v["address"] = Value::Array(vec![address; MAX_ADDRESSES]);
    v["users"] = json!([]);
    v["name"] = json!("n".repeat(200));
    v["radioisotopes"] = json!([{"name": "Tc(99m)", "quantity": 1_000_000}]);
    let (_, errs) = read_facility_partial(&v, Mode::Create, &[]);
    assert!(errs.is_empty(), "{:?}", errs.into_vec());
}

#[test]
fn listed_values_are_read_trimmed_like_any_text() {
    let mut body = valid();
    body["department"] = json!(" Radiodiagnóstico ");
    body["practices"] = json!(["Diagnóstico ", " Terapia Ambulatorial"]);
    body["radioisotopes"] = json!([{"name": " Tc(99m) ", "quantity": 1}]);
    let f = read_facility(&body, Mode::Create, &[]).unwrap();
    assert_eq!(f.department, Some(Department::Radiodiagnosis));
    assert_eq!(
        f.practices.unwrap().into_iter().collect::<Vec<_>>(),
        [Practice::OutpatientTherapy, Practice::Diagnosis]
    );
    assert_eq!(f.radioisotopes.unwrap()[0].name.as_str(), "Tc(99m)");
}
