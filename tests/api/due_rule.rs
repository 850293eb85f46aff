//! The due-state rule is written once, in `registry_core::equipment::due_state`; the database
//! answers due lists with its own comparisons (over the `qc_last` table). Over random data, every
//! pair's state from the database must be core's, on both paths of the query (every pair of an
//! equipment, and the lists filtered by state).

use crate::equipment::{DOSE_CALIBRATOR, days_ago, equipment, id, record, test_type, today};
use crate::helpers::{TestApp, entries, facility_payload};
use crate::on_both_databases;
use chrono::{Days, NaiveDate};
use rand::{Rng, SeedableRng};
use registry_core::equipment::{DueState, due_state};
use std::collections::HashMap;

on_both_databases!(the_database_and_core_agree_on_due_states);

async fn the_database_and_core_agree_on_due_states(app: TestApp) {
    let seed = rand::rng().random::<u64>();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let facility = id(&app
        .create_facility(facility_payload("Regra de Vencimento"))
        .await);
    // Periods around the edges: due today, due soon on its last day, a day either side.
    let mut periods = HashMap::new();
    for (i, days) in [1, 7, 13, 14, 15, 30, 180, 365].into_iter().enumerate() {
        periods.insert(
            test_type(&app, DOSE_CALIBRATOR, &format!("Teste {i}"), days).await,
            days,
        );
    }
    let mut expected: HashMap<(String, String), DueState> = HashMap::new();
    for _ in 0..3 {
        let eq = equipment(&app, &facility, DOSE_CALIBRATOR).await;
        for (tt, days) in &periods {
            let mut last: Option<NaiveDate> = None;
            for _ in 0..rng.random_range(0..3) {
                let ago = rng.random_range(0..=days * 2 + 16) as u64;
                record(&app, &eq, tt, &days_ago(ago)).await;
                let date = today() - Days::new(ago);
                last = last.max(Some(date));
            }
            expected.insert((eq.clone(), tt.clone()), due_state(last, *days, today()));
        }
    }
    // And each edge, on every period: due today, due yesterday, due on the last due-soon day and
    // the day after it.
    for offset in [0i64, 1, -14, -15] {
        let eq = equipment(&app, &facility, DOSE_CALIBRATOR).await;
        for (tt, days) in &periods {
            let ago = days + offset;
            let last = (ago >= 0).then(|| today() - Days::new(ago as u64));
            if let Some(date) = last {
                record(&app, &eq, tt, &date.to_string()).await;
            }
            expected.insert((eq.clone(), tt.clone()), due_state(last, *days, today()));
        }
    }
    let equipment_ids: Vec<String> = expected.keys().map(|(eq, _)| eq.clone()).collect();
    for eq in &equipment_ids {
        let due = app
            .admin_get(&format!("/api/equipment/{eq}/tests/due?pageSize=100"))
            .await;
        for entry in due["list"].as_array().unwrap() {
            let tt = entry["typeOfTest"]["_id"].as_str().unwrap().to_owned();
            let want = expected[&(eq.clone(), tt)];
            assert_eq!(entry["state"], want.as_str(), "seed {seed}: {entry}");
        }
    }
    for state in [
        DueState::Overdue,
        DueState::DueSoon,
        DueState::Ok,
        DueState::NeverDone,
    ] {
        let listed = app
            .admin_get(&format!(
                "/api/tests/due?state={}&facilityId={facility}&pageSize=100",
                state.as_str()
            ))
            .await;
        let mut got: Vec<(String, String)> = entries(&listed)
            .iter()
            .map(|e| {
                (
                    e["equipment"]["_id"].as_str().unwrap().to_owned(),
                    e["typeOfTest"]["_id"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let mut want: Vec<(String, String)> = expected
            .iter()
            .filter(|(_, s)| **s == state)
            .map(|(k, _)| k.clone())
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "seed {seed}: state {}", state.as_str());
        assert_eq!(listed["paging"]["total"], want.len(), "seed {seed}");
    }
}
