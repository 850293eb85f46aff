//! QC tests the registry computes: the seeded catalogue, test types with a kind and tolerances,
//! records whose figures and conclusion the server computes, and failing tests in the due lists.

use crate::equipment::{equipment, id};
use crate::helpers::{TestApp, entries, facility_payload};
use crate::on_both_databases;
use serde_json::{Value, json};

on_both_databases!(
    configured(|c| c.qc_catalogue = true);
    the_catalogue_is_seeded_once_with_kinds_and_tolerances,
    test_types_take_a_kind_and_tolerances,
    computed_tests_store_their_figures_and_verdict,
    a_conclusion_sent_for_a_computed_test_is_refused,
    due_entries_show_the_last_conclusion_and_filter_failing_ones,
    the_report_is_a_one_page_pdf_with_the_figures_and_verdict,
);

const DOSE_CALIBRATOR: &str = "00000000-0000-7000-8000-000000000001";
const GAMMA_CAMERA: &str = "00000000-0000-7000-8000-000000000002";
const GEIGER: &str = "00000000-0000-7000-8000-000000000003";
const CONSTANCY: &str = "00000000-0000-7000-8001-000000000001";
const ACCURACY: &str = "00000000-0000-7000-8001-000000000002";
const GEOMETRY: &str = "00000000-0000-7000-8001-000000000005";

fn today() -> String {
    registry_core::equipment::local_date(chrono::Utc::now()).to_string()
}

/// The entry of test type `test_type` in a due list.
fn due_entry<'a>(due: &'a Value, test_type: &str) -> &'a Value {
    entries(due)
        .iter()
        .find(|d| d["typeOfTest"]["_id"] == test_type)
        .unwrap()
}

async fn dose_calibrator(app: &TestApp, facility_name: &str) -> String {
    let f = id(&app.create_facility(facility_payload(facility_name)).await);
    equipment(app, &f, DOSE_CALIBRATOR).await
}

/// A Co-57 source of 370 MBq certified on 2026-01-01T00:00Z, read one half-life (271.74 d) later,
/// when 185 MBq are expected.
fn co57(readings: &[f64]) -> Value {
    json!({
        "unit": "MBq",
        "measuredAt": "2026-09-29T14:45:36-03:00",
        "sources": [{"nuclide": "Co-57", "certificateActivity": 370, "certificateDate": "2026-01-01T00:00:00Z",
                     "readings": readings}]
    })
}

async fn record(app: &TestApp, equipment: &str, test_type: &str, measurements: Value) -> Value {
    app.post_created(
        "/api/test/",
        &app.admin,
        json!({"equipment": equipment, "typeOfTest": test_type, "date": today(), "measurements": measurements}),
    )
    .await
}

