//! Waste in decay storage: its release date, its release, and the deployer's clearance levels.

use super::{setup, solid_waste, store_waste};
use crate::equipment::{id, today};
use crate::helpers::TestApp;
use crate::on_both_databases;
use chrono::{DateTime, Days, NaiveDate, Utc};
use registry_core::Radioisotope;
use registry_core::waste::{ClearanceLevels, WasteContent, release_date};
use serde_json::{Value, json};

on_both_databases!(waste_is_released_once_after_its_date);

/// The instant a bare closure date stands for: the end of that day in Brasília.
fn end_of(day: &str) -> DateTime<Utc> {
    let d = NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap() + Days::new(1);
    registry_core::material::day_start(d)
}

async fn waste_is_released_once_after_its_date(app: TestApp) {
    let (facility, linked, other) = setup(&app, "Clínica Rejeitos").await;
    let (_, fisico) = app.user_with(&["Físico"], "Fisica").await;
    let shelf = "Sala de decaimento, prateleira 1";
    let old = store_waste(&app, &facility, solid_waste("I(131)", shelf)).await;
    let expected = release_date(
        &[WasteContent {
            radioisotope: Radioisotope::I131,
            activity: 1.0,
        }],
        10.0,
        end_of("2026-01-05"),
        &ClearanceLevels::default(),
    );
    assert_eq!(old["releaseDate"], expected.to_string());
    assert_eq!(old["releaseDate"], "2026-02-21");
    assert_eq!(old["releasable"], true);
    assert_eq!(old["closedAt"], "2026-01-06T03:00:00.000000Z");
    assert!(old["release"].is_null());
    let fresh = store_waste(
        &app,
        &facility,
        json!({"form": "liquid", "contents": [{"radioisotope": "I(131)", "activity": 500}, {"radioisotope": "Tc(99m)", "activity": 50}],
               "mass": "2.5", "location": "Tanque 2", "description": "Rejeito de iodoterapia"}),
    )
    .await;
    assert_eq!(fresh["form"], "Líquido");
    assert_eq!(fresh["releasable"], false);
    assert!(fresh["releaseDate"].as_str().unwrap() > today().to_string().as_str());
    // Refusals: a Cliente may not store; bad payloads name every field.
    app.assert_post_denied(
        &format!("/api/facility/{facility}/waste"),
        &linked,
        json!({}),
    )
    .await;
    app.post(
        &format!("/api/facility/{facility}/waste"),
        &app.admin,
        json!({"form": "gas", "contents": [], "mass": -2}),
    )
    .await
    .expect_field_errors(&[
        ("form", "invalid_value"),
        ("contents", "invalid_value"),
        ("mass", "invalid_value"),
        ("location", "required"),
    ]);

    // What can go today.
    let releasable = app.admin_get("/api/waste?releasable=true").await;
    assert_eq!(releasable["paging"]["total"], 1);
    assert_eq!(releasable["list"][0]["_id"], old["_id"]);
    let waiting = app
        .get_ok(
            &format!("/api/facility/{facility}/waste?releasable=false"),
            &linked,
        )
        .await;
    assert_eq!(waiting["list"][0]["_id"], fresh["_id"]);
    // Either spelling, in any case, like the facility lists' filter.
    for filter in ["Tc(99m)", "tc-99M", "TC(99M)"] {
        assert_eq!(
            app.admin_get(&format!("/api/waste?radioisotope={filter}"))
                .await["paging"]["total"],
            1,
            "{filter}"
        );
    }
    assert_eq!(app.get_ok("/api/waste", &other).await["paging"]["total"], 0);
    app.assert_not_found(&format!("/api/waste/{}", id(&old)), &other)
        .await;
    app.assert_not_found(&format!("/api/facility/{facility}/waste"), &other)
        .await;

    // Release: not before the date; only staff; the dose rate is required.
    let release = |w: &Value| format!("/api/waste/{}/release", id(w));
    app.post(&release(&fresh), &app.admin, json!({"doseRate": 0.1}))
        .await
        .expect_error(409, "conflict");
    app.post(&release(&old), &linked, json!({"doseRate": 0.1}))
        .await
        .expect_error(403, "permission_denied");
    app.post(&release(&old), &fisico, json!({"notes": "sem medida"}))
        .await
        .expect_field_error("doseRate", "required");
    let released = app
        .post_ok(
            &release(&old),
            &fisico,
            json!({"doseRate": 0.12, "notes": "Fundo: 0.10 µSv/h"}),
        )
        .await;
    assert_eq!(released["release"]["doseRate"], 0.12);
    assert_eq!(released["release"]["releasedBy"]["name"], "Fisica");
    assert_eq!(released["releasable"], false);
    assert_eq!(
        app.get_ok(&format!("/api/waste/{}", id(&old)), &linked)
            .await,
        released
    );
    // A released package is never changed again.
    app.post(&release(&old), &app.admin, json!({"doseRate": 0.1}))
        .await
        .expect_error(409, "invalid_transition");
    app.put(
        &format!("/api/waste/{}", id(&old)),
        &app.admin,
        json!({"location": "Outro lugar"}),
    )
    .await
    .expect_error(409, "invalid_transition");
    assert_eq!(
        app.admin_get("/api/waste?released=true").await["paging"]["total"],
        1
    );
    assert_eq!(
        app.admin_get("/api/waste?releasable=true").await["paging"]["total"],
        0
    );

    // A stored one is edited, and its release date computed again.
    let edited = app
        .admin_put(&format!("/api/waste/{}", id(&fresh)), json!({"location": "Tanque 3", "contents": [{"radioisotope": "Tc(99m)", "activity": 0.000001}]})).await;
    assert_eq!(edited["location"], "Tanque 3");
    assert!(edited["releaseDate"].as_str().unwrap() < fresh["releaseDate"].as_str().unwrap());
    assert_eq!(edited["description"], "Rejeito de iodoterapia");
    app.put(
        &format!("/api/waste/{}", id(&fresh)),
        &app.admin,
        json!({"mass": 0}),
    )
    .await
    .expect_error(422, "validation_failed");
    app.put("/api/waste/nope", &app.admin, json!({"location": "x"}))
        .await
        .expect_error(404, "not_found");
    assert_eq!(
        app.audit_actions("waste", &id(&old)).await,
        ["create", "release"]
    );
}

// I(131) cleared at 10 000 Bq/g: 1 mCi in 10 kg (3 700 Bq/g) may go at once.
on_both_databases!(
    configured(|c| {
        c.notices.clearance =
            registry_core::waste::ClearanceLevels::parse("I(131)=10000").unwrap();
    });
    clearance_levels_come_from_the_deployer
);

async fn clearance_levels_come_from_the_deployer(app: TestApp) {
    let (facility, _, _) = setup(&app, "Clínica Dispensa").await;
    let package = store_waste(&app, &facility, solid_waste("I(131)", "Abrigo")).await;
    assert_eq!(
        package["releaseDate"], "2026-01-06",
        "already clear when closed at the end of the 5th"
    );
    // Under the default levels the same package waits until 21 February.
    let tc = store_waste(&app, &facility, solid_waste("Tc(99m)", "Abrigo")).await;
    assert_eq!(
        tc["releaseDate"], "2026-01-08",
        "Tc(99m) keeps the default 74 Bq/g"
    );
}
