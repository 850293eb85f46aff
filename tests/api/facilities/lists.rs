//! The facility lists: envelope, paging and filters, and what clients see.

use crate::helpers::{TestApp, facility_payload};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    list_envelope_paging_and_filters,
    clients_see_only_their_facilities
);

async fn list_envelope_paging_and_filters(app: TestApp) {
    let (u, _) = app.user_with(&["Físico"], "Filtro User").await;
    let group = app
        .post(
            "/api/group/register",
            &app.admin,
            json!({"name": "Rede Sul"}),
        )
        .await
        .expect(201);
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
    let page1 = app.get("/api/facilities", &app.admin).await.expect(200);
    assert_eq!(
        page1["paging"],
        json!({"total": 25, "pageNum": 1, "pageSize": 20})
    );
    assert_eq!(page1["list"].as_array().unwrap().len(), 20);
    assert_eq!(page1["list"][0]["_id"], ids[24], "newest first");
    let filters =
        |f: serde_json::Value| format!("/api/facilities?filters={}", urlencode(&f.to_string()));
    let page2 = app
        .get(&filters(json!({"pageNum": 2, "pageSize": 10})), &app.admin)
        .await
        .expect(200);
    assert_eq!(
        page2["paging"],
        json!({"total": 25, "pageNum": 2, "pageSize": 10})
    );
    assert_eq!(page2["list"][0]["_id"], ids[14]);
    let plain = app
        .get("/api/facilities?pageNum=3&limit=10", &app.admin)
        .await
        .expect(200);
    assert_eq!(plain["list"].as_array().unwrap().len(), 5);
    assert_eq!(plain["paging"]["pageSize"], 10);
    let capped = app
        .get("/api/facilities?pageSize=5000", &app.admin)
        .await
        .expect(200);
    assert_eq!(capped["paging"]["pageSize"], 200);
    let total = |v: serde_json::Value| v["paging"]["total"].as_i64().unwrap();
    assert_eq!(
        total(
            app.get(&filters(json!({"q": "porto alegre"})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"q": "unidade 1"})), &app.admin)
                .await
                .expect(200)
        ),
        10
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"q": ids[3].as_str()})), &app.admin)
                .await
                .expect(200)
        ),
        0
    );
    assert_eq!(
        total(
            app.get("/api/facilities?q=SAO%20PAULO", &app.admin)
                .await
                .expect(200)
        ),
        20
    );
    assert_eq!(
        total(
            app.get("/api/facilities?state=rs", &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get("/api/facilities?city=S%C3%A3o%20Paulo", &app.admin)
                .await
                .expect(200)
        ),
        20
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"group": group["_id"]})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"radioisotope": "Y(90)"})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(
                &filters(json!({"practice": "Terapia com Internação"})),
                &app.admin
            )
            .await
            .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(&filters(json!({"userId": u})), &app.admin)
                .await
                .expect(200)
        ),
        5
    );
    assert_eq!(
        total(
            app.get(
                &filters(json!({"q": "unidade 0"}))
                    .replace("/api/facilities", "/api/radiodiagnosisfacilities"),
                &app.admin
            )
            .await
            .expect(200)
        ),
        1
    );
    assert_eq!(
        total(
            app.get(
                "/api/nuclearmedicinefacilities?state=RS&radioisotope=Y(90)",
                &app.admin
            )
            .await
            .expect(200)
        ),
        5
    );
    // A search term with LIKE wildcards matches literally.
    assert_eq!(
        total(
            app.get("/api/facilities?q=%25", &app.admin)
                .await
                .expect(200)
        ),
        0
    );
    app.get("/api/facilities?filters=%7Bnot-json", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/facilities?pageNum=zero", &app.admin)
        .await
        .expect_error(400, "bad_request");

    // Walking every page (deep pages are read from the other end) gives the newest-first order.
    let mut walked = Vec::new();
    for page in 1..=8 {
        let res = app
            .get(
                &format!("/api/facilities?pageNum={page}&pageSize=4"),
                &app.admin,
            )
            .await
            .expect(200);
        assert_eq!(res["paging"]["total"], 25);
        walked.extend(
            res["list"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["_id"].as_str().unwrap().to_owned()),
        );
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(walked, newest_first);
    // The search index follows renames.
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": ids[24], "name": "Hospital Zeta", "companyName": "Zeta Ltda"}),
    )
    .await
    .expect(200);
    assert_eq!(
        total(
            app.get("/api/facilities?q=zeta", &app.admin)
                .await
                .expect(200)
        ),
        1
    );
    assert_eq!(
        total(
            app.get("/api/facilities?q=unidade%2024", &app.admin)
                .await
                .expect(200)
        ),
        0
    );
    // Totals follow archives and department moves.
    app.post("/api/facility/exclude", &app.admin, json!({"_id": ids[0]}))
        .await
        .expect(200);
    app.post(
        "/api/facility/edit",
        &app.admin,
        json!({"_id": ids[1], "department": "Radiodiagnóstico"}),
    )
    .await
    .expect(200);
    assert_eq!(
        total(app.get("/api/facilities", &app.admin).await.expect(200)),
        24
    );
    assert_eq!(
        total(
            app.get("/api/nuclearmedicinefacilities", &app.admin)
                .await
                .expect(200)
        ),
        22
    );
    assert_eq!(
        total(
            app.get("/api/radiodiagnosisfacilities", &app.admin)
                .await
                .expect(200)
        ),
        2
    );
    assert_eq!(
        total(
            app.get(
                "/api/facilities?department=Radiodiagn%C3%B3stico",
                &app.admin
            )
            .await
            .expect(200)
        ),
        2
    );
}

pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn clients_see_only_their_facilities(app: TestApp) {
    let (client, token) = app.user_with(&["Cliente"], "Cli Linked").await;
    let mut mine = facility_payload("Minha");
    mine["users"] = json!([{"_id": client, "responsabilities": ["Titular"]}]);
    let mine = app.create_facility(mine).await;
    let other = app.create_facility(facility_payload("Alheia")).await;
    let list = app.get("/api/facilities", &token).await.expect(200);
    assert_eq!(list["paging"]["total"], 1);
    assert_eq!(list["list"][0]["_id"], mine["_id"]);
    app.get(
        &format!("/api/facility/{}", mine["_id"].as_str().unwrap()),
        &token,
    )
    .await
    .expect(200);
    app.get(
        &format!("/api/facility/{}", other["_id"].as_str().unwrap()),
        &token,
    )
    .await
    .expect_error(404, "not_found");
    assert_eq!(
        app.get("/api/nuclearmedicinefacilities", &token)
            .await
            .expect(200)["paging"]["total"],
        1
    );
    assert_eq!(
        app.get(&format!("/api/user/{client}/facilities"), &token)
            .await
            .expect(200)["paging"]["total"],
        1
    );
}
