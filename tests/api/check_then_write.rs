//! Checks that read what a concurrent request is changing (black-box audit of stop 34): a waste
//! package's edit and release, two document edits whose dates are each fine alone, and two
//! self-registrations of one address. Each pair ends as one of its serial orders would, on
//! SQLite and on PostgreSQL.

use crate::common::PASSWORD;
use crate::documents::{new_facility, pdf, upload};
use crate::helpers::{Answer, TestApp};
use crate::on_both_databases;
use futures::future::join_all;
use serde_json::json;

on_both_databases!(
    a_waste_edit_and_its_release_at_once_never_both_apply,
    document_edits_at_once_keep_validity_after_date,
    registrations_of_one_address_at_once_answer_alike,
);

const ROUNDS: usize = 6;

/// Today in Brasília, as a bare date.
fn today() -> String {
    (chrono::Utc::now() - chrono::Duration::hours(3))
        .date_naive()
        .to_string()
}

/// A releasable package (1 mCi of Tc-99m closed in January) edited to hold 1,000 mCi of I-131
/// closed today (releasable only months from now) while it is released: one of the two wins, and
/// a released package holds what was judged releasable.
async fn a_waste_edit_and_its_release_at_once_never_both_apply(app: TestApp) {
    let facility = new_facility(&app, "Rejeitos ao Mesmo Tempo").await;
    for round in 0..ROUNDS {
        let body = json!({"form": "Sólido", "contents": [{"radioisotope": "Tc(99m)", "activity": 1}],
                          "mass": 10, "closedAt": "2026-01-05", "location": format!("Sala {round}")});
        let package = app
            .post_created(&format!("/api/facility/{facility}/waste"), &app.admin, body)
            .await;
        let path = format!("/api/waste/{}", package["_id"].as_str().unwrap());
        let edit = json!({"contents": [{"radioisotope": "I(131)", "activity": 1000}], "closedAt": today()});
        let release_path = format!("{path}/release");
        let (edited, released) = futures::join!(
            app.put(&path, &app.admin, edit),
            app.post(&release_path, &app.admin, json!({"doseRate": 0}))
        );
        let after = app.admin_get(&path).await;
        match (edited.status.as_u16(), released.status.as_u16()) {
            // Released first: the edit finds a released package.
            (409, 200) => assert_eq!(after["contents"][0]["radioisotope"], "Tc(99m)"),
            // Edited first: the release finds a package above its levels.
            (200, 409) => assert!(after["release"].is_null(), "{after}"),
            other => panic!(
                "round {round}: {other:?}\n{}\n{}",
                edited.body, released.body
            ),
        }
    }
}

/// A document dated 2026-11-01 and valid until 2027-11-01: one edit moves its date to
/// 2027-06-01, another its validity to 2027-03-01. Each is fine alone; together the validity
/// would fall before the date, so the second to run is refused.
async fn document_edits_at_once_keep_validity_after_date(app: TestApp) {
    let facility = new_facility(&app, "Documentos ao Mesmo Tempo").await;
    for round in 0..ROUNDS {
        let doc = upload(&app, &app.admin, &facility, pdf(2000, round as u8), &[])
            .await
            .expect(201);
        let id = doc["_id"].as_str().unwrap().to_owned();
        let edits = [
            json!({"_id": id, "date": "2027-06-01"}),
            json!({"_id": id, "validity": "2027-03-01"}),
        ]
        .map(|body| app.post("/api/document/edit/", &app.admin, body));
        let answers = join_all(edits).await;
        let mut statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 422], "round {round}");
        let after = app.admin_get(&format!("/api/document/{id}")).await;
        let (date, validity) = (after["date"].as_str(), after["validity"].as_str());
        assert!(validity > date, "round {round}: {after}");
    }
}

/// Self-registrations of one new address at once: every one is answered 202, as any
/// registration is (a 409 would tell that the address has an account), and one account exists.
async fn registrations_of_one_address_at_once_answer_alike(app: TestApp) {
    for round in 0..ROUNDS {
        let email = format!("corrida-{round}@example.com");
        let body = json!({"name": "Corrida", "email": email, "password": PASSWORD});
        let answers: Vec<Answer> =
            join_all((0..4).map(|_| app.post_anon("/api/register/", body.clone()))).await;
        for answer in answers {
            answer.expect(202);
        }
        let found = app
            .admin_get(&format!("/api/users?q=corrida-{round}@"))
            .await;
        assert_eq!(found["paging"]["total"], 1, "round {round}");
    }
}
