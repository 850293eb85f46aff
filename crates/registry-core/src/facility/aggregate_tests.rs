use super::*;
use crate::error::{assert_codes, codes};
use crate::facility::tests::{link, valid};
use crate::facility::{Mode, read_facility_partial};
use serde_json::{Value, json};

/// `role` passing from the user `from` to the user `to`.
fn handed_over(role: MainRole, from: &str, to: &str) -> RoleChange {
    RoleChange {
        role,
        from: Some(from.into()),
        to: Some(to.into()),
    }
}

#[test]
fn create_refuses_two_holders_of_a_main_role() {
    let incoming = vec![
        link("a", &[MainRole::TechnicalResponsible]),
        link("b", &[MainRole::TechnicalResponsible, MainRole::Titular]),
    ];
    assert_codes(
        apply_user_links(&[], incoming),
        &[("users[1].responsabilities[0]", FieldCode::DuplicateRole)],
    );
}

#[test]
fn a_new_holder_replaces_the_previous_one_who_keeps_other_roles() {
    let current = vec![
        link(
            "old",
            &[MainRole::TechnicalResponsible, MainRole::Supervisor],
        ),
        link("t", &[MainRole::Titular]),
    ];
    // The client sends the full list, still showing the old holder with the role.
    let incoming = vec![
        link(
            "old",
            &[MainRole::TechnicalResponsible, MainRole::Supervisor],
        ),
        link("t", &[MainRole::Titular]),
        link("new", &[MainRole::TechnicalResponsible]),
    ];
    let (links, changes) = apply_user_links(&current, incoming).unwrap();
    assert_eq!(links[0], link("old", &[MainRole::Supervisor]));
    assert_eq!(links[2], link("new", &[MainRole::TechnicalResponsible]));
    assert_eq!(
        changes,
        vec![handed_over(MainRole::TechnicalResponsible, "old", "new")]
    );
}

#[test]
fn two_new_holders_of_one_role_are_refused_on_edit() {
    let current = vec![link("old", &[MainRole::Substitute])];
    let incoming = vec![
        link("old", &[MainRole::Substitute]),
        link("a", &[MainRole::Substitute]),
        link("b", &[MainRole::Substitute]),
    ];
    assert_codes(
        apply_user_links(&current, incoming),
        &[("users[2].responsabilities[0]", FieldCode::DuplicateRole)],
    );
}

#[test]
fn keeping_the_same_holder_changes_nothing() {
    let current = vec![link("a", &[MainRole::Titular])];
    let (links, changes) = apply_user_links(&current, current.clone()).unwrap();
    assert_eq!(links, current);
    assert!(changes.is_empty());
}

#[test]
fn linked_users_must_exist_and_be_active() {
    let links = vec![link("a", &[]), link("b", &[]), link("c", &[])];
    let known = BTreeMap::from([
        ("a".to_string(), UserState::Active),
        ("b".to_string(), UserState::Inactive),
    ]);
    assert_eq!(
        codes(&check_linked_users(&links, &known)),
        vec![
            ("users[1]._id", FieldCode::UserInactive),
            ("users[2]._id", FieldCode::UserNotFound)
        ]
    );
}

#[test]
fn cnpj_lock_only_bites_when_linked_and_changed() {
    let other = Cnpj::parse("33000167000101").unwrap();
    let same = Cnpj::parse("11222333000181").unwrap();
    assert_eq!(
        check_cnpj_lock("11222333000181", Some(&other), true)
            .unwrap()
            .code,
        FieldCode::CnpjLocked
    );
    assert!(check_cnpj_lock("11222333000181", Some(&other), false).is_none());
    assert!(check_cnpj_lock("11222333000181", Some(&same), true).is_none());
    assert!(check_cnpj_lock("11222333000181", None, true).is_none());
}

fn refs(users: &[(&str, UserState)]) -> References {
    References {
        group_exists: true,
        users: users.iter().map(|(id, s)| (id.to_string(), *s)).collect(),
        linked_to_records: false,
    }
}

fn current() -> FacilityFields {
    let (changes, errs) = read_facility_partial(&valid(), Mode::Create, &[]);
    changes
        .into_new(&refs(&[("u1", UserState::Active)]), errs)
        .unwrap()
        .fields
}

fn edit(body: Value, refs: &References) -> Result<Option<Applied>, Vec<FieldError>> {
    let (changes, errs) = read_facility_partial(&body, Mode::Edit, &[]);
    changes.apply_to(&current(), refs, errs)
}

#[test]
fn a_new_facility_takes_every_field_and_reports_its_role_holders() {
    let new = current();
    assert_eq!(new.key(), ("11222333000181", Department::NuclearMedicine));
    assert_eq!(new.telephone, "(11) 3456-7890");
    assert_eq!(new.group_id, None);
    assert_eq!(new.cnen_registry.as_deref(), Some("CNEN-1234"));
    assert_eq!(new.radioisotopes.len(), 2);
    assert_eq!(new.practices.len(), 2);
    let (changes, errs) = read_facility_partial(&valid(), Mode::Create, &[]);
    let applied = changes
        .into_new(&refs(&[("u1", UserState::Active)]), errs)
        .unwrap();
    let holders: Vec<_> = applied.role_changes.iter().map(|c| c.role).collect();
    assert_eq!(
        holders,
        [MainRole::Titular, MainRole::TechnicalResponsible],
        "{:?}",
        applied.role_changes
    );
    assert!(
        applied
            .role_changes
            .iter()
            .all(|c| c.from.is_none() && c.to.as_deref() == Some("u1"))
    );
}

