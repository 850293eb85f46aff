//! One answer lists every failing field (product.md §1): a payload with badly formed fields and
//! references that name no record reports both kinds at once, on every create that takes
//! references and on the authentication bodies.

use crate::documents::{form, pdf, send_form};
use crate::equipment::{DOSE_CALIBRATOR, days_ago, equipment, record, test_type};
use crate::helpers::{Answer, TestApp, facility_payload};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    references_are_reported_with_the_other_field_errors,
    authentication_bodies_report_every_missing_field,
    bare_nan_in_a_quantity_is_an_invalid_quantity,
    a_body_id_may_not_name_another_record_than_the_path,
    a_body_that_is_not_an_object_is_refused_as_a_whole,
    an_empty_id_is_a_missing_one
);

/// The `(field, code)` pairs of a 422 answer, sorted.
#[track_caller]
fn errors_of(answer: Answer) -> Vec<(String, String)> {
    let mut errors = answer.expect_error(422, "validation_failed").field_errors();
    errors.sort();
    errors
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<_> = expected
        .iter()
        .map(|(f, c)| (f.to_string(), c.to_string()))
        .collect();
    v.sort();
    v
}

async fn references_are_reported_with_the_other_field_errors(app: TestApp) {
    let admin = app.admin.clone();
    let equipment = app
        .post(
            "/api/equipment/register",
            &admin,
            json!({"facility": "nope", "typeOfEquipment": "nope", "manufacturer": 5}),
        )
        .await;
    assert_eq!(
        errors_of(equipment),
        pairs(&[
            ("facility", "invalid_value"),
            ("manufacturer", "invalid_value"),
            ("typeOfEquipment", "invalid_value"),
        ])
    );

    let test = app
        .post(
            "/api/test/",
            &admin,
            json!({"equipment": "nope", "typeOfTest": "nope", "date": "2026-11-01", "conclusion": "Bom"}),
        )
        .await;
    assert_eq!(
        errors_of(test),
        pairs(&[
            ("conclusion", "invalid_value"),
            ("equipment", "invalid_value"),
            ("typeOfTest", "invalid_value"),
        ])
    );

    // A document with an empty name, a date that does not exist and references to nothing.
    let facility = app.create_facility(facility_payload("Documentada")).await;
    let fid = facility["_id"].as_str().unwrap();
    let fields = [
        ("name", ""),
        ("facility", fid),
        ("date", "2026-02-30"),
        ("validity", "2027-11-01"),
        ("equipment", "nope"),
        ("test", "nope"),
    ];
    let upload = send_form(
        &app,
        "/api/document/register/",
        &admin,
        form(&fields, Some((pdf(2048, 1), "r.pdf"))),
    )
    .await;
    assert_eq!(
        errors_of(upload),
        pairs(&[
            ("date", "invalid_value"),
            ("equipment", "invalid_value"),
            ("name", "required"),
            ("test", "invalid_value"),
        ])
    );
    let mut unknown_facility = fields;
    unknown_facility[1] = ("facility", "nope");
    let upload = send_form(
        &app,
        "/api/document/register/",
        &admin,
        form(&unknown_facility, None),
    )
    .await;
    // Without a facility to judge them by, references to nothing are named as well.
    assert_eq!(
        errors_of(upload),
        pairs(&[
            ("date", "invalid_value"),
            ("equipment", "invalid_value"),
            ("facility", "invalid_value"),
            ("file", "required"),
            ("name", "required"),
            ("test", "invalid_value"),
        ])
    );
}

async fn authentication_bodies_report_every_missing_field(app: TestApp) {
    for body in [json!({}), json!({"email": "", "password": ""})] {
        let login = app.post_anon("/api/login/", body).await;
        assert_eq!(
            errors_of(login),
            pairs(&[("email", "required"), ("password", "required")])
        );
    }
    let change = app
        .post("/api/changePassword/", &app.admin, json!({}))
        .await;
    assert_eq!(
        errors_of(change),
        pairs(&[("currentPassword", "required"), ("newPassword", "required")])
    );
    let change = app
        .post(
            "/api/changePassword/",
            &app.admin,
            json!({"currentPassword": 7, "newPassword": "short"}),
        )
        .await;
    assert_eq!(
        errors_of(change),
        pairs(&[
            ("currentPassword", "invalid_value"),
            ("newPassword", "weak_password")
        ])
    );
    let recover = app
        .post_anon(
            "/api/password_recover/",
            json!({"token": "", "newPassword": ""}),
        )
        .await;
    assert_eq!(
        errors_of(recover),
        pairs(&[("newPassword", "required"), ("token", "required")])
    );
}

