//! Computed QC tests through the CLI: readings from a CSV file in a script, the figures and
//! verdict shown before saving, `test show` printing the figures, and `test due --failing`.

use crate::harness::{Env, answer, converse, dialogue, record_args, reply, spawn};
use serde_json::json;

const DOSE_CALIBRATOR: &str = "00000000-0000-7000-8000-000000000001";

#[tokio::test(flavor = "multi_thread")]
async fn a_computed_test_is_recorded_from_a_csv_of_readings() {
    let env = Env::logged_in().await;
    let test_type = env
        .test_type(
            json!({"name": "Constância", "typeOfEquipment": DOSE_CALIBRATOR,
                          "expirationInDays": 1, "kind": "constancy"}),
        )
        .await;
    assert_eq!(test_type["tolerances"]["limitPercent"], 5.0);
    let equipment = env
        .equipment("Clinica Calculos", 71, DOSE_CALIBRATOR, &[])
        .await;

    // Co-57, 370 MBq certified 2026-01-01T00:00Z, read one half-life (271.74 d) later: 185 MBq
    // expected; 175 is −5.41 %, past ±5 %.
    let csv = env.write(
        "constancia.csv",
        "nuclide,certificateActivity,certificateDate,measuredAt,reading\n\
         Co-57,370,2026-01-01T00:00:00Z,2026-09-29T14:45:36-03:00,175\n",
    );
    let record = |csv: String, extra: &'static [&'static str]| {
        let (env, equipment) = (&env, equipment.clone());
        async move {
            let mut args = record_args(
                &equipment,
                "constância",
                &["--readings", &csv, "-o", "json"],
            );
            args.extend_from_slice(extra);
            env.run(&args).await
        }
    };
    // The verdict is the registry's: --conclusion is a usage error.
    record(csv.clone(), &["--conclusion", "Satisfatório"])
        .await
        .expect(2)
        .says("--conclusion");

    // The figures and the verdict were shown before saving (on stderr; stdout stays JSON).
    let saved = record(csv, &[])
        .await
        .expect(0)
        .says("expectedActivity")
        .says("Verdict: Insatisfatório")
        .json();
    assert_eq!(saved["conclusion"], "Insatisfatório");
    assert_eq!(
        saved["date"], "2026-09-29",
        "dated by the day of the readings"
    );
    let deviation = saved["figures"]["sources"][0]["deviationPercent"]
        .as_f64()
        .unwrap();
    assert!((deviation + 5.4054).abs() < 1e-4, "{deviation}");
    assert_eq!(
        saved["measurements"]["sources"][0]["readings"],
        json!([175.0])
    );

    // `test show` prints the figures as tables.
    let id = saved["_id"].as_str().unwrap();
    let shown = env.run(&["test", "show", id]).await.expect(0);
    for text in [
        "sources:",
        "expectedActivity",
        "185",
        "-5.4054",
        "Insatisfatório",
    ] {
        assert!(shown.stdout.contains(text), "{text}:\n{}", shown.stdout);
    }

    // The PDF report, saved to a file.
    env.run(&["test", "report", id, "--file", "report.pdf"])
        .await
        .expect(0);
    let pdf = std::fs::read(env.work.path().join("report.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    env.run(&["test", "report", id, "--file", "report.pdf"])
        .await
        .expect(2)
        .says("--force");

    // Readings refused locally, field by field (exit 4), before anything is sent.
    let bad = env.write(
        "ruim.csv",
        "nuclide,certificateActivity,certificateDate,measuredAt,reading\nCo-57,370,2026-01-01,ontem,-1\n",
    );
    record(bad, &[])
        .await
        .expect(4)
        .says("measurements.measuredAt")
        .says("measurements.sources[0].readings[0]");

    // The failing test shows in the due list with --failing, with its conclusion.
    let due = env.json(&["test", "due", "--failing"]).await;
    assert_eq!(due.as_array().unwrap().len(), 1, "{due}");
    assert_eq!(due[0]["lastConclusion"], "Insatisfatório");
    let table = env.run(&["test", "due", "--failing"]).await.expect(0);
    assert!(table.stdout.contains("lastConclusion"), "{}", table.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_asks_reading_by_reading_and_shows_the_verdict_before_saving() {
    let env = Env::logged_in().await;
    let geiger = "00000000-0000-7000-8000-000000000003";
    env.test_type(
        json!({"name": "Reprodutibilidade", "typeOfEquipment": geiger,
                         "expirationInDays": 30, "kind": "reproducibility"}),
    )
    .await;
    let equipment = env.equipment("Clinica Leituras", 72, geiger, &[]).await;

    let record = env.at_terminal(&record_args(&equipment, "Reprodutibilidade", &[]));
    dialogue("the prompts dialogue", move || {
        let mut p = spawn(record)?;
        reply(&mut p, "Unit", "cps")?;
        // A figure the server would refuse is asked again as it is typed, saying why.
        reply(&mut p, "Reference reading of the check source", "-10")?;
        reply(&mut p, "must be a positive number", "10")?;
        // Mean 11.4 against 10: +14 %, between 10 % and 20 %.
        reply(&mut p, "Reading 1", "11.2 0")?;
        reply(&mut p, "must be a positive number", "11.2")?;
        reply(&mut p, "Reading 2", "11.4")?;
        reply(&mut p, "Reading 3", "11,6")?;
        reply(&mut p, "Reading 4", "")?;
        p.exp_string("deviationPercent")?;
        // rexpect reads bytes one by one: match the ASCII around the accents.
        p.exp_string("Verdict: Satisfat")?;
        p.exp_string("rio com observa")?;
        // Enter saves: the readings were just typed. The figures are not printed a second time.
        answer(&mut p, "Save this test?", "\r")?;
        p.exp_string("Recorded Reprodutibilidade")?;
        let rest = p.exp_eof()?;
        assert!(!rest.contains("deviationPercent"), "shown twice:\n{rest}");
        Ok(())
    })
    .await;
    let due = env.json(&["test", "due", "--equipment", &equipment]).await;
    assert_eq!(due[0]["lastConclusion"], "Satisfatório com observações");
}

/// The `registry …` command of docs/cli.md that begins with `start`, its `\`-continued lines
/// joined, as a person would paste it.
fn docs_example(start: &str) -> String {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md"))
        .expect("docs/cli.md");
    let mut lines = docs.lines().skip_while(|l| !l.starts_with(start));
    let mut command = String::new();
    for line in lines.by_ref() {
        command.push_str(line.trim_end_matches('\\'));
        if !line.ends_with('\\') {
            break;
        }
    }
    assert!(!command.is_empty(), "no `{start}` in docs/cli.md");
    command
}

#[tokio::test(flavor = "multi_thread")]
async fn the_qc_example_of_the_docs_works_on_a_fresh_database() {
    // A fresh database as a deployment has it: the seeded QC catalogue.
    let env = Env::start_configured(|c| c.qc_catalogue = true).await;
    env.login_admin().await;
    let equipment = env.equipment("Clinica Docs", 72, "Gama Câmara", &[]).await;
    let example = docs_example("registry test record --equipment EQUIPMENT_ID")
        .replace("EQUIPMENT_ID", &equipment);
    let out = env.run_shell(&format!("{example} -o json")).await.expect(0);
    assert_eq!(out.json()["notes"], "colimador LEHR");

    // The example of `test record --help` works too.
    let help = env
        .run(&["test", "record", "--help"])
        .await
        .expect(0)
        .stdout;
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let quoted = help
        .split("Uniformidade '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("an example for Uniformidade in the help")
        .to_owned();
    let mut args = record_args(&equipment, "Uniformidade", &["--measurements", &quoted]);
    args.extend(["-o", "json"]);
    let out = env.run(&args).await.expect(0);
    assert_eq!(
        out.json()["measurements"]["values"]["differentialUfov"],
        2.4
    );
}

/// The lists asked for at a terminal end with an empty answer: the geometries of a geometry
/// test (and the readings of a source, reading by reading).
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_ends_a_list_of_geometries_with_an_empty_answer() {
    let env = Env::logged_in().await;
    env.test_type(
        json!({"name": "Geometria Teste", "typeOfEquipment": DOSE_CALIBRATOR,
                         "expirationInDays": 365, "kind": "geometry"}),
    )
    .await;
    let equipment = env
        .equipment("Clinica Geometrias", 73, DOSE_CALIBRATOR, &[])
        .await;
    let record = env.at_terminal(&record_args(&equipment, "Geometria Teste", &[]));
    let steps = [
        ("Unit", "\r"),
        ("Reference geometry", "Seringa 5 mL\r"),
        ("Its reading", "100\r"),
        ("Geometry (empty when done)", "Frasco 10 mL\r"),
        ("Its reading", "103\r"),
        ("Geometry (empty when done)", "\r"),
        ("deviationPercent", ""),
        ("Save this test?", "\r"),
    ];
    dialogue("the prompts dialogue", move || {
        converse(record, &steps, "Recorded Geometria Teste")
    })
    .await;
    let due = env.json(&["test", "due", "--equipment", &equipment]).await;
    assert_eq!(due[0]["lastConclusion"], "Satisfatório");
}
