//! The due states of QC tests per equipment and across facilities, and how the lists follow changes.

use super::{DOSE_CALIBRATOR, days_ago, equipment, id, record, test_type, today};
use crate::helpers::{TestApp, entries, facility_payload, list_strs};
use crate::on_both_databases;
use chrono::Days;
use reqwest::Method;
use serde_json::{Value, json};

on_both_databases!(
    due_states_per_equipment_and_across_facilities,
    due_lists_follow_new_edited_and_deleted_tests_and_period_changes
);

async fn due_states_per_equipment_and_across_facilities(app: TestApp) {
    let (client, client_token) = app.user_with(&["Cliente"], "Cli").await;
    let mut payload = facility_payload("Vencimentos");
    payload["users"] = json!([{"_id": client, "responsabilities": ["Titular"]}]);
    let f = id(&app.create_facility(payload).await);
    let other = id(&app.create_facility(facility_payload("Outra")).await);
    let eq = equipment(&app, &f, DOSE_CALIBRATOR).await;
    let never = test_type(&app, DOSE_CALIBRATOR, "Geometria", 365).await;
    let overdue = test_type(&app, DOSE_CALIBRATOR, "Exatidão", 30).await;
    let soon = test_type(&app, DOSE_CALIBRATOR, "Precisão", 30).await;
    let ok = test_type(&app, DOSE_CALIBRATOR, "Linearidade", 90).await;
    // Exatidão: last done 31 days ago with a 30-day period → due yesterday → overdue (an older
    // record does not count, nor does a deleted newer one).
    record(&app, &eq, &overdue, &days_ago(100)).await;
    record(&app, &eq, &overdue, &days_ago(31)).await;
    let deleted = id(&record(&app, &eq, &overdue, &days_ago(2)).await);
    app.admin_post(&format!("/api/test/{deleted}"), json!({}))
        .await;
    // Precisão: 30-day period, done 16 days ago → due in 14 days → due_soon.
    record(&app, &eq, &soon, &days_ago(16)).await;
    // Linearidade: 90-day period, done 10 days ago → ok.
    record(&app, &eq, &ok, &days_ago(10)).await;

    let due = app
        .get_ok(&format!("/api/equipment/{eq}/tests/due"), &client_token)
        .await;
    assert_eq!(due["paging"]["total"], 4);
    let by_type = |tt: &str| -> Value {
        entries(&due)
            .iter()
            .find(|d| d["typeOfTest"]["_id"] == tt)
            .cloned()
            .unwrap_or_else(|| panic!("no entry for {tt}: {due}"))
    };
    let n = by_type(&never);
    assert_eq!(n["state"], "never_done");
    assert_eq!(n["lastDate"], Value::Null);
    assert_eq!(n["nextDue"], Value::Null);
    let o = by_type(&overdue);
    assert_eq!(o["state"], "overdue");
    assert_eq!(o["lastDate"], days_ago(31));
    assert_eq!(o["nextDue"], days_ago(1));
    assert_eq!(o["expirationInDays"], 30);
    let s = by_type(&soon);
    assert_eq!(s["state"], "due_soon");
    assert_eq!(s["nextDue"], (today() + Days::new(14)).to_string());
    let k = by_type(&ok);
    assert_eq!(k["state"], "ok");
    assert_eq!(k["nextDue"], (today() + Days::new(80)).to_string());
    assert_eq!(k["equipment"]["serialNumber"], "SN-1");
    assert_eq!(k["facility"]["name"], "Vencimentos");
    assert_eq!(k["typeOfEquipment"]["_id"], DOSE_CALIBRATOR);
    // Most urgent first: never done, then by due date.
    assert_eq!(
        list_strs(&due, "state"),
        ["never_done", "overdue", "due_soon", "ok"]
    );
    let only = app
        .admin_get(&format!("/api/equipment/{eq}/tests/due?state=ok"))
        .await;
    assert_eq!(only["paging"]["total"], 1);

    // Across facilities: equipment of another facility, and an inactive one that is left out.
    let other_eq = equipment(&app, &other, DOSE_CALIBRATOR).await;
    record(&app, &other_eq, &overdue, &days_ago(60)).await;
    let idle = equipment(&app, &other, DOSE_CALIBRATOR).await;
    app.admin_post(
        "/api/facility/equipment/edit",
        json!({"_id": idle, "active": false}),
    )
    .await;
    let overdue_all = app.admin_get("/api/tests/due?state=overdue").await;
    assert_eq!(overdue_all["paging"]["total"], 2);
    // The one due longest ago comes first.
    assert_eq!(
        overdue_all["list"][0]["equipment"]["_id"],
        other_eq.as_str()
    );
    assert_eq!(overdue_all["list"][1]["equipment"]["_id"], eq.as_str());
    let soon_all = app.admin_get("/api/tests/due/?state=due_soon").await;
    assert_eq!(soon_all["paging"]["total"], 1);
    assert_eq!(soon_all["list"][0]["typeOfTest"]["_id"], soon.as_str());
    // Without `state`: everything that needs attention (not ok): 4 on `eq` minus ok, 4 on other_eq.
    let attention = app.admin_get("/api/tests/due").await;
    assert_eq!(attention["paging"]["total"], 3 + 4);
    let both = app
        .admin_get("/api/tests/due?state=overdue,due_soon&pageSize=2&pageNum=2")
        .await;
    assert_eq!(
        both["paging"],
        json!({"total": 3, "pageNum": 2, "pageSize": 2})
    );
    assert_eq!(both["list"].as_array().unwrap().len(), 1);
    // The key repeated is the same list (audit of stop 42: only the last value counted).
    let repeated = app
        .admin_get("/api/tests/due?state=overdue&state=due_soon&state=&pageSize=2&pageNum=2")
        .await;
    assert_eq!(repeated, both);
    let beyond = app
        .admin_get("/api/tests/due?state=overdue&pageNum=9")
        .await;
    assert_eq!(beyond["paging"]["total"], 2);
    assert_eq!(beyond["list"], json!([]));
    let by_facility = app
        .admin_get(&format!("/api/tests/due?state=overdue&facilityId={f}"))
        .await;
    assert_eq!(by_facility["paging"]["total"], 1);
    // A client sees only their facility's.
    let theirs = app
        .get_ok("/api/tests/due?state=overdue", &client_token)
        .await;
    assert_eq!(theirs["paging"]["total"], 1);
    assert_eq!(theirs["list"][0]["equipment"]["_id"], eq.as_str());
    app.get("/api/tests/due?state=late", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.call(Method::GET, "/api/tests/due", None, None)
        .await
        .expect_error(401, "unauthorized");
}

/// How many of the facility's due entries in `state` are for test type `tt`.
/// `due_count` of each of `states`, in order.
async fn due_counts<const N: usize>(
    app: &TestApp,
    facility: &str,
    tt: &str,
    states: [&str; N],
) -> [usize; N] {
    let mut counts = [0; N];
    for (count, state) in counts.iter_mut().zip(states) {
        *count = due_count(app, facility, tt, state).await;
    }
    counts
}

async fn due_count(app: &TestApp, facility: &str, tt: &str, state: &str) -> usize {
    let res = app
        .admin_get(&format!(
            "/api/tests/due?state={state}&facilityId={facility}"
        ))
        .await;
    entries(&res)
        .iter()
        .filter(|d| d["typeOfTest"]["_id"] == tt)
        .count()
}

/// The state-filtered lists read the kept latest test per pair: every change must reach them.
async fn due_lists_follow_new_edited_and_deleted_tests_and_period_changes(app: TestApp) {
    let facility = id(&app.create_facility(facility_payload("Prazos")).await);
    let eq = equipment(&app, &facility, DOSE_CALIBRATOR).await;
    let tt = test_type(&app, DOSE_CALIBRATOR, "Linearidade", 30).await;
    assert_eq!(due_count(&app, &facility, &tt, "never_done").await, 1);
    assert_eq!(due_count(&app, &facility, &tt, "overdue").await, 0);
    let old = id(&record(&app, &eq, &tt, &days_ago(40)).await);
    assert_eq!(
        due_counts(&app, &facility, &tt, ["overdue", "never_done"]).await,
        [1, 0]
    );
    let recent = id(&record(&app, &eq, &tt, &days_ago(5)).await);
    assert_eq!(
        due_counts(&app, &facility, &tt, ["overdue", "ok"]).await,
        [0, 1]
    );
    app.admin_post(&format!("/api/test/{recent}"), json!({}))
        .await;
    assert_eq!(
        due_count(&app, &facility, &tt, "overdue").await,
        1,
        "deleting the latest test brings the older one back"
    );
    app.admin_post(
        "/api/typeOfTest/edit",
        json!({"_id": tt, "expirationInDays": 60}),
    )
    .await;
    assert_eq!(
        due_counts(&app, &facility, &tt, ["overdue", "ok"]).await,
        [0, 1],
        "40 days ago + 60 days is 20 days ahead"
    );
    app.admin_put(&format!("/api/test/{old}"), json!({"date": days_ago(50)}))
        .await;
    assert_eq!(
        due_counts(&app, &facility, &tt, ["due_soon", "ok"]).await,
        [1, 0],
        "50 days ago + 60 days is 10 days ahead"
    );
    let due = app
        .admin_get(&format!(
            "/api/tests/due?state=due_soon,overdue&facilityId={facility}"
        ))
        .await;
    assert_eq!(
        due["list"][0]["nextDue"],
        (today() + Days::new(10)).to_string()
    );
}