async fn the_catalogue_is_seeded_once_with_kinds_and_tolerances(app: TestApp) {
    let list = |equipment_type: &'static str| {
        let app = &app;
        async move {
            app.admin_get(&format!(
                "/api/typeOfTest?typeOfEquipment={equipment_type}&pageSize=50"
            ))
            .await
        }
    };
    let dose = list(DOSE_CALIBRATOR).await;
    assert_eq!(dose["paging"]["total"], 5);
    let by_name = |list: &Value, name: &str| -> Value {
        entries(list)
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} seeded"))
            .clone()
    };
    for (name, kind, days, limit) in [
        ("Constância", "constancy", 1, 5.0),
        ("Exatidão", "accuracy", 180, 10.0),
        ("Precisão", "precision", 180, 5.0),
        ("Linearidade", "linearity", 180, 10.0),
        ("Geometria", "geometry", 365, 10.0),
    ] {
        let t = by_name(&dose, name);
        assert_eq!(t["kind"], kind, "{name}");
        assert_eq!(t["expirationInDays"], days, "{name}");
        assert_eq!(t["tolerances"]["limitPercent"], limit, "{name}");
    }
    assert_eq!(
        by_name(&dose, "Geometria")["tolerances"],
        json!({"limitPercent": 10.0, "warnPercent": 5.0})
    );
    let gm = list(GEIGER).await;
    assert_eq!(by_name(&gm, "Reprodutibilidade")["kind"], "reproducibility");
    let camera = list(GAMMA_CAMERA).await;
    let cor = by_name(&camera, "Centro de rotação");
    assert_eq!(cor["kind"], "recorded");
    assert_eq!(cor["tolerances"]["quantities"][0]["name"], "offsetPixels");
    let uniformity = by_name(&camera, "Uniformidade intrínseca");
    assert_eq!(uniformity["expirationInDays"], 30);
    assert_eq!(uniformity["tolerances"]["quantities"][0]["minimum"], 0.0);
    assert_eq!(cor["tolerances"]["quantities"][0].get("minimum"), None);
    // A uniformity is a percentage from 0: a negative reading is refused, a signed offset judged.
    let f = id(&app
        .create_facility(facility_payload("Clínica Câmara"))
        .await);
    let camera_id = equipment(&app, &f, GAMMA_CAMERA).await;
    let body = |type_id: &Value, values: Value| json!({"equipment": camera_id, "typeOfTest": type_id, "date": today(), "measurements": {"values": values}});
    app.post(
        "/api/test/",
        &app.admin,
        body(
            &uniformity["_id"],
            json!({"integralUfov": -0.5, "differentialUfov": 1}),
        ),
    )
    .await
    .expect_field_error("measurements.values.integralUfov", "invalid_value");
    let offset = app
        .post_created(
            "/api/test/",
            &app.admin,
            body(&cor["_id"], json!({"offsetPixels": -0.2})),
        )
        .await;
    assert_eq!(offset["conclusion"], "Satisfatório");

    // Once per database: a seeded type the administrator deleted stays deleted.
    app.admin_post_id("/api/typeOfTest/exclude", &GEOMETRY)
        .await;
    let mut tx = app.state.db.begin().await.unwrap();
    registry_server::store::equipment_types::seed_catalogue(&mut tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(list(DOSE_CALIBRATOR).await["paging"]["total"], 4);
}

async fn test_types_take_a_kind_and_tolerances(app: TestApp) {
    let register = |body: Value| app.post("/api/typeOfTest/register", &app.admin, body);
    // A kind without tolerances takes the kind's defaults.
    let geometry = register(
        json!({"name": "Geometria 2", "typeOfEquipment": DOSE_CALIBRATOR,
        "expirationInDays": 365, "kind": "geometry"}),
    )
    .await
    .expect(201);
    assert_eq!(
        geometry["tolerances"],
        json!({"limitPercent": 10.0, "warnPercent": 5.0})
    );
    // Field by field: an unknown kind; tolerances without a kind; a recorded test without
    // quantities; a warning above the limit.
    register(json!({"name": "X", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 30, "kind": "magic"}))
        .await
        .expect_field_error("kind", "invalid_value");
    register(
        json!({"name": "X", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 30,
        "tolerances": {"limitPercent": 5}}),
    )
    .await
    .expect_field_error("tolerances", "invalid_value");
    register(json!({"name": "X", "typeOfEquipment": GAMMA_CAMERA, "expirationInDays": 30, "kind": "recorded"}))
        .await
        .expect_field_error("tolerances.quantities", "required");
    register(json!({"name": "X", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 30, "kind": "accuracy",
        "tolerances": {"limitPercent": 5, "warnPercent": 8}}))
    .await
    .expect_field_error("tolerances.warnPercent", "invalid_value");
    // Tolerances can be edited; the kind cannot once tests were recorded.
    let tt = id(&geometry);
    let edited = app
        .admin_post(
            "/api/typeOfTest/edit",
            json!({"_id": tt, "tolerances": {"limitPercent": 8, "warnPercent": 3}}),
        )
        .await;
    assert_eq!(edited["tolerances"]["limitPercent"], 8.0);
    let eq = dose_calibrator(&app, "Tipos Calculados").await;
    record(
        &app,
        &eq,
        &tt,
        json!({"reference": {"label": "frasco", "reading": 100}, "geometries": [{"label": "seringa", "reading": 96}]}),
    )
    .await;
    app.post(
        "/api/typeOfTest/edit",
        &app.admin,
        json!({"_id": tt, "kind": "accuracy"}),
    )
    .await
    .expect_field_error("kind", "invalid_value");
    // A free test type stays free: no kind, no tolerances.
    let free = register(
        json!({"name": "Livre", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 30}),
    )
    .await
    .expect(201);
    assert_eq!(free["kind"], Value::Null);
    assert_eq!(free["tolerances"], Value::Null);
}

