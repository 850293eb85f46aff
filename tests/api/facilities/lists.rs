//! The facility lists: envelope, paging and filters, and what clients see.

use crate::helpers::{TestApp, facility_payload, list_ids, urlencode};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    list_envelope_paging_and_filters,
    clients_see_only_their_facilities
);

async fn list_envelope_paging_and_filters(app: TestApp) {
    let (u, _) = app.user_with(&["Físico"], "Filtro User").await;
    let group = app.create_group("Rede Sul").await;
    let mut ids = Vec::new();
    for i in 0..25 {
        let mut p = facility_payload(&format!("Unidade {i:02}"));
        if i % 5 == 0 {
            p["address"] = json!([{"street": "Rua do Sol", "city": "Porto Alegre", "state": "RS"}]);
            p["group"] = json!(group["_id"]);
            p["radioisotopes"] = json!([{"name": "Y(90)", "quantity": 3}]);
            p["practices"] = json!(["Terapia com Internação"]);
            p["users"] = json!([{"_id": u, "responsabilities": ["Titular"]}]);
        }
        if i == 7 {
            p["department"] = json!("Radiodiagnóstico");
        }
        ids.push(
            app.create_facility(p).await["_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let page1 = app.admin_get("/api/facilities").await;
    assert_eq!(
        page1["paging"],
        json!({"total": 25, "pageNum": 1, "pageSize": 20})
    );
    assert_eq!(page1["list"].as_array().unwrap().len(), 20);
    assert_eq!(page1["list"][0]["_id"], ids[24], "newest first");
    let filters =
        |f: serde_json::Value| format!("/api/facilities?filters={}", urlencode(&f.to_string()));
    let page2 = app
        .admin_get(&filters(json!({"pageNum": 2, "pageSize": 10})))
        .await;
    assert_eq!(
        page2["paging"],
        json!({"total": 25, "pageNum": 2, "pageSize": 10})
    );
    assert_eq!(page2["list"][0]["_id"], ids[14]);
    let plain = app.admin_get("/api/facilities?pageNum=3&limit=10").await;
    assert_eq!(plain["list"].as_array().unwrap().len(), 5);
    assert_eq!(plain["paging"]["pageSize"], 10);
    let capped = app.admin_get("/api/facilities?pageSize=5000").await;
    assert_eq!(capped["paging"]["pageSize"], 200);
    // An empty `filters`, and paging keys that are null or blank, take the defaults.
    for defaults in [
        "/api/facilities?filters=".to_owned(),
        filters(json!({"pageNum": null, "pageSize": null})),
        "/api/facilities?pageNum=&pageSize=".to_owned(),
    ] {
        let page = app.admin_get(&defaults).await;
        assert_eq!(
            page["paging"],
            json!({"total": 25, "pageNum": 1, "pageSize": 20}),
            "{defaults}"
        );
    }
    // A CNPJ pasted in its display form finds the facility stored with the bare one.
    let cnpj = app.admin_get(&format!("/api/facility/{}", ids[3])).await["cnpj"]
        .as_str()
        .unwrap()
        .to_owned();
    let shown = registry_core::cnpj::Cnpj::parse(&cnpj).unwrap().formatted();
    let found = app.admin_get(&filters(json!({"q": shown}))).await;
    assert_eq!(found["paging"]["total"], 1, "{shown}");
    assert_eq!(found["list"][0]["_id"], ids[3]);
    let radiodiagnosis_unidade_0 = filters(json!({"q": "unidade 0"}))
        .replace("/api/facilities", "/api/radiodiagnosisfacilities");
    assert_totals(
        &app,
        [
            (filters(json!({"q": "porto alegre"})), 5),
            (filters(json!({"q": "unidade 1"})), 10),
            (filters(json!({"q": ids[3].as_str()})), 0),
            ("/api/facilities?q=SAO%20PAULO".to_owned(), 20),
            ("/api/facilities?state=rs".to_owned(), 5),
            // A state by abbreviation or by name finds both forms (spec §2.2).
            (
                "/api/facilities?state=Rio%20Grande%20do%20Sul".to_owned(),
                5,
            ),
            ("/api/facilities?state=sao%20paulo".to_owned(), 20),
            ("/api/facilities?city=S%C3%A3o%20Paulo".to_owned(), 20),
            (filters(json!({"group": group["_id"]})), 5),
            (filters(json!({"radioisotope": "Y(90)"})), 5),
            // The nuclide spelling, and a practice in any case or accents, as on the other lists.
            ("/api/facilities?radioisotope=Y-90".to_owned(), 5),
            ("/api/facilities?radioisotope=y(90)".to_owned(), 5),
            (filters(json!({"practice": "Terapia com Internação"})), 5),
            (
                "/api/facilities?practice=terapia%20com%20internacao".to_owned(),
                5,
            ),
            (filters(json!({"userId": u})), 5),
            (radiodiagnosis_unidade_0, 1),
            (
                "/api/nuclearmedicinefacilities?state=RS&radioisotope=Y(90)".to_owned(),
                5,
            ),
            // A search term with LIKE wildcards matches literally.
            ("/api/facilities?q=%25".to_owned(), 0),
            // A term matches within one field, never across the end of one and the next.
            ("/api/facilities?q=unidade%2000%20servicos".to_owned(), 1),
            ("/api/facilities?q=00%20unidade".to_owned(), 0),
            ("/api/facilities?q=ltda%20porto".to_owned(), 0),
        ],
    )
    .await;
    // A filter value no list can read is refused, not ignored; keys no list reads are ignored.
    let unreadable = [
        filters(json!({"q": {}})),
        filters(json!({"state": ["SP"]})),
        filters(json!({"userId": {"id": u}})),
    ];
    let mut bad: Vec<&str> = vec![
        "/api/facilities?filters=%7Bnot-json",
        "/api/facilities?pageNum=zero",
        // A radioisotope, practice or department the spec does not list is refused, not an empty list.
        "/api/facilities?radioisotope=Xx",
        "/api/nuclearmedicinefacilities?practice=Nada",
        // So is a department that is none of the two: a typo is never an empty list.
        "/api/facilities?department=Medicina",
    ];
    bad.extend(unreadable.iter().map(String::as_str));
    app.assert_bad_requests(&bad).await;
    // What is wrong with the filters is said: malformed, or nested deeper than JSON is read.
    for (sent, said) in [
        ("{not-json".to_owned(), "filters: Malformed JSON"),
        (
            format!("{{\"q\":{}{}}}", "[".repeat(200), "]".repeat(200)),
            "filters: The JSON nests too deeply",
        ),
        ("[1]".to_owned(), "filters must be a JSON object"),
    ] {
        let answer = app
            .get(
                &format!("/api/facilities?filters={}", urlencode(&sent)),
                &app.admin,
            )
            .await
            .expect_error(400, "bad_request");
        let message = answer.body["message"].as_str().unwrap().to_owned();
        assert!(message.starts_with(said), "{sent}: {message}");
    }
    assert_totals(
        &app,
        [
            (filters(json!({"group": {"_id": group["_id"]}})), 5),
            (
                filters(json!({"sort": [["name", 1]], "fields": {"name": 1}})),
                25,
            ),
        ],
    )
    .await;

    // Walking every page (deep pages are read from the other end) gives the newest-first order.
    let mut walked = Vec::new();
    for page in 1..=8 {
        let res = app
            .admin_get(&format!("/api/facilities?pageNum={page}&pageSize=4"))
            .await;
        assert_eq!(res["paging"]["total"], 25);
        walked.extend(list_ids(&res));
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(walked, newest_first);
    // The search index follows renames.
    app.admin_post(
        "/api/facility/edit",
        json!({"_id": ids[24], "name": "Hospital Zeta", "companyName": "Zeta Ltda"}),
    )
    .await;
    assert_totals(
        &app,
        [
            ("/api/facilities?q=zeta", 1),
            ("/api/facilities?q=unidade%2024", 0),
        ],
    )
    .await;
    // Totals follow archives and department moves.
    app.admin_post_id("/api/facility/exclude", &ids[0]).await;
    app.admin_post(
        "/api/facility/edit",
        json!({"_id": ids[1], "department": "Radiodiagnóstico"}),
    )
    .await;
    assert_totals(
        &app,
        [
            ("/api/facilities", 24),
            ("/api/nuclearmedicinefacilities", 22),
            ("/api/radiodiagnosisfacilities", 2),
            ("/api/facilities?department=Radiodiagn%C3%B3stico", 2),
            // In any case and accents, as the other listed values.
            ("/api/facilities?department=radiodiagnostico", 2),
            ("/api/facilities?department=MEDICINA%20NUCLEAR", 22),
            // A department's list filtered by its own department, and by the other one.
            (
                "/api/nuclearmedicinefacilities?department=medicina%20nuclear",
                22,
            ),
            (
                "/api/nuclearmedicinefacilities?department=Radiodiagn%C3%B3stico",
                0,
            ),
        ],
    )
    .await;
}

/// Asserts the Administrator's `paging.total` of each list.
async fn assert_totals(app: &TestApp, expected: impl IntoIterator<Item = (impl AsRef<str>, i64)>) {
    for (path, total) in expected {
        let path = path.as_ref();
        assert_eq!(app.total(path, &app.admin).await, total, "{path}");
    }
}

async fn clients_see_only_their_facilities(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Cli Linked").await;
    let mine = app.create_facility_of(&client, "Minha").await;
    let other = app.create_facility(facility_payload("Alheia")).await;
    let list = app.get_ok("/api/facilities", &token).await;
    assert_eq!(list["paging"]["total"], 1);
    assert_eq!(list["list"][0]["_id"], mine["_id"]);
    app.get_ok(
        &format!("/api/facility/{}", mine["_id"].as_str().unwrap()),
        &token,
    )
    .await;
    app.assert_not_found(
        &format!("/api/facility/{}", other["_id"].as_str().unwrap()),
        &token,
    )
    .await;
    assert_eq!(
        app.get_ok("/api/nuclearmedicinefacilities", &token).await["paging"]["total"],
        1
    );
    assert_eq!(
        app.get_ok(&format!("/api/user/{client}/facilities"), &token)
            .await["paging"]["total"],
        1
    );
}
