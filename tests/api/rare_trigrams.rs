//! A search term with a rare part (`comum 1003` among many `Comum 100N`) is looked up in the
//! trigram index by its rarest trigrams only (SQLite: counts from its FTS5 vocabulary;
//! PostgreSQL: from a sample, `pg_trigrams`), and every candidate is then checked with the whole
//! term: the rare trigrams alone must never decide a match.

use crate::helpers::{TestApp, facility_payload, urlencode};
use crate::on_both_databases;

on_both_databases!(a_rare_part_finds_only_what_the_whole_term_matches);

async fn a_rare_part_finds_only_what_the_whole_term_matches(app: TestApp) {
    for n in 1001..=1008 {
        app.create_facility(facility_payload(&format!("Clínica Comum {n}")))
            .await;
    }
    // Holds the rare trigrams of `comum 1003` (`003`, `100`), not the term.
    let mut decoy = facility_payload("Outra 1003 Comum");
    decoy["department"] = "Radiodiagnóstico".into();
    app.create_facility(decoy).await;
    for (term, total) in [
        ("comum 1003", 1),
        ("CÓMUM 1003", 1),
        ("linica comum 1007", 1),
        ("comum 100", 8),
        ("1003", 2),
        ("comum 1009", 0),
        ("ra 1003 co", 1),
        ("comum 10%3", 0),
        // With the other filters.
        ("comum 1003&department=Medicina Nuclear", 1),
        ("comum 1003&department=Radiodiagnóstico", 0),
        ("1003&department=Radiodiagnóstico", 1),
        ("comum 1003&city=São Paulo", 1),
    ] {
        let (term, filters) = term.split_once('&').unwrap_or((term, ""));
        let path = match filters.split_once('=') {
            Some((key, value)) => format!(
                "/api/facilities?q={}&{key}={}",
                urlencode(term),
                urlencode(value)
            ),
            None => format!("/api/facilities?q={}", urlencode(term)),
        };
        assert_eq!(app.total(&path, &app.admin).await, total, "q={term}");
    }
}

/// The trigram counts are statistics, not answers (PostgreSQL): a sample that cannot be read
/// fails no search (no rare trigrams then), and the next search samples again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_sample_fails_no_search_on_postgres() {
    use sqlx::Connection;
    let Some(app) = TestApp::spawn(crate::helpers::Backend::Postgres).await else {
        return;
    };
    for n in 1001..=1008 {
        app.create_facility(facility_payload(&format!("Clínica Comum {n}")))
            .await;
    }
    let url = app.state.config.database_url.clone().unwrap();
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let sample = registry_server::pg_trigrams::TrigramSample::default();
    // The sample reads the live count first: without its table, the sample fails.
    let away = "ALTER TABLE facility_counts RENAME TO facility_counts_away";
    sqlx::raw_sql(away).execute(&mut conn).await.unwrap();
    assert!(sample.rare(&mut conn, "comum 1003").await.is_empty());
    let back = "ALTER TABLE facility_counts_away RENAME TO facility_counts";
    sqlx::raw_sql(back).execute(&mut conn).await.unwrap();
    assert_eq!(sample.rare(&mut conn, "comum 1003").await, ["003", "100"]);
}
