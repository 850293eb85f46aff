//! What each caller sees of documents, and the filters of the lists.

use super::{download, new_facility, pdf, upload};
use crate::equipment::id;
use crate::helpers::{TestApp, facility_payload};
use crate::on_both_databases;
use serde_json::{Value, json};

on_both_databases!(
    clients_see_only_released_documents_of_their_facilities,
    lists_filter_by_status_facility_dates_and_text
);

async fn clients_see_only_released_documents_of_their_facilities(app: TestApp) {
    let (cliente_id, cliente) = app.user_with(&["Cliente"], "Cliente Vis").await;
    let mut payload = facility_payload("Clínica do Cliente");
    payload["users"] = json!([{"_id": cliente_id, "responsabilities": ["Titular"]}]);
    let mine = id(&app.create_facility(payload).await);
    let other = new_facility(&app, "Clínica Alheia").await;
    let pending = id(&upload(&app, &app.admin, &mine, pdf(400, 1), &[])
        .await
        .expect(201));
    let released_bytes = pdf(400, 2);
    let released = id(
        &upload(&app, &app.admin, &mine, released_bytes.clone(), &[])
            .await
            .expect(201),
    );
    let foreign = id(&upload(&app, &app.admin, &other, pdf(400, 3), &[])
        .await
        .expect(201));
    for doc in [&released, &foreign] {
        app.post("/api/document/sign", &app.admin, json!({"_id": doc}))
            .await
            .expect(200);
        app.post("/api/document/liberate", &app.admin, json!({"_id": doc}))
            .await
            .expect(200);
    }
    for path in [
        "/api/documents",
        "/api/documents/liberado",
        "/api/documents/Liberado",
    ] {
        let list = app.get(path, &cliente).await.expect(200);
        let ids: Vec<&str> = list["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [released.as_str()], "{path}");
        assert_eq!(list["paging"]["total"], 1);
    }
    let list = app
        .get("/api/documents/falta-assinar", &cliente)
        .await
        .expect(200);
    assert_eq!(list["paging"]["total"], 0);
    app.get(&format!("/api/document/{released}"), &cliente)
        .await
        .expect(200);
    for hidden in [&pending, &foreign] {
        app.get(&format!("/api/document/{hidden}"), &cliente)
            .await
            .expect_error(404, "not_found");
        let (status, _, _) =
            download(&app, &cliente, &format!("/api/document/{hidden}/file")).await;
        assert_eq!(status, 404);
        app.post(
            &format!("/api/document/{hidden}/comment"),
            &cliente,
            json!({"text": "?"}),
        )
        .await
        .expect_error(404, "not_found");
    }
    let (status, _, got) =
        download(&app, &cliente, &format!("/api/document/{released}/file")).await;
    assert_eq!((status, got), (200, released_bytes));
    let doc = app
        .post(
            &format!("/api/document/{released}/comment"),
            &cliente,
            json!({"text": "Recebido, obrigado."}),
        )
        .await
        .expect(201);
    let comment = &doc["comments"][0];
    assert_eq!(comment["author"]["_id"], cliente_id.as_str());
    assert_eq!(comment["text"], "Recebido, obrigado.");
    // Staff see all three.
    assert_eq!(
        app.get("/api/documents", &app.admin).await.expect(200)["paging"]["total"],
        3
    );
}

async fn lists_filter_by_status_facility_dates_and_text(app: TestApp) {
    let a = new_facility(&app, "Clínica A").await;
    let b = new_facility(&app, "Clínica B").await;
    let d1 = id(&upload(
        &app,
        &app.admin,
        &a,
        pdf(100, 1),
        &[("name", "Licença CNEN"), ("date", "2026-01-10")],
    )
    .await
    .expect(201));
    let d2 = id(&upload(
        &app,
        &app.admin,
        &a,
        pdf(100, 2),
        &[
            ("name", "Teste de constância"),
            ("date", "2026-05-10"),
            ("draft", "true"),
        ],
    )
    .await
    .expect(201));
    let d3 = id(&upload(
        &app,
        &app.admin,
        &b,
        pdf(100, 3),
        &[
            ("name", "Levantamento radiométrico"),
            ("date", "2026-09-10"),
        ],
    )
    .await
    .expect(201));
    let ids = |v: Value| -> Vec<String> {
        v["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(app.get("/api/documents", &app.admin).await.expect(200)),
        [d3.as_str(), d2.as_str(), d1.as_str()],
        "newest first"
    );
    assert_eq!(
        ids(app
            .get("/api/documents/falta-assinar", &app.admin)
            .await
            .expect(200)),
        [d3.as_str(), d1.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents/Em%20andamento", &app.admin)
            .await
            .expect(200)),
        [d2.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents?status=em-andamento", &app.admin)
            .await
            .expect(200)),
        [d2.as_str()]
    );
    assert_eq!(
        ids(app
            .get(&format!("/api/documents?facilityId={a}"), &app.admin)
            .await
            .expect(200)),
        [d2.as_str(), d1.as_str()]
    );
    let filters =
        json!({"facilityId": a, "dateGte": "2026-02-01", "pageNum": 1, "pageSize": 10}).to_string();
    let path = format!("/api/documents?filters={}", url_encode(&filters));
    assert_eq!(
        ids(app.get(&path, &app.admin).await.expect(200)),
        [d2.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents?dateLt=2026-05-10", &app.admin)
            .await
            .expect(200)),
        [d1.as_str()]
    );
    assert_eq!(
        ids(app
            .get("/api/documents?q=radiometrico", &app.admin)
            .await
            .expect(200)),
        [d3.as_str()]
    );
    let page = app
        .get("/api/documents?pageSize=2&pageNum=2", &app.admin)
        .await
        .expect(200);
    assert_eq!(
        page["paging"],
        json!({"total": 3, "pageNum": 2, "pageSize": 2})
    );
    assert_eq!(ids(page), [d1.as_str()]);
    assert_eq!(
        app.get("/api/documents/assinado", &app.admin)
            .await
            .expect(200)["paging"]["total"],
        0
    );
    app.get("/api/documents/pronto", &app.admin)
        .await
        .expect_error(404, "not_found");
    app.get("/api/documents?status=pronto", &app.admin)
        .await
        .expect_error(400, "bad_request");
    app.get("/api/documents?dateGte=ontem", &app.admin)
        .await
        .expect_error(400, "bad_request");
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
