//! A search term with a rare part (`comum 1003` among many `Comum 100N`) is looked up in the
//! trigram index by its rarest trigrams only (SQLite: counts from its FTS5 vocabulary;
//! PostgreSQL: from a sample, `pg_trigrams`), and every candidate is then checked with the whole
//! term: the rare trigrams alone must never decide a match.

use crate::helpers::{TestApp, facility_payload, unique_cnpj, urlencode};
use crate::on_both_databases;

on_both_databases!(
    a_rare_part_finds_only_what_the_whole_term_matches,
    every_trigram_of_the_term_is_not_the_term,
);

/// A create payload whose cnpj holds no `1003`: a search finds cnpjs too, and a random one held
/// it about once in a hundred runs, a third match of `1003`.
fn payload(name: &str) -> serde_json::Value {
    let mut payload = facility_payload(name);
    let digits = |p: &serde_json::Value| -> String {
        let cnpj = p["cnpj"].as_str().unwrap_or_default();
        cnpj.chars().filter(char::is_ascii_alphanumeric).collect()
    };
    while digits(&payload).contains("1003") {
        payload["cnpj"] = unique_cnpj().into();
    }
    payload
}

async fn a_rare_part_finds_only_what_the_whole_term_matches(app: TestApp) {
    for n in 1001..=1008 {
        app.create_facility(payload(&format!("Clínica Comum {n}")))
            .await;
    }
    // Holds the rare trigrams of `comum 1003` (`003`, `100`), not the term.
    let mut decoy = payload("Outra 1003 Comum");
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

/// A facility that holds every trigram of the term (`comum 100 1003` against `comum 1003`) but
/// not the term is a candidate of any lookup by trigrams: only the check of its whole text,
/// searched alone or with a filter, leaves it out.
async fn every_trigram_of_the_term_is_not_the_term(app: TestApp) {
    for n in 1001..=1008 {
        app.create_facility(payload(&format!("Clínica Comum {n}")))
            .await;
    }
    app.create_facility(payload("Comum 100 1003")).await;
    for (path, total) in [
        ("/api/facilities?q=comum%201003", 1),
        (
            "/api/facilities?q=comum%201003&department=Medicina%20Nuclear",
            1,
        ),
        ("/api/facilities?q=comum%20100%201003", 1),
        ("/api/facilities?q=1003", 2),
    ] {
        assert_eq!(app.total(path, &app.admin).await, total, "{path}");
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
