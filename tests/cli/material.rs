//! Radioactive material, waste and notices through the CLI: receive (refused when not
//! authorised, flagged over the quantity), list, usage, store and release waste, notices.

use crate::harness::{Env, answer, dialogue, ends_saying, reply, spawn};
use registry_core::equipment::local_date;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn material_waste_and_notices() {
    let env = Env::logged_in().await;
    let facility = env.facility("Clinica Material", 71).await;

    // Not authorised: refused before sending, field by field, exit 4.
    env.run(&receive_args(
        &facility,
        "F(18)",
        &["--activity", "10", "--supplier", "IPEN"],
    ))
    .await
    .expect(4)
    .says("radioisotope");
    // Missing input without a terminal: a usage error naming the flag.
    env.run(&receive_args(&facility, "I(131)", &["--activity", "10"]))
        .await
        .expect(2)
        .says("--supplier");

    let first = env
        .json(&receive_args(
            &facility,
            "I-131",
            &[
                "--activity",
                "150",
                "--supplier",
                "IPEN",
                "--lot",
                "L-1",
                "--received-at",
                "2026-03-02T10:00:00-03:00",
            ],
        ))
        .await;
    assert_eq!(first["radioisotope"], "I(131)");
    assert_eq!(first["overQuantity"], false);
    // 2220 MBq = 60 mCi: the week goes over 200.5 mCi; stored, flagged, and said.
    let over = env
        .run(&receive_args(
            &facility,
            "I(131)",
            &[
                "--activity-mbq",
                "2220",
                "--supplier",
                "IPEN",
                "--received-at",
                "2026-03-04",
                "-o",
                "json",
            ],
        ))
        .await
        .expect(0);
    assert!(over.stderr.contains("WARNING"), "{}", over.stderr);
    assert_eq!(over.json()["overQuantity"], true);
    assert_eq!(over.json()["activity"], 60.0);

    let table = env
        .run(&["material", "list", "--facility", &facility])
        .await
        .expect(0);
    assert!(table.stdout.contains("OVER"), "{}", table.stdout);
    let flagged = env.json(&["material", "list", "--over-quantity"]).await;
    assert_eq!(flagged.as_array().unwrap().len(), 1);
    let usage = env.json(&usage_args(&facility, "2026-W10")).await;
    assert_eq!(usage["radioisotopes"][1]["radioisotope"], "I(131)");
    assert_eq!(usage["radioisotopes"][1]["received"], 210.0);
    assert_eq!(usage["radioisotopes"][1]["exceeded"], true);
    let usage_table = env.run(&usage_args(&facility, "2026-W10")).await.expect(0);
    assert!(
        usage_table.stdout.contains("EXCEEDED"),
        "{}",
        usage_table.stdout
    );
    env.run(&usage_args(&facility, "2026-10")).await.expect(2);

    // Waste: one ready, one not.
    let ready = env
        .json(&store_args(
            &facility,
            "solid",
            &[
                "--content",
                "I(131)=1",
                "--mass",
                "10",
                "--closed-at",
                "2026-01-05",
                "--location",
                "Abrigo A",
            ],
        ))
        .await;
    assert_eq!(ready["releaseDate"], "2026-02-21");
    assert_eq!(ready["releasable"], true);
    let waiting = env
        .json(&store_args(
            &facility,
            "Líquido",
            &[
                "--content",
                "I(131)=500",
                "--content",
                "Tc(99m)=20",
                "--mass",
                "2",
                "--location",
                "Tanque 1",
            ],
        ))
        .await;
    assert_eq!(waiting["contents"].as_array().unwrap().len(), 2);
    let releasable = env.json(&["waste", "list", "--releasable"]).await;
    assert_eq!(releasable.as_array().unwrap().len(), 1);
    assert_eq!(releasable[0]["_id"], ready["_id"]);
    env.run(&release_args(&waiting, "0.1"))
        .await
        .expect(5)
        .says("clearance");
    let released = env.json(&release_args(&ready, "0.12")).await;
    assert_eq!(released["release"]["doseRate"], 0.12);
    env.run(&release_args(&ready, "0.1")).await.expect(5);
    let list = env.run(&["waste", "list", "--released"]).await.expect(0);
    assert!(list.stdout.contains("released"), "{}", list.stdout);

    // Notices: the week over its quantity is older than last week, so nothing but what is
    // stored now — the package still waiting is not due; a receipt this week over the quantity is.
    // Nothing: the header, and the note every empty list gives (docs/cli.md).
    let quiet = env
        .run(&["notices"])
        .await
        .expect(0)
        .says("note: no records");
    assert!(
        quiet.stdout.contains("facility") && quiet.stdout.contains("subject"),
        "{}",
        quiet.stdout
    );
    env.run(&receive_args(
        &facility,
        "I(131)",
        &["--activity", "300", "--supplier", "IPEN"],
    ))
    .await
    .expect(0);
    let notices = env
        .json(&[
            "notices",
            "--facility",
            &facility,
            "--kind",
            "quantity_exceeded",
        ])
        .await;
    assert_eq!(notices.as_array().unwrap().len(), 1, "{notices}");
    assert_eq!(notices[0]["facility"]["name"], "Clinica Material");
    let monday = registry_core::material::IsoWeek::of_day(local_date(chrono::Utc::now())).monday();
    assert_eq!(notices[0]["date"], monday.to_string());
    // A value outside the flag's set is a validation error (docs/cli.md, exit codes).
    env.run(&["notices", "--kind", "everything"])
        .await
        .expect(4)
        .says("--kind `everything`");
}

