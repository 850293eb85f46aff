//! QC test records: recording, editing, deleting and their history.

use super::{DOSE_CALIBRATOR, days_ago, equipment, id, record, test_type, today};
use crate::documents::{admin_upload, pdf};
use crate::helpers::{TestApp, entries, facility_payload};
use crate::on_both_databases;
use chrono::Days;
use reqwest::Method;
use serde_json::{Value, json};

on_both_databases!(
    qc_tests_record_edit_delete_and_history,
    a_test_stays_with_its_facility_and_names_a_document_of_it
);

async fn qc_tests_record_edit_delete_and_history(app: TestApp) {
    let (fisico_id, fisico) = app.user_with(&["Físico"], "Fabio Fisico").await;
    let (gone, _) = app.user_with(&["Físico"], "Gone").await;
    app.admin_post_id("/api/exclude/", &gone).await;
    let f = id(&app.create_facility(facility_payload("Testada")).await);
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Precisão", 90).await;

    // Every failing field at once.
    app.post(
        "/api/test",
        &fisico,
        json!({"equipment": eq, "typeOfTest": tt, "date": "21/11/2026", "conclusion": "Bom"}),
    )
    .await
    .expect_field_errors(&[("date", "invalid_value"), ("conclusion", "invalid_value")]);
    let tomorrow = (today() + Days::new(1)).to_string();
    app.post(
        "/api/test",
        &fisico,
        json!({"equipment": eq, "typeOfTest": tt, "date": tomorrow, "conclusion": "Satisfatório"}),
    )
    .await
    .expect_field_error("date", "invalid_value");
    let missing = app
        .post("/api/test", &fisico, json!({}))
        .await
        .expect_error(422, "validation_failed");
    for field in ["equipment", "typeOfTest", "date", "conclusion"] {
        assert!(missing.has_field_error(field, "required"), "{field}");
    }
    // performedBy must be an active user.
    for (performer, code) in [
        (gone.as_str(), "user_inactive"),
        ("nobody", "user_not_found"),
    ] {
        assert!(
            app.post(
                "/api/test",
                &fisico,
                json!({"equipment": eq, "typeOfTest": tt, "date": days_ago(1), "conclusion": "Satisfatório",
                       "performedBy": performer}),
            )
            .await
            .expect_error(422, "validation_failed")
            .has_field_error("performedBy", code),
            "{code}"
        );
    }

    // performedBy defaults to the caller.
    let first = app
        .post_created(
            "/api/test/",
            &fisico,
            json!({"equipment": eq, "typeOfTest": {"_id": tt}, "date": days_ago(30),
                   "conclusion": "Satisfatório com observações", "measurements": {"Cs-137": {"deviation": 0.021}},
                   "notes": "fonte de Co-57 vencida"}),
        )
        .await;
    assert_eq!(
        first["performedBy"],
        json!({"_id": fisico_id, "name": "Fabio Fisico"})
    );
    assert_eq!(first["equipment"], eq.as_str());
    assert_eq!(first["facility"]["_id"], f.as_str());
    assert_eq!(first["typeOfTest"], json!({"_id": tt, "name": "Precisão"}));
    assert_eq!(first["conclusion"], "Satisfatório com observações");
    assert_eq!(first["measurements"]["Cs-137"]["deviation"], 0.021);
    assert_eq!(first["date"], days_ago(30));
    let newest = record(&app, &eq, &tt, &days_ago(5)).await;
    let oldest = record(&app, &eq, &tt, &days_ago(200)).await;

    let history = app.get_ok(&format!("/api/test/{eq}/{tt}"), &fisico).await;
    assert_eq!(history["paging"]["total"], 3);
    let order: Vec<&Value> = entries(&history).iter().map(|t| &t["_id"]).collect();
    assert_eq!(order, [&newest["_id"], &first["_id"], &oldest["_id"]]);
    let ranged = app
        .get_ok(
            &format!(
                "/api/test/{eq}/{tt}?dateGte={}&dateLt={}",
                days_ago(100),
                days_ago(5)
            ),
            &fisico,
        )
        .await;
    assert_eq!(ranged["paging"]["total"], 1);
    assert_eq!(ranged["list"][0]["_id"], first["_id"]);
    let filters = json!({"dateGte": days_ago(10), "pageSize": 1}).to_string();
    let paged = app
        .client
        .get(app.url(&format!("/api/test/{eq}/{tt}")))
        .query(&[("filters", filters)])
        .bearer_auth(&fisico)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(
        paged["paging"],
        json!({"total": 1, "pageNum": 1, "pageSize": 1})
    );
    app.get(&format!("/api/test/{eq}/{tt}?dateGte=ontem"), &fisico)
        .await
        .expect_error(400, "bad_request");
    app.assert_not_found(&format!("/api/test/{eq}/missing"), &fisico)
        .await;

    // Edit with PUT: fields present replace; the rules of create hold.
    let first_id = id(&first);
    let edited = app
        .put_ok(
            &format!("/api/test/{first_id}"),
            &fisico,
            json!({"conclusion": "Insatisfatório", "notes": null, "date": days_ago(31)}),
        )
        .await;
    assert_eq!(edited["conclusion"], "Insatisfatório");
    assert_eq!(edited["notes"], Value::Null);
    assert_eq!(edited["date"], days_ago(31));
    assert_eq!(edited["measurements"], first["measurements"]);
    app.put(
        &format!("/api/test/{first_id}"),
        &fisico,
        json!({"performedBy": gone}),
    )
    .await
    .expect_error(422, "validation_failed");
    // A performer deactivated since does not block corrections of their records.
    let (leaving, leaving_token) = app.user_with(&["Físico"], "Leaving").await;
    let theirs = app
        .post_created(
            "/api/test",
            &leaving_token,
            json!({"equipment": eq, "typeOfTest": tt, "date": days_ago(3), "conclusion": "Satisfatório"}),
        )
        .await;
    app.admin_post_id("/api/exclude/", &leaving).await;
    let corrected = app
        .put_ok(
            &format!("/api/test/{}", id(&theirs)),
            &fisico,
            json!({"notes": "corrigido"}),
        )
        .await;
    assert_eq!(corrected["performedBy"]["_id"], leaving.as_str());
    // So is the record sent back whole, as read: its performer is not checked again.
    let mut whole = app
        .get_ok(&format!("/api/test/{}", id(&theirs)), &fisico)
        .await;
    whole["notes"] = json!("corrigido de novo");
    app.put_ok(&format!("/api/test/{}", id(&theirs)), &fisico, whole)
        .await;
    app.post_ok(&format!("/api/test/{}", id(&theirs)), &fisico, json!({}))
        .await;
    app.put("/api/test/missing", &fisico, json!({"notes": "x"}))
        .await
        .expect_error(404, "not_found");

    // Delete with POST /test/:id: no body, or one that names this test; a body that is not
    // what its sender meant deletes nothing.
    let path = format!("/api/test/{first_id}");
    for text in ["{garbage", "[1,2"] {
        app.post_json_text(&path, &fisico, text.into())
            .await
            .expect_error(400, "bad_request");
    }
    app.post(&path, &fisico, json!({"_id": "another-test"}))
        .await
        .expect_field_error("_id", "invalid_value");
    app.post(&path, &fisico, json!({"_id": 5}))
        .await
        .expect_field_error("_id", "invalid_value");
    app.get_ok(&path, &fisico).await;
    app.call(Method::POST, &path, Some(&fisico), None)
        .await
        .expect(200);

    app.assert_not_found(&format!("/api/test/{first_id}"), &fisico)
        .await;
    app.post(&format!("/api/test/{first_id}"), &fisico, json!({}))
        .await
        .expect_error(404, "not_found");
    assert_eq!(app.total(&format!("/api/test/{eq}/{tt}"), &fisico).await, 2);
}

