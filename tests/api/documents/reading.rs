//! What each caller sees of documents, and the filters of the lists.

use super::{admin_upload, download, new_facility, pdf, send_form};
use crate::equipment::id;
use crate::helpers::{TestApp, list_ids, urlencode};
use crate::on_both_databases;
use reqwest::multipart::{Form, Part};
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
    let pending = id(&admin_upload(&app, &mine, pdf(400, 1), &[]).await);
    let released_bytes = pdf(400, 2);
    let released = id(&admin_upload(&app, &mine, released_bytes.clone(), &[]).await);
    let foreign = id(&admin_upload(&app, &other, pdf(400, 3), &[]).await);
    for doc in [&released, &foreign] {
        app.admin_post_id("/api/document/sign", &doc).await;
        app.admin_post_id("/api/document/liberate", &doc).await;
    }
    for path in [
        "/api/documents",
        "/api/documents/liberado",
        "/api/documents/Liberado",
    ] {
        let list = app.get_ok(path, &cliente).await;
        assert_eq!(list_ids(&list), [released.as_str()], "{path}");
        assert_eq!(list["paging"]["total"], 1);
    }
    assert_eq!(app.total("/api/documents/falta-assinar", &cliente).await, 0);
    app.get_ok(&format!("/api/document/{released}"), &cliente)
        .await;
    for hidden in [&pending, &foreign] {
        app.assert_not_found(&format!("/api/document/{hidden}"), &cliente)
            .await;
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
        .post_created(
            &format!("/api/document/{released}/comment"),
            &cliente,
            json!({"text": "Recebido, obrigado."}),
        )
        .await;
    let comment = &doc["comments"][0];
    assert_eq!(comment["author"]["_id"], cliente_id.as_str());
    assert_eq!(comment["text"], "Recebido, obrigado.");
    // Staff see all three.
    assert_eq!(app.total("/api/documents", &app.admin).await, 3);

    // A document sent back and corrected: the client sees the released file, never the draft.
    let draft = id(&admin_upload(&app, &mine, pdf(400, 4), &[]).await);
    let send_back = json!({"_id": draft, "status": "Corrigir"});
    app.admin_post("/api/document/edit/", send_back).await;
    app.post_created(
        &format!("/api/document/{draft}/comment"),
        &app.admin,
        json!({"text": "Interno: corrigir a tabela 3"}),
    )
    .await;
    let final_bytes = pdf(400, 5);
    let form = Form::new()
        .text("_id", draft.clone())
        .text("status", "Falta assinar")
        .part("file", Part::bytes(final_bytes.clone()).file_name("v2.pdf"));
    send_form(&app, "/api/document/edit", &app.admin, form)
        .await
        .expect(200);
    app.admin_post_id("/api/document/sign", &draft).await;
    app.admin_post_id("/api/document/liberate", &draft).await;
    let seen = app
        .get_ok(&format!("/api/document/{draft}"), &cliente)
        .await;
    assert_eq!(seen["versions"].as_array().map(Vec::len), Some(1), "{seen}");
    assert_eq!(seen["versions"][0]["version"], 2);
    // The review talk about the draft is not theirs either; what is said after the release is.
    assert_eq!(seen["comments"], json!([]), "{seen}");
    // A comment of invisible characters only says nothing.
    app.post(
        &format!("/api/document/{draft}/comment"),
        &app.admin,
        json!({"text": "\u{200b}\u{feff} "}),
    )
    .await
    .expect_error(422, "validation_failed");
    let after = app
        .post_created(
            &format!("/api/document/{draft}/comment"),
            &app.admin,
            json!({"text": "Versão final enviada."}),
        )
        .await;
    assert_eq!(after["comments"].as_array().map(Vec::len), Some(2));
    let seen = app
        .get_ok(&format!("/api/document/{draft}"), &cliente)
        .await;
    let texts: Vec<_> = seen["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["text"])
        .collect();
    assert_eq!(texts, [&json!("Versão final enviada.")]);
    let listed = app.get_ok("/api/documents", &cliente).await;
    let entry = listed["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["_id"] == draft.as_str());
    assert_eq!(entry.unwrap()["versions"].as_array().map(Vec::len), Some(1));
    let file = |version: u8| format!("/api/document/{draft}/file?version={version}");
    assert_eq!(download(&app, &cliente, &file(1)).await.0, 404);
    let (status, _, got) = download(&app, &cliente, &file(2)).await;
    assert_eq!((status, got), (200, final_bytes));
    // Staff keep every version.
    assert_eq!(download(&app, &app.admin, &file(1)).await.0, 200);
    let staff_view = app.admin_get(&format!("/api/document/{draft}")).await;
    assert_eq!(staff_view["versions"].as_array().map(Vec::len), Some(2));
}

async fn lists_filter_by_status_facility_dates_and_text(app: TestApp) {
    let a = new_facility(&app, "Clínica A").await;
    let b = new_facility(&app, "Clínica B").await;
    let d1 = id(&admin_upload(
        &app,
        &a,
        pdf(100, 1),
        &[("name", "Licença CNEN"), ("date", "2026-01-10")],
    )
    .await);
    let d2 = id(&admin_upload(
        &app,
        &a,
        pdf(100, 2),
        &[
            ("name", "Teste de constância"),
            ("date", "2026-05-10"),
            ("draft", "true"),
        ],
    )
    .await);
    let d3 = id(&admin_upload(
        &app,
        &b,
        pdf(100, 3),
        &[
            ("name", "Levantamento radiométrico"),
            ("date", "2026-09-10"),
        ],
    )
    .await);
    let filters =
        json!({"facilityId": a, "dateGte": "2026-02-01", "pageNum": 1, "pageSize": 10}).to_string();
    // Newest first.
    for (path, expected) in [
        ("/api/documents".to_owned(), vec![&d3, &d2, &d1]),
        ("/api/documents/falta-assinar".to_owned(), vec![&d3, &d1]),
        ("/api/documents/Em%20andamento".to_owned(), vec![&d2]),
        ("/api/documents?status=em-andamento".to_owned(), vec![&d2]),
        // In any case and accents, as the other lists' filters.
        (
            "/api/documents?status=falta%20assinar".to_owned(),
            vec![&d3, &d1],
        ),
        ("/api/documents/EM-ANDAMENTO".to_owned(), vec![&d2]),
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
    app.assert_not_found("/api/documents/pronto", &app.admin)
        .await;
    app.assert_bad_requests(&[
        "/api/documents?status=pronto",
        "/api/documents?dateGte=ontem",
    ])
    .await;
}