/// At a terminal the receipt is asked for: the isotope picked among the facility's authorised
/// ones, then the activity and the supplier.
#[tokio::test(flavor = "multi_thread")]
async fn receive_asks_for_what_the_flags_did_not_give() {
    let env = Env::logged_in().await;
    let facility = env.facility("Clinica Pergunta", 72).await;
    let cmd = env.at_terminal(&["material", "receive", "--facility", &facility]);
    dialogue("the receipt dialogue", move || {
        let mut p = spawn(cmd)?;
        p.exp_string("Radioisotope")?;
        answer(&mut p, "up to 200.5 mCi a week", "\r")?;
        reply(&mut p, "Activity (mCi)", "abc")?;
        reply(&mut p, "must be a positive number of mCi", "100")?;
        reply(&mut p, "Supplier", "IPEN")?;
        ends_saying(&mut p, "Received 100 mCi of Tc(99m) at Clinica Pergunta")
    })
    .await;
    let receipts = env.json(&["material", "list"]).await;
    assert_eq!(receipts[0]["supplier"], "IPEN");
    assert_eq!(receipts[0]["receivedBy"], "Administrator");
}

/// `registry material receive` of `isotope` at `facility`, then `rest`.
fn receive_args<'a>(facility: &'a str, isotope: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "material",
        "receive",
        "--facility",
        facility,
        "--radioisotope",
        isotope,
    ];
    args.extend_from_slice(rest);
    args
}

/// `registry material usage` of `facility` in `week`.
fn usage_args<'a>(facility: &'a str, week: &'a str) -> [&'a str; 6] {
    ["material", "usage", "--facility", facility, "--week", week]
}

/// `registry waste store` of waste in `form` at `facility`, then `rest`.
fn store_args<'a>(facility: &'a str, form: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["waste", "store", "--facility", facility, "--form", form];
    args.extend_from_slice(rest);
    args
}

/// `registry waste release` of the stored `waste` (its JSON) measured at `dose_rate`.
fn release_args<'a>(waste: &'a Value, dose_rate: &'a str) -> [&'a str; 5] {
    [
        "waste",
        "release",
        waste["_id"].as_str().unwrap(),
        "--dose-rate",
        dose_rate,
    ]
}
