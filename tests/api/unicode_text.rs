//! Text in either Unicode form, and numbers past a double (black-box audit 3, F3–F6): decomposed
//! accents (`a` + U+0303, as macOS and PDFs give them) are stored composed, searched, filtered,
//! compared for uniqueness and counted as the same text typed composed; a number too large to read is its
//! field's error, not a malformed body.

use crate::helpers::{TestApp, facility_payload, list_ids, urlencode};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    decomposed_text_is_stored_composed_and_found_either_way,
    unique_names_are_unique_in_either_form,
    a_run_of_white_space_is_one_space_to_searches_and_filters,
    the_length_limit_counts_composed_characters,
    a_number_too_large_for_a_double_is_its_fields_error,
);

async fn decomposed_text_is_stored_composed_and_found_either_way(app: TestApp) {
    let mut nfd = facility_payload("Cli\u{301}nica Ac\u{327}a\u{303}o Zeta");
    nfd["address"] = json!([{"street": "Rua 1", "city": "Goia\u{302}nia", "state": "GO"}]);
    let nfd = app.create_facility(nfd).await;
    assert_eq!(nfd["name"], "Clínica Ação Zeta");
    assert_eq!(nfd["address"][0]["city"], "Goiânia");
    let nfc = app
        .create_facility(facility_payload("Hospital São Lucas Zeta"))
        .await;
    let searches = [
        ("q", "acao zeta", &nfd),
        ("q", "Ação Zeta", &nfd),
        ("q", "AC\u{327}A\u{303}O", &nfd),
        ("q", "clinica", &nfd),
        ("q", "Sa\u{303}o Lucas", &nfc),
        ("q", "sao lucas", &nfc),
        ("city", "goiania", &nfd),
        ("city", "GOIA\u{302}NIA", &nfd),
    ];
    for (key, term, expected) in searches {
        let path = format!("/api/facilities?{key}={}", urlencode(term));
        let found = list_ids(&app.admin_get(&path).await);
        assert_eq!(
            found,
            [expected["_id"].as_str().unwrap()],
            "{key} = {term:?}"
        );
    }
    // Filters that compare exactly read the query in the same form as a body's text.
    for practice in ["Diagno\u{301}stico", "Diagnóstico"] {
        let path = format!("/api/facilities?q=zeta&practice={}", urlencode(practice));
        assert_eq!(
            list_ids(&app.admin_get(&path).await).len(),
            2,
            "{practice:?}"
        );
        let filters = urlencode(&json!({"q": "zeta", "practice": practice}).to_string());
        let path = format!("/api/facilities?filters={filters}");
        assert_eq!(
            list_ids(&app.admin_get(&path).await).len(),
            2,
            "{practice:?}"
        );
    }
}

async fn unique_names_are_unique_in_either_form(app: TestApp) {
    for (path, composed, decomposed) in [
        ("/api/group/register", "Região Zeta", "Regia\u{303}o Zeta"),
        (
            "/api/typeOfEquipment/register",
            "Câmara Zeta",
            "Ca\u{302}mara Zeta",
        ),
    ] {
        app.post_created(path, &app.admin, json!({"name": decomposed}))
            .await;
        app.post(path, &app.admin, json!({"name": composed}))
            .await
            .expect_error(409, "conflict");
        // An invisible character inside makes no new name either.
        let hidden = composed.replacen(' ', "\u{200b} ", 1);
        app.post(path, &app.admin, json!({"name": hidden}))
            .await
            .expect_error(409, "conflict");
    }
}

/// A non-breaking space pasted from a web page, an em space or two spaces inside a text are one space
/// to searches and filters; the text is stored as given.
async fn a_run_of_white_space_is_one_space_to_searches_and_filters(app: TestApp) {
    let mut pasted = facility_payload("Clínica\u{a0}Beta  Ômega");
    pasted["address"] = json!([{"street": "Rua 1", "city": "São\u{a0}José", "state": "SC"}]);
    let pasted = app.create_facility(pasted).await;
    assert_eq!(pasted["name"], "Clínica\u{a0}Beta  Ômega");
    let id = pasted["_id"].as_str().unwrap();
    for (key, term) in [
        ("q", "clinica beta omega"),
        ("q", "Beta\u{2003}Ômega"),
        ("q", "sao jose"),
        ("city", "São José"),
        ("city", "sao  jose"),
    ] {
        let path = format!("/api/facilities?{key}={}", urlencode(term));
        assert_eq!(
            list_ids(&app.admin_get(&path).await),
            [id],
            "{key} = {term:?}"
        );
    }
    // Group and type names keep their white space as written: names told apart before searches
    // folded it stay apart (docs/decisions.md); case and accents still do not count.
    for path in ["/api/group/register", "/api/typeOfEquipment/register"] {
        for name in ["Raio\u{a0}X Beta", "Raio X Beta"] {
            app.post_created(path, &app.admin, json!({"name": name}))
                .await;
        }
        app.post(path, &app.admin, json!({"name": "RAIO X BETA"}))
            .await
            .expect_error(409, "conflict");
    }
}

async fn the_length_limit_counts_composed_characters(app: TestApp) {
    // 200 letters, each sent as two code points (400 in all), are 200 characters.
    let named = |n: usize| {
        let mut payload = facility_payload("x");
        payload["name"] = json!("a\u{303}".repeat(n));
        payload
    };
    let created = app.create_facility(named(200)).await;
    assert_eq!(created["name"].as_str().unwrap().chars().count(), 200);
    app.post("/api/facility/register/", &app.admin, named(201))
        .await
        .expect_field_error("name", "invalid_value");
}

async fn a_number_too_large_for_a_double_is_its_fields_error(app: TestApp) {
    let huge = format!("1{}", "0".repeat(400));
    let body = format!(
        r#"{{"name": "X", "telephone": "123", "radioisotopes": [{{"name": "Tc(99m)", "quantity": {huge}}}, {{"name": "I(131)", "quantity": 1e400}}]}}"#
    );
    app.post_json_text("/api/facility/register/", &app.admin, body)
        .await
        .expect_field_errors(&[
            ("radioisotopes[0].quantity", "invalid_quantity"),
            ("radioisotopes[1].quantity", "invalid_quantity"),
            ("telephone", "invalid_telephone"),
            ("cnpj", "required"),
        ]);
}
