//! The rejections of spec section 7, on create and on edit.

use crate::helpers::{TestApp, facility_payload, unique_cnpj};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    spec_section_7_rejections_on_create,
    spec_section_7_rejections_on_edit
);

async fn spec_section_7_rejections_on_create(app: TestApp) {
    let create = |body| app.post("/api/facility/register/", &app.admin, body);
    // Required fields, all reported at once.
    let res = create(json!({}))
        .await
        .expect_error(422, "validation_failed");
    for field in [
        "name",
        "companyName",
        "cnpj",
        "telephone",
        "department",
        "address",
    ] {
        assert!(
            res.has_field_error(field, "required"),
            "{field}: {}",
            res.body
        );
    }
    let mut p = facility_payload("X");
    p["address"] = json!([{"street": "Rua 1", "city": "", "state": "SP"}]);
    p["name"] = json!("  ");
    let res = create(p).await.expect_error(422, "validation_failed");
    assert_eq!(
        res.field_errors(),
        vec![
            ("name".to_owned(), "required".to_owned()),
            ("address[0].city".to_owned(), "required".to_owned())
        ]
    );

    // Invalid cnpj: punctuation or spaces (with the bare form in the message), check digits,
    // all-identical.
    let mut p = facility_payload("X");
    p["cnpj"] = json!("11.222.333/0001-81");
    let res = create(p.clone())
        .await
        .expect_field_error("cnpj", "invalid_cnpj");
    assert!(
        res.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("11222333000181")
    );
    for bad in [
        "11222333000182",
        "00000000000000",
        "A1B2C3D41A2B99",
        "123",
        " 11222333000181 ",
    ] {
        p["cnpj"] = json!(bad);
        assert!(
            create(p.clone())
                .await
                .expect_error(422, "validation_failed")
                .has_field_error("cnpj", "invalid_cnpj"),
            "{bad}"
        );
    }
    p["cnpj"] = json!("12ABC34501DE35");
    app.create_facility(p).await;

    // Users must exist and be active.
    let (inactive, _) = app.user_with(&["Cliente"], "Ina Tiva").await;
    app.admin_post_id("/api/exclude/", &inactive).await;
    let mut p = facility_payload("X");
    p["users"] = json!([{"_id": "no-such-user", "responsabilities": ["Titular"]}, {"_id": inactive, "responsabilities": []}]);
    let res = create(p)
        .await
        .expect_field_error("users[0]._id", "user_not_found");
    assert!(res.has_field_error("users[1]._id", "user_inactive"));

    // Radioisotope quantities: positive, dot decimal, nothing else.
    for bad in [
        json!("12,5"),
        json!(0),
        json!(-3),
        json!("abc"),
        json!("1.5 mCi"),
        json!(true),
    ] {
        let mut p = facility_payload("X");
        p["radioisotopes"] = json!([{"name": "F(18)", "quantity": bad}]);
        let res = create(p).await.expect_error(422, "validation_failed");
        assert!(
            res.has_field_error("radioisotopes[0].quantity", "invalid_quantity"),
            "{bad}: {}",
            res.body
        );
    }
    let mut p = facility_payload("X");
    p["radioisotopes"] = json!([{"name": "Tc-99m", "quantity": 1}, {"name": "F(18)", "quantity": 1}, {"name": "F(18)", "quantity": 2}]);
    p["practices"] = json!(["Cirurgia"]);
    p["department"] = json!("Cardiologia");
    p["telephone"] = json!("3456-7890");
    p["users"] = json!([{"_id": "x", "responsabilities": ["Chefe"]}]);
    p["group"] = json!("no-such-group");
    create(p).await.expect_field_errors(&[
        ("radioisotopes[0].name", "invalid_radioisotope"),
        ("radioisotopes[2].name", "duplicate_radioisotope"),
        ("practices[0]", "invalid_practice"),
        ("department", "invalid_department"),
        ("telephone", "invalid_telephone"),
        ("users[0].responsabilities[0]", "invalid_responsibility"),
        ("users[0]._id", "user_not_found"),
        ("group", "group_not_found"),
    ]);

    // Two holders of one main role on create.
    let (a, _) = app.user_with(&["Físico"], "Ana").await;
    let (b, _) = app.user_with(&["Físico"], "Bia").await;
    let mut p = facility_payload("X");
    p["users"] = json!([{"_id": a, "responsabilities": ["Titular"]}, {"_id": b, "responsabilities": ["Titular"]}]);
    create(p)
        .await
        .expect_field_error("users[1].responsabilities[0]", "duplicate_role");

    // Nothing was stored by the refused requests.
    assert_eq!(app.admin_get("/api/facilities").await["paging"]["total"], 1);
}

