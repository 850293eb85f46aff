//! `facility history`: what each event changed, field by field, in the table; the events as the
//! API gives them in JSON.

use crate::harness::Env;

#[tokio::test(flavor = "multi_thread")]
async fn facility_history_shows_what_each_event_changed() {
    let env = Env::logged_in().await;
    let (_, ana_email) = env.user("Ana Historia", &["Físico"]).await;
    let c = env.facility("Clinica Historia", 311).await;
    env.run(&[
        "facility",
        "edit",
        &c,
        "--city",
        "Olinda",
        "--cnen-registry",
        "CNEN-7",
    ])
    .await
    .expect(0);
    env.run(&[
        "facility",
        "assign",
        &c,
        "--user",
        &ana_email,
        "--role",
        "Responsável Técnico",
    ])
    .await
    .expect(0);

    let table = env.run(&["facility", "history", &c]).await.expect(0).stdout;
    for line in [
        // The creation: what it was given.
        "name: Clinica Historia",
        "radioisotopes: Tc(99m)=1500, I(131)=200.5",
        // The edit: only what changed, before → after.
        "address[0].city: Recife → Olinda",
        "CNENregistry: (none) → CNEN-7",
        // The new link, and the main role's new holder by name.
        "users: (none) → Ana Historia (Responsável Técnico)",
        "Responsável Técnico: (none) → Ana Historia",
    ] {
        assert!(table.contains(line), "{line} missing from:\n{table}");
    }
    assert!(!table.contains("address[0].street"), "{table}");
    assert!(!table.contains("version"), "{table}");

    // JSON: the events as the API gives them, snapshots and all, and nothing added.
    let events = env.json(&["facility", "history", &c]).await;
    let events = events.as_array().unwrap();
    assert_eq!(events.len(), 3, "{events:?}");
    let edit = events.iter().find(|e| e["action"] == "edit").unwrap();
    assert_eq!(edit["before"]["address"][0]["city"], "Recife");
    assert_eq!(edit["after"]["address"][0]["city"], "Olinda");
    assert!(edit.get("changes").is_none(), "{edit}");
}