async fn computed_tests_store_their_figures_and_verdict(app: TestApp) {
    let eq = dose_calibrator(&app, "Calculada").await;
    // Readings 190, 192, 194: mean 192 against 185 expected → +3.78 %, within 10 %.
    let passed = record(&app, &eq, ACCURACY, co57(&[190.0, 192.0, 194.0])).await;
    assert_eq!(passed["conclusion"], "Satisfatório");
    let source = &passed["figures"]["sources"][0];
    assert!((source["expectedActivity"].as_f64().unwrap() - 185.0).abs() < 1e-6);
    assert_eq!(source["mean"], 192.0);
    assert!((source["deviationPercent"].as_f64().unwrap() - 3.7838).abs() < 1e-4);
    assert_eq!(
        passed["measurements"]["sources"][0]["readings"],
        json!([190.0, 192.0, 194.0])
    );
    // Stored: the record reads back with its figures.
    let shown = app.admin_get(&format!("/api/test/{}", id(&passed))).await;
    assert_eq!(shown["figures"], passed["figures"]);
    assert_eq!(shown["conclusion"], "Satisfatório");

    // 205, 206, 207: mean 206 → +11.35 % fails.
    let failed = record(&app, &eq, ACCURACY, co57(&[205.0, 206.0, 207.0])).await;
    assert_eq!(failed["conclusion"], "Insatisfatório");

    // Editing the readings recomputes; editing only the notes keeps the figures.
    let path = format!("/api/test/{}", id(&failed));
    let fixed = app
        .admin_put(&path, json!({"measurements": co57(&[186.0, 187.0, 188.0])}))
        .await;
    assert_eq!(fixed["conclusion"], "Satisfatório");
    assert_eq!(fixed["figures"]["sources"][0]["mean"], 187.0);
    let noted = app.admin_put(&path, json!({"notes": "refeito"})).await;
    assert_eq!(noted["figures"], fixed["figures"]);
    assert_eq!(noted["notes"], "refeito");
    // A test is dated by the day of its readings, not before it (Brasília's calendar).
    app.put(&path, &app.admin, json!({"date": "2026-09-28"}))
        .await
        .expect_field_error("measurements.measuredAt", "invalid_value");
    // Readings dated after the test are reported with the other failing fields: readings that
    // do not compute, a field of the wrong type; an `_id` that is not the path's with the rest.
    let late = co57(&[186.0, -1.0]);
    let late_fields = [
        ("measurements.measuredAt", "invalid_value"),
        ("measurements.sources[0].readings[1]", "invalid_value"),
    ];
    let body = json!({"date": "2026-09-28", "measurements": late});
    app.put(&path, &app.admin, body)
        .await
        .expect_field_errors(&late_fields);
    let body = json!({"date": "2026-09-28", "measurements": late, "notes": 5});
    app.put(&path, &app.admin, body)
        .await
        .expect_field_errors(&[late_fields[0], late_fields[1], ("notes", "invalid_value")]);
    // Beside a reference that names nothing, too.
    app.put(
        &path,
        &app.admin,
        json!({"date": "2026-09-28", "performedBy": "nobody"}),
    )
    .await
    .expect_field_errors(&[late_fields[0], ("performedBy", "user_not_found")]);
    // The stored readings too, when the edit moves the day before them.
    app.put(&path, &app.admin, json!({"date": "2026-09-28", "notes": 5}))
        .await
        .expect_field_errors(&[late_fields[0], ("notes", "invalid_value")]);
    let body = json!({"_id": "another", "notes": 5});
    app.put(&path, &app.admin, body)
        .await
        .expect_field_errors(&[("_id", "invalid_value"), ("notes", "invalid_value")]);
    assert_eq!(
        app.admin_put(&path, json!({"date": "2026-09-29"})).await["date"],
        "2026-09-29"
    );

    // Readings are validated field by field, with the usual envelope.
    app.post(
        "/api/test/",
        &app.admin,
        json!({"equipment": eq, "typeOfTest": ACCURACY, "date": today(),
               "measurements": {"unit": "Ci", "sources": [{"nuclide": "Co-57", "certificateActivity": 370,
               "certificateDate": "2026-01-01", "readings": [190, -1]}]}}),
    )
    .await
    .expect_field_errors(&[
        ("measurements.unit", "invalid_value"),
        ("measurements.measuredAt", "required"),
        ("measurements.sources[0].readings[1]", "invalid_value"),
    ]);
    app.post(
        "/api/test/",
        &app.admin,
        json!({"equipment": eq, "typeOfTest": ACCURACY, "date": today()}),
    )
    .await
    .expect_field_error("measurements", "required");

    // Geometry: 93 against 100 → −7 %, with remarks and a correction factor of 100 / 93.
    let geometry = record(
        &app,
        &eq,
        GEOMETRY,
        json!({"reference": {"label": "frasco 10 mL", "reading": 100},
               "geometries": [{"label": "seringa 3 mL", "reading": 93}]}),
    )
    .await;
    assert_eq!(geometry["conclusion"], "Satisfatório com observações");
    let factor = geometry["figures"]["geometries"][0]["correctionFactor"]
        .as_f64()
        .unwrap();
    assert!((factor - 1.07527).abs() < 1e-5);

    // Recorded values of a gamma camera: |−1.2| pixel past the 1-pixel limit.
    let f = id(&app.create_facility(facility_payload("Câmara")).await);
    let camera = id(&app
        .post_created(
            "/api/equipment/register",
            &app.admin,
            json!({"facility": f, "typeOfEquipment": GAMMA_CAMERA}),
        )
        .await);
    let cor = record(
        &app,
        &camera,
        "00000000-0000-7000-8001-000000000008",
        json!({"values": {"offsetPixels": -1.2}}),
    )
    .await;
    assert_eq!(cor["conclusion"], "Insatisfatório");
    assert_eq!(cor["figures"]["values"][0]["limit"], 1.0);
}