async fn spec_section_7_rejections_on_edit(app: TestApp) {
    let f = app.create_facility(facility_payload("Editável")).await;
    let id = f["_id"].as_str().unwrap();
    let (inactive, _) = app.user_with(&["Cliente"], "Ex User").await;
    app.admin_post_id("/api/exclude/", &inactive).await;
    let cases = [
        (json!({"name": ""}), "name", "required"),
        (json!({"companyName": null}), "companyName", "required"),
        (
            json!({"telephone": "123"}),
            "telephone",
            "invalid_telephone",
        ),
        (json!({"address": []}), "address", "required"),
        (
            json!({"address": [{"street": "R", "city": "C"}]}),
            "address[0].state",
            "required",
        ),
        (
            json!({"cnpj": "11.222.333/0001-81"}),
            "cnpj",
            "invalid_cnpj",
        ),
        (
            json!({"users": [{"_id": "ghost", "responsabilities": []}]}),
            "users[0]._id",
            "user_not_found",
        ),
        (
            json!({"users": [{"_id": inactive, "responsabilities": []}]}),
            "users[0]._id",
            "user_inactive",
        ),
        (
            json!({"radioisotopes": [{"name": "I(131)", "quantity": "7,4"}]}),
            "radioisotopes[0].quantity",
            "invalid_quantity",
        ),
    ];
    for (mut body, field, code) in cases {
        body["_id"] = json!(id);
        let res = app
            .post("/api/facility/edit", &app.admin, body.clone())
            .await
            .expect_error(422, "validation_failed");
        assert!(res.has_field_error(field, code), "{body}: {}", res.body);
        let res = app
            .put(
                &format!("/api/facility/{id}/edit"),
                &app.admin,
                body.clone(),
            )
            .await
            .expect_error(422, "validation_failed");
        assert!(res.has_field_error(field, code), "PUT {body}: {}", res.body);
    }
    // Nothing changed.
    let after = app.admin_get(&format!("/api/facility/{id}")).await;
    assert_eq!(after, f);
    // _id is required on the POST form, must match the path on the PUT form, and must exist.
    app.post("/api/facility/edit", &app.admin, json!({"name": "N"}))
        .await
        .expect_field_error("_id", "required");
    for other in [json!("other"), json!(5), json!({"_id": "other"})] {
        app.put(
            &format!("/api/facility/{id}/edit"),
            &app.admin,
            json!({"_id": other, "name": "N"}),
        )
        .await
        .expect_field_error("_id", "invalid_value");
    }
    // With the payload's own failing fields in the same answer.
    app.put(
        &format!("/api/facility/{id}/edit"),
        &app.admin,
        json!({"_id": "other", "name": "", "cnpj": "1"}),
    )
    .await
    .expect_field_errors(&[
        ("_id", "invalid_value"),
        ("name", "required"),
        ("cnpj", "invalid_cnpj"),
    ]);
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": "missing", "name": "N"}),
    )
    .await
    .expect_error(404, "not_found");
    // Without linked records the cnpj may change.
    let new_cnpj = unique_cnpj();
    let edited = app
        .admin_post("/api/facility/edit", json!({"_id": id, "cnpj": new_cnpj}))
        .await;
    assert_eq!(edited["cnpj"], new_cnpj);
}
