//! Receipts checked against the facility's authorisation, and the weekly usage they add up to.

use super::{receive, setup};
use crate::equipment::id;
use crate::helpers::{TestApp, entries};
use crate::on_both_databases;
use chrono::Utc;
use registry_core::material::IsoWeek;
use serde_json::{Value, json};

on_both_databases!(
    receipts_are_checked_against_the_authorisation,
    weekly_usage_sums_monday_to_sunday_in_brasilia,
    concurrent_receipts_are_summed_one_after_another
);

/// A receipt's week and its `overQuantity` flag.
fn week_and_flag(receipt: &Value) -> (Option<&str>, Option<bool>) {
    (receipt["week"].as_str(), receipt["overQuantity"].as_bool())
}

async fn receipts_are_checked_against_the_authorisation(app: TestApp) {
    let (facility, linked, other) = setup(&app, "Clínica Recebimentos").await;
    let path = format!("/api/facility/{facility}/receipts");
    let good = json!({"radioisotope": "I(131)", "activity": 150, "supplier": "IPEN", "lot": "L-77",
                      "receivedAt": "2026-03-02T10:00:00-03:00"});
    app.post(&path, &linked, good.clone())
        .await
        .expect_error(403, "permission_denied");
    app.post("/api/facility/nope/receipts", &app.admin, good.clone())
        .await
        .expect_error(404, "not_found");
    // Not authorised at this facility: refused, the field named; every other failing field too.
    let res = app
        .post(
            &path,
            &app.admin,
            json!({"radioisotope": "F(18)", "activity": 10}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert_eq!(
        res.field_errors(),
        [
            ("radioisotope".to_owned(), "invalid_radioisotope".to_owned()),
            ("supplier".to_owned(), "required".to_owned())
        ]
    );
    let res = app
        .post(
            &path,
            &app.admin,
            json!({"radioisotope": "F(18)", "activity": 10, "supplier": "IPEN"}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert!(
        res.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("authorised")
    );
    app.post(
        &path,
        &app.admin,
        json!({"radioisotope": "Xe(133)", "activity": "1,5", "supplier": "IPEN",
               "receivedAt": (Utc::now() + chrono::Duration::hours(2)).to_rfc3339()}),
    )
    .await
    .expect_field_errors(&[
        ("radioisotope", "invalid_radioisotope"),
        ("activity", "invalid_quantity"),
        ("receivedAt", "invalid_value"),
    ]);

    let first = receive(&app, &facility, good).await;
    assert_eq!(first["radioisotope"], "I(131)");
    assert_eq!(first["week"], "2026-W10");
    assert_eq!(first["overQuantity"], false);
    assert_eq!(first["activityAtReceipt"], 150.0);
    assert_eq!(
        first["receivedBy"], "Administrator",
        "defaults to the caller"
    );
    assert_eq!(first["facility"]["_id"], facility.as_str());
    // Sunday 23:30 in Brasília is still week 10, and takes it over 200.5 mCi: stored, flagged.
    let over = receive(
        &app,
        &facility,
        json!({"radioisotope": "I-131", "activity": "60", "supplier": "IPEN", "receivedBy": "Ana",
               "receivedAt": "2026-03-08T23:30:00-03:00"}),
    )
    .await;
    assert_eq!(week_and_flag(&over), (Some("2026-W10"), Some(true)));
    // Half an hour later it is Monday: a new week, a new margin.
    let next = receive(
        &app,
        &facility,
        json!({"radioisotope": "I(131)", "activity": 60, "supplier": "IPEN", "receivedAt": "2026-03-09T00:30:00-03:00"}),
    )
    .await;
    assert_eq!(week_and_flag(&next), (Some("2026-W11"), Some(false)));
    // The declared activity is decayed to the time of receipt: one half-life of Tc-99m halves it.
    let decayed = receive(
        &app,
        &facility,
        json!({"radioisotope": "Tc(99m)", "activity": 100, "supplier": "IPEN",
               "activityReferenceTime": "2026-03-03T06:00:00-03:00", "receivedAt": "2026-03-03T12:00:24.12-03:00"}),
    )
    .await;
    let a = decayed["activityAtReceipt"].as_f64().unwrap();
    assert!((a - 50.0).abs() < 1e-3, "{a}");
    assert_eq!(decayed["activity"], 100.0);

    // Lists: the linked client sees the flag; another client sees nothing of this facility.
    let list = app.get_ok(&path, &linked).await;
    assert_eq!(list["paging"]["total"], 4);
    assert_eq!(list["list"][0]["_id"], next["_id"], "latest received first");
    let flagged = app
        .get_ok(&format!("{path}?overQuantity=true"), &linked)
        .await;
    assert_eq!(flagged["paging"]["total"], 1);
    assert_eq!(flagged["list"][0]["_id"], over["_id"]);
    let filtered = app
        .admin_get(&format!(
            "/api/receipts?filters={}",
            json!({"week": "2026-W10", "radioisotope": "i-131"})
        ))
        .await;
    assert_eq!(filtered["paging"]["total"], 2);
    app.assert_not_found(&path, &other).await;
    // As a filter, the facility only narrows the list: empty for another's client, and for an
    // unknown facility (404 is for the facility in the path).
    let filtered = format!("/api/receipts?facilityId={facility}");
    assert_eq!(app.total(&filtered, &other).await, 0);
    assert_eq!(app.total(&filtered, &linked).await, 4);
    assert_eq!(
        app.total("/api/receipts?facilityId=no-such", &app.admin)
            .await,
        0
    );
    assert_eq!(
        app.total("/api/waste?facilityId=no-such", &app.admin).await,
        0
    );
    assert_eq!(
        app.get_ok("/api/receipts", &other).await["paging"]["total"],
        0
    );
    assert_eq!(
        app.get_ok("/api/receipts", &linked).await["paging"]["total"],
        4
    );
    app.assert_not_found(&format!("/api/receipt/{}", id(&over)), &other)
        .await;
    let shown = app
        .get_ok(&format!("/api/receipt/{}", id(&over)), &linked)
        .await;
    assert_eq!(shown, over);
    app.assert_bad_requests(&[
        "/api/receipts?week=2026-10",
        "/api/receipts?overQuantity=maybe",
        "/api/receipts?radioisotope=I(132)",
    ])
    .await;
    // Every write is audited.
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM audit_events WHERE entity = 'receipt'")
        .fetch_one(&mut app.outside_connection().await)
        .await
        .unwrap();
    assert_eq!(n, 4);
}

async fn weekly_usage_sums_monday_to_sunday_in_brasilia(app: TestApp) {
    let (facility, linked, other) = setup(&app, "Clínica Semanal").await;
    for (activity, at) in [
        // Sunday of week 9, late at night in Brasília (already Monday in UTC): week 9.
        (500, "2026-03-01T23:59:00-03:00"),
        (700, "2026-03-02T00:00:00-03:00"),
        (800, "2026-03-08T23:59:59-03:00"),
        (100, "2026-03-09T00:00:00-03:00"),
    ] {
        receive(
            &app,
            &facility,
            json!({"radioisotope": "Tc(99m)", "activity": activity, "supplier": "IPEN", "receivedAt": at}),
        )
        .await;
    }
    let usage_path = format!("/api/facility/{facility}/radioisotopes/usage");
    let usage = app
        .get_ok(&format!("{usage_path}?week=2026-W10"), &linked)
        .await;
    assert_eq!(usage["week"], "2026-W10");
    assert_eq!(usage["from"], "2026-03-02T03:00:00.000000Z");
    assert_eq!(usage["to"], "2026-03-09T03:00:00.000000Z");
    let lines = usage["radioisotopes"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "one line per authorised isotope: {usage}");
    assert_eq!(
        lines[0],
        json!({"radioisotope": "Tc(99m)", "authorised": 1500.0, "received": 1500.0, "remaining": 0.0,
               "exceeded": false, "receipts": 2})
    );
    assert_eq!(
        lines[1],
        json!({"radioisotope": "I(131)", "authorised": 200.5, "received": 0.0, "remaining": 200.5,
               "exceeded": false, "receipts": 0})
    );
    // Exactly the authorised quantity is not over it; one more mCi is.
    let list = app
        .get_ok(
            &format!("/api/facility/{facility}/receipts?week=2026-W10"),
            &linked,
        )
        .await;
    assert!(entries(&list).iter().all(|r| r["overQuantity"] == false));
    let more = receive(
        &app,
        &facility,
        json!({"radioisotope": "Tc(99m)", "activity": 1, "supplier": "IPEN", "receivedAt": "2026-03-05T10:00:00-03:00"}),
    )
    .await;
    assert_eq!(more["overQuantity"], true);
    let usage = app
        .admin_get(&format!(
            "{usage_path}?filters={}",
            json!({"week": "2026-W10"})
        ))
        .await;
    assert_eq!(usage["radioisotopes"][0]["remaining"], -1.0);
    assert_eq!(usage["radioisotopes"][0]["exceeded"], true);
    let w9 = app.admin_get(&format!("{usage_path}?week=2026-W09")).await;
    assert_eq!(w9["radioisotopes"][0]["received"], 500.0);
    // Without a week: the current one.
    let current = app.admin_get(&usage_path).await;
    assert_eq!(current["week"], IsoWeek::containing(Utc::now()).to_string());
    app.get(&format!("{usage_path}?week=2026-W54"), &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.assert_not_found(&usage_path, &other).await;
    app.assert_not_found("/api/facility/nope/radioisotopes/usage", &app.admin)
        .await;
    // A receipt of an isotope that the facility no longer holds still shows, with nothing authorised.
    app.admin_put(
        &format!("/api/facility/{facility}/edit"),
        json!({"radioisotopes": [{"name": "I(131)", "quantity": 200.5}]}),
    )
    .await;
    let usage = app.admin_get(&format!("{usage_path}?week=2026-W10")).await;
    assert_eq!(usage["radioisotopes"][1]["radioisotope"], "Tc(99m)");
    assert_eq!(usage["radioisotopes"][1]["authorised"], 0.0);
    assert_eq!(usage["radioisotopes"][1]["exceeded"], true);
}

async fn concurrent_receipts_are_summed_one_after_another(app: TestApp) {
    let (facility, _, _) = setup(&app, "Clínica Concorrente").await;
    // Ten receipts of 30 mCi at once against 200.5 mCi a week: the 7th to be summed and every one
    // after it go over, whatever the order the database serialises them in.
    let path = format!("/api/facility/{facility}/receipts");
    let body = json!({"radioisotope": "I(131)", "activity": 30, "supplier": "IPEN", "receivedAt": "2026-04-07T10:00:00-03:00"});
    let answers =
        futures::future::join_all((0..10).map(|_| app.post(&path, &app.admin, body.clone()))).await;
    let flagged = answers
        .into_iter()
        .map(|a| a.expect(201))
        .filter(|r| r["overQuantity"] == true)
        .count();
    assert_eq!(flagged, 4);
    let usage = app
        .admin_get(&format!(
            "/api/facility/{facility}/radioisotopes/usage?week=2026-W15"
        ))
        .await;
    assert_eq!(usage["radioisotopes"][1]["received"], 300.0);
}
