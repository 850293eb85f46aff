//! What each caller sees of documents, and the filters of the lists.

use super::{download, new_facility, pdf, upload};
use crate::equipment::id;
use crate::helpers::{TestApp, list_ids, urlencode};
use crate::on_both_databases;
use serde_json::json;

on_both_databases!(
    clients_see_only_released_documents_of_their_facilities,
    lists_filter_by_status_facility_dates_and_text
);

async fn clients_see_only_released_documents_of_their_facilities(app: TestApp) {
    let (cliente_id, cliente) = app.user_with(&["Cliente"], "Cliente Vis").await;
    let mine = id(&app
        .create_facility_of(&cliente_id, "Clínica do Cliente")
        .await);
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
        app.post_id("/api/document/sign", &app.admin, &doc)
            .await
            .expect(200);
        app.post_id("/api/document/liberate", &app.admin, &doc)
            .await
            .expect(200);
    }
    for path in [
        "/api/documents",
        "/api/documents/liberado",
        "/api/documents/Liberado",
    ] {
        let list = app.get(path, &cliente).await.expect(200);
        assert_eq!(list_ids(&list), [released.as_str()], "{path}");
        assert_eq!(list["paging"]["total"], 1);
    }
    assert_eq!(app.total("/api/documents/falta-assinar", &cliente).await, 0);
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
    assert_eq!(app.total("/api/documents", &app.admin).await, 3);
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
    let filters =
        json!({"facilityId": a, "dateGte": "2026-02-01", "pageNum": 1, "pageSize": 10}).to_string();
    // Newest first.
    for (path, expected) in [
        ("/api/documents".to_owned(), vec![&d3, &d2, &d1]),
        ("/api/documents/falta-assinar".to_owned(), vec![&d3, &d1]),
        ("/api/documents/Em%20andamento".to_owned(), vec![&d2]),
        ("/api/documents?status=em-andamento".to_owned(), vec![&d2]),
        (format!("/api/documents?facilityId={a}"), vec![&d2, &d1]),
        (
            format!("/api/documents?filters={}", urlencode(&filters)),
            vec![&d2],
        ),
        ("/api/documents?dateLt=2026-05-10".to_owned(), vec![&d1]),
        ("/api/documents?q=radiometrico".to_owned(), vec![&d3]),
    ] {
        let got = list_ids(&app.admin_get(&path).await);
        assert_eq!(got.iter().collect::<Vec<_>>(), expected, "{path}");
    }
    let page = app.admin_get("/api/documents?pageSize=2&pageNum=2").await;
    assert_eq!(
        page["paging"],
        json!({"total": 3, "pageNum": 2, "pageSize": 2})
    );
    assert_eq!(list_ids(&page), [d1.as_str()]);
    assert_eq!(app.total("/api/documents/assinado", &app.admin).await, 0);
    app.get("/api/documents/pronto", &app.admin)
        .await
        .expect_error(404, "not_found");
    app.assert_bad_requests(&[
        "/api/documents?status=pronto",
        "/api/documents?dateGte=ontem",
    ])
    .await;
}