async fn a_conclusion_sent_for_a_computed_test_is_refused(app: TestApp) {
    let eq = dose_calibrator(&app, "Sem Conclusão").await;
    let refused = app
        .post(
            "/api/test/",
            &app.admin,
            json!({"equipment": eq, "typeOfTest": CONSTANCY, "date": today(),
                   "conclusion": "Satisfatório", "measurements": co57(&[175.0])}),
        )
        .await
        .expect_error(422, "validation_failed");
    assert_eq!(
        refused.field_errors(),
        [("conclusion".to_owned(), "invalid_value".to_owned())]
    );
    // With other fields refused too, the readings are still checked: one answer lists them all
    // (product.md §1), on create and on edit.
    let every = json!({"equipment": eq, "typeOfTest": CONSTANCY, "date": "2999-01-01",
                       "conclusion": "Satisfatório", "measurements": co57(&[])});
    let fields = |refused: crate::answer::Answer| -> Vec<String> {
        let mut fields: Vec<String> = refused.field_errors().into_iter().map(|(f, _)| f).collect();
        fields.sort();
        fields
    };
    let expected = ["conclusion", "date", "measurements.sources[0].readings"];
    let refused = app.post("/api/test/", &app.admin, every.clone()).await;
    assert_eq!(
        fields(refused.expect_error(422, "validation_failed")),
        expected
    );
    // Without it the registry decides: 175 against 185 is −5.41 %, past ±5 %.
    let saved = record(&app, &eq, CONSTANCY, co57(&[175.0])).await;
    let refused = app
        .put(&format!("/api/test/{}", id(&saved)), &app.admin, every)
        .await;
    assert_eq!(
        fields(refused.expect_error(422, "validation_failed")),
        expected
    );
    assert_eq!(saved["conclusion"], "Insatisfatório");
    app.put(
        &format!("/api/test/{}", id(&saved)),
        &app.admin,
        json!({"conclusion": "Satisfatório"}),
    )
    .await
    .expect_field_error("conclusion", "invalid_value");
    // A free test type still takes the client's conclusion.
    let free = id(&app
        .post_created(
            "/api/typeOfTest/register",
            &app.admin,
            json!({"name": "Inspeção visual", "typeOfEquipment": DOSE_CALIBRATOR, "expirationInDays": 30}),
        )
        .await);
    let manual = app
        .post_created(
            "/api/test/",
            &app.admin,
            json!({"equipment": eq, "typeOfTest": free, "date": today(), "conclusion": "Insatisfatório"}),
        )
        .await;
    assert_eq!(manual["conclusion"], "Insatisfatório");
    assert_eq!(manual["figures"], Value::Null);
}