/// The `document` that the test `test` names for `token`, read alone and in `history`.
async fn report_named(
    app: &TestApp,
    token: &str,
    test: &str,
    history: &str,
) -> [Option<String>; 2] {
    let names = |record: &Value| record["document"].as_str().map(str::to_owned);
    let record = app.get_ok(&format!("/api/test/{test}"), token).await;
    let listed = app.get_ok(history, token).await["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["_id"] == test)
        .map(names)
        .expect("listed");
    [names(&record), listed]
}

/// A recorded test may move to other equipment of its facility, not to another facility's; the
/// report `document` it names must exist and be of the equipment's facility.
async fn a_test_stays_with_its_facility_and_names_a_document_of_it(app: TestApp) {
    let (client_id, client) = app.user_with(&["Cliente"], "Cliente da A").await;
    let a = id(&app.create_facility_of(&client_id, "Clínica A").await);
    let b = id(&app.create_facility(facility_payload("Clínica B")).await);
    let (a1, a2, b1) = (
        equipment(&app, &a, DOSE_CALIBRATOR).await,
        equipment(&app, &a, DOSE_CALIBRATOR).await,
        equipment(&app, &b, DOSE_CALIBRATOR).await,
    );
    let tt = test_type(&app, DOSE_CALIBRATOR, "Inspeção visual", 30).await;
    let test = id(&record(&app, &a1, &tt, &days_ago(1)).await);
    let path = format!("/api/test/{test}");
    let moved = app
        .put(&path, &app.admin, json!({"equipment": b1}))
        .await
        .expect_field_error("equipment", "invalid_value");
    let message = moved.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("Clínica A"), "{message}");
    let kept = app.get_ok(&path, &app.admin).await;
    assert_eq!(
        (kept["equipment"].as_str(), kept["facility"]["_id"].as_str()),
        (Some(a1.as_str()), Some(a.as_str()))
    );
    let moved = app
        .put(&path, &app.admin, json!({"equipment": a2}))
        .await
        .expect(200);
    assert_eq!(moved["equipment"], a2.as_str());

    let doc_a = id(&admin_upload(&app, &a, pdf(1000, 1), &[]).await);
    let doc_b = id(&admin_upload(&app, &b, pdf(1000, 2), &[]).await);
    let new = |document: &str| {
        json!({"equipment": a1, "typeOfTest": tt, "date": days_ago(2), "conclusion": "Satisfatório",
               "document": document})
    };
    for (document, says) in [
        ("does-not-exist", "no document"),
        (doc_b.as_str(), "Clínica B"),
    ] {
        let refused = app
            .post("/api/test", &app.admin, new(document))
            .await
            .expect_field_error("document", "invalid_value");
        let message = refused.body["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
        app.put(&path, &app.admin, json!({"document": document}))
            .await
            .expect_field_error("document", "invalid_value");
    }
    let created = app.post_created("/api/test", &app.admin, new(&doc_a)).await;
    assert_eq!(created["document"], doc_a.as_str());
    // A Cliente of the facility is not told the `_id` of a report they may not read (a draft),
    // in the record or in the history; once it is released, they are.
    let test = id(&created);
    let history = format!("/api/test/{a1}/{tt}");
    assert_eq!(
        report_named(&app, &client, &test, &history).await,
        [None, None]
    );
    let doc = Some(doc_a.clone());
    let both = [doc.clone(), doc];
    assert_eq!(report_named(&app, &app.admin, &test, &history).await, both);
    for step in ["/api/document/sign", "/api/document/liberate"] {
        app.admin_post_id(step, &doc_a).await;
    }
    assert_eq!(report_named(&app, &client, &test, &history).await, both);
    // A report deleted later stays referenced, and the record sent back with it is no error.
    app.admin_post_id("/api/document/exclude/", &doc_a).await;
    let path = format!("/api/test/{}", id(&created));
    let kept = app
        .put_ok(&path, &app.admin, json!({"document": doc_a, "notes": "x"}))
        .await;
    assert_eq!(kept["document"], doc_a.as_str());
}