/// Python's `json` writes a float NaN as a bare `NaN`: the quantity is refused by its own rule,
/// not the whole body as malformed JSON.
async fn bare_nan_in_a_quantity_is_an_invalid_quantity(app: TestApp) {
    let mut payload = facility_payload("Quantidade NaN");
    payload["radioisotopes"] = json!([{"name": "Tc(99m)", "quantity": 1}]);
    let text = payload
        .to_string()
        .replace(r#""quantity":1"#, r#""quantity": NaN"#);
    assert!(text.contains("NaN"), "{text}");
    for quantity in ["NaN", "Infinity", "-Infinity"] {
        let body = text.replace("NaN", quantity);
        let answer = app
            .post_json_text("/api/facility/register/", &app.admin, body)
            .await;
        let errors = answer.expect_error(422, "validation_failed").field_errors();
        assert_eq!(
            errors,
            [(
                "radioisotopes[0].quantity".into(),
                "invalid_quantity".into()
            )],
            "{quantity}"
        );
    }
    // Other syntax errors stay malformed JSON.
    let body = text.replace("NaN", "nan");
    app.post_json_text("/api/facility/register/", &app.admin, body)
        .await
        .expect_error(400, "bad_request");
}

/// `PUT /facility/{id}/edit` and `PUT /test/{id}`: an `_id` in the body may repeat the path's,
/// never name another record (422 `_id`), and nothing is changed.
async fn a_body_id_may_not_name_another_record_than_the_path(app: TestApp) {
    let facility = app.create_facility(facility_payload("Caminho")).await;
    let other = app.create_facility(facility_payload("Outra")).await;
    let (fid, other_id) = (
        facility["_id"].as_str().unwrap(),
        other["_id"].as_str().unwrap(),
    );
    let path = format!("/api/facility/{fid}/edit");
    app.put(
        &path,
        &app.admin,
        json!({"_id": other_id, "name": "Trocada"}),
    )
    .await
    .expect_field_errors(&[("_id", "invalid_value")]);
    app.put_ok(&path, &app.admin, json!({"_id": fid, "name": "Mesma"}))
        .await;
    assert_eq!(
        app.admin_get(&format!("/api/facility/{other_id}")).await["name"],
        "Outra"
    );

    let eq = equipment(&app, fid, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Exatidão", 30).await;
    let first = record(&app, &eq, &tt, &days_ago(3)).await;
    let second = record(&app, &eq, &tt, &days_ago(2)).await;
    let (first, second) = (
        first["_id"].as_str().unwrap(),
        second["_id"].as_str().unwrap(),
    );
    app.put(
        &format!("/api/test/{first}"),
        &app.admin,
        json!({"_id": second, "notes": "trocada"}),
    )
    .await
    .expect_field_errors(&[("_id", "invalid_value")]);
    let stored = app.admin_get(&format!("/api/test/{second}")).await;
    assert_ne!(stored["notes"], "trocada");
    // An edit's references are reported with its other field errors too.
    let edit = app
        .put(
            &format!("/api/test/{first}"),
            &app.admin,
            json!({"conclusion": "Bom", "typeOfTest": "nope", "performedBy": "nope"}),
        )
        .await;
    assert_eq!(
        errors_of(edit),
        pairs(&[
            ("conclusion", "invalid_value"),
            ("performedBy", "user_not_found"),
            ("typeOfTest", "invalid_value"),
        ])
    );
}

/// Every JSON write of the API description, sent a body that is JSON but not an object (`[]`),
/// answers 422 on the whole body (field `""`), not a field of it reported missing.
async fn a_body_that_is_not_an_object_is_refused_as_a_whole(app: TestApp) {
    let facility = app.create_facility(facility_payload("Corpo Inteiro")).await;
    let fid = facility["_id"].as_str().unwrap();
    let doc = app.openapi().await;
    let (mut checked, mut wrong) = (0, Vec::new());
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let json_body = op["requestBody"]["content"]["application/json"].is_object();
            if !json_body || !["post", "put"].contains(&method.as_str()) {
                continue;
            }
            let path = path.replace("{id}", fid).replace("{facility_id}", fid);
            let method = method.to_uppercase().parse().unwrap();
            let answer = app
                .call(method, &path, Some(&app.admin), Some(&json!([])))
                .await;
            let errors = answer.field_errors();
            if (answer.status.as_u16(), errors.as_slice())
                != (422, &[(String::new(), "invalid_value".to_owned())])
            {
                wrong.push(format!("{path}: {} {}", answer.status, answer.body));
            }
            checked += 1;
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(checked > 30, "{checked} JSON writes");
}

/// An `_id` that is empty or blank names no record: it is reported as missing (`required`), as
/// an absent one is.
async fn an_empty_id_is_a_missing_one(app: TestApp) {
    for path in [
        "/api/exclude/",
        "/api/edit/",
        "/api/group/edit",
        "/api/facility/exclude",
        "/api/facility/edit",
    ] {
        for id in ["", "   "] {
            app.post(path, &app.admin, json!({"_id": id}))
                .await
                .expect_field_errors(&[("_id", "required")]);
        }
    }
}