#[test]
fn a_new_facility_reports_reading_and_reference_errors_together() {
    let mut body = valid();
    body["name"] = json!("");
    body["group"] = json!("g1");
    let (changes, errs) = read_facility_partial(&body, Mode::Create, &[]);
    let refs = References::default();
    assert_codes(
        changes.into_new(&refs, errs),
        &[
            ("name", FieldCode::Required),
            ("group", FieldCode::GroupNotFound),
            ("users[0]._id", FieldCode::UserNotFound),
        ],
    );
}

/// How an edit should change the current fields.
type Expected = fn(&mut FacilityFields);

#[test]
fn each_field_of_an_edit_replaces_only_its_own() {
    let refs = refs(&[("u2", UserState::Active)]);
    let cases: Vec<(Value, Expected)> = vec![
        (json!({"name": "Nova"}), |f| f.name = "Nova".into()),
        (json!({"companyName": "Nova Ltda"}), |f| {
            f.company_name = "Nova Ltda".into()
        }),
        (json!({"cnpj": "33000167000101"}), |f| {
            f.cnpj = "33000167000101".into()
        }),
        (json!({"telephone": "(21) 98765-4321"}), |f| {
            f.telephone = "(21) 98765-4321".into()
        }),
        (json!({"department": "Radiodiagnóstico"}), |f| {
            f.department = Department::Radiodiagnosis
        }),
        (json!({"group": {"_id": "g1"}}), |f| {
            f.group_id = Some("g1".into())
        }),
        (json!({"CNENregistry": null}), |f| f.cnen_registry = None),
        (
            json!({"address": {"street": "Rua B", "city": "Santos", "state": "SP"}}),
            |f| {
                f.address = vec![Address {
                    street: "Rua B".into(),
                    city: "Santos".into(),
                    state: "SP".into(),
                    complement: None,
                    zip_code: None,
                }]
            },
        ),
        (
            json!({"users": [{"_id": "u2", "responsabilities": []}]}),
            |f| f.users = vec![link("u2", &[])],
        ),
        (json!({"radioisotopes": []}), |f| f.radioisotopes.clear()),
        (json!({"practices": []}), |f| f.practices.clear()),
    ];
    for (body, expected) in cases {
        let mut want = current();
        expected(&mut want);
        let applied = edit(body.clone(), &refs).unwrap().expect("a change");
        assert_eq!(applied.fields, want, "{body}");
    }
}

#[test]
fn an_edit_that_changes_nothing_is_detected() {
    let refs = refs(&[("u1", UserState::Active)]);
    assert_eq!(edit(json!({}), &refs).unwrap(), None);
    assert_eq!(edit(valid(), &refs).unwrap(), None);
    assert_eq!(
        edit(
            json!({"name": " Clínica Nuclear Paulista ", "group": ""}),
            &refs
        )
        .unwrap(),
        None
    );
    // The same authorisations in another order: nothing changes, the stored order stays.
    let reordered = json!({"radioisotopes": [{"name": "I(131)", "quantity": 200.5}, {"name": "Tc(99m)", "quantity": 1500}]});
    assert_eq!(edit(reordered, &refs).unwrap(), None);
    let fewer = json!({"radioisotopes": [{"name": "I(131)", "quantity": 200.5}]});
    assert!(edit(fewer, &refs).unwrap().is_some());
}

#[test]
fn an_edit_moving_a_main_role_replaces_its_holder() {
    let body = json!({"users": [
        {"_id": "u1", "responsabilities": ["Titular", "Responsável Técnico"]},
        {"_id": "u2", "responsabilities": ["Responsável Técnico"]}]});
    let refs = refs(&[("u1", UserState::Active), ("u2", UserState::Active)]);
    let applied = edit(body, &refs).unwrap().expect("a change");
    assert_eq!(
        applied.fields.users,
        vec![
            link("u1", &[MainRole::Titular]),
            link("u2", &[MainRole::TechnicalResponsible])
        ]
    );
    assert_eq!(
        applied.role_changes,
        vec![handed_over(MainRole::TechnicalResponsible, "u1", "u2")]
    );
}

#[test]
fn an_edit_reports_every_error_at_once_and_the_cnpj_lock() {
    let body = json!({"telephone": "123", "group": "g9", "cnpj": "33000167000101",
        "users": [{"_id": "u3", "responsabilities": []}]});
    let mut refs = refs(&[("u3", UserState::Inactive)]);
    refs.group_exists = false;
    refs.linked_to_records = true;
    assert_codes(
        edit(body, &refs),
        &[
            ("telephone", FieldCode::InvalidTelephone),
            ("group", FieldCode::GroupNotFound),
            ("users[0]._id", FieldCode::UserInactive),
            ("cnpj", FieldCode::CnpjLocked),
        ],
    );
    let same_cnpj = json!({"cnpj": "11222333000181", "name": "Outra"});
    assert!(edit(same_cnpj, &refs).unwrap().is_some());
}

#[test]
fn what_an_edit_asks_of_the_store() {
    let (changes, _) = read_facility_partial(
        &json!({"group": {"_id": "g1"}, "users": [{"_id": "a"}, {"_id": "b"}], "cnpj": "33000167000101"}),
        Mode::Edit,
        &[],
    );
    assert_eq!(changes.named_group(), Some("g1"));
    assert_eq!(changes.linked_user_ids(), Some(vec!["a", "b"]));
    assert!(changes.changes_cnpj("11222333000181"));
    assert!(!changes.changes_cnpj("33000167000101"));
    let (changes, _) = read_facility_partial(&json!({"group": null}), Mode::Edit, &[]);
    assert_eq!(changes.named_group(), None);
    assert_eq!(changes.linked_user_ids(), None);
    assert!(!changes.changes_cnpj("11222333000181"));
}