async fn due_entries_show_the_last_conclusion_and_filter_failing_ones(app: TestApp) {
    let failing_eq = dose_calibrator(&app, "Reprovada").await;
    let passing_eq = dose_calibrator(&app, "Aprovada").await;
    // Accuracy is semiannual: recorded today it is `ok`, yet a failing one must still show.
    record(&app, &failing_eq, ACCURACY, co57(&[205.0, 206.0, 207.0])).await;
    record(&app, &passing_eq, ACCURACY, co57(&[190.0, 192.0, 194.0])).await;

    let due = app
        .admin_get(&format!("/api/equipment/{failing_eq}/tests/due"))
        .await;
    let accuracy = due_entry(&due, ACCURACY);
    assert_eq!(accuracy["lastConclusion"], "Insatisfatório");
    assert_eq!(accuracy["state"], "ok");
    let never = due_entry(&due, CONSTANCY);
    assert_eq!(never["lastConclusion"], Value::Null);

    let failing = app.admin_get("/api/tests/due?failing=true").await;
    assert_eq!(failing["paging"]["total"], 1, "{failing}");
    assert_eq!(failing["list"][0]["equipment"]["_id"], failing_eq.as_str());
    assert_eq!(failing["list"][0]["typeOfTest"]["_id"], ACCURACY);
    // Combined with a state filter, and per equipment.
    assert_eq!(
        app.admin_get("/api/tests/due?failing=true&state=overdue")
            .await["paging"]["total"],
        0
    );
    assert_eq!(
        app.admin_get(&format!(
            "/api/equipment/{passing_eq}/tests/due?failing=true"
        ))
        .await["paging"]["total"],
        0
    );
    app.get("/api/tests/due?failing=maybe", &app.admin)
        .await
        .expect_error(400, "bad_request");

    // A newer passing test clears it; deleting that test brings the failure back.
    let retest = record(&app, &failing_eq, ACCURACY, co57(&[186.0])).await;
    assert_eq!(
        app.admin_get("/api/tests/due?failing=true").await["paging"]["total"],
        0
    );
    app.admin_post(&format!("/api/test/{}", id(&retest)), json!({}))
        .await;
    assert_eq!(
        app.admin_get("/api/tests/due?failing=true").await["paging"]["total"],
        1
    );
}

async fn the_report_is_a_one_page_pdf_with_the_figures_and_verdict(app: TestApp) {
    let eq = dose_calibrator(&app, "Relatório Clínica").await;
    let failed = record(&app, &eq, ACCURACY, co57(&[205.0, 206.0, 207.0])).await;
    let url = app.url(&format!("/api/test/{}/report", id(&failed)));
    let res = app
        .client
        .get(&url)
        .bearer_auth(&app.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    // A download, kept by no shared cache (like document files and images).
    assert_eq!(res.headers()["cache-control"], "private, no-cache");
    let bytes = res.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let pdf = lopdf::Document::load_mem(&bytes).expect("a PDF lopdf reads");
    assert_eq!(pdf.get_pages().len(), 1, "one page");
    let text = pdf.extract_text(&[1]).expect("text read back");
    for expected in [
        "Relatório de controle de qualidade",
        "Relatório Clínica",
        "Calibrador de Doses",
        "Exatidão",
        "Administrator",
        "Co-57",
        "readings: 205, 206,",
        "expectedActivity: 185",
        "deviationPercent: 11.3514",
        "Conclusão: Insatisfatório",
    ] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    // Only who may see the test gets its report.
    let (_, client) = app.user_with(&["Cliente"], "Outro").await;
    app.assert_not_found(&format!("/api/test/{}/report", id(&failed)), &client)
        .await;
}
