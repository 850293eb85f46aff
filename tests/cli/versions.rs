//! Edits made from a copy read earlier: `facility edit --from-file` of a `show -o json` saved
//! before someone else's change is refused (exit 5) instead of undoing that change.

use crate::harness::Env;

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_from_a_stale_file_does_not_undo_a_change_made_since() {
    let env = Env::logged_in().await;
    let c = env.facility("Clinica Versao", 320).await;
    let saved = env.json(&["facility", "show", &c]).await;
    env.run(&["facility", "edit", &c, "--name", "Renomeada por Colega"])
        .await
        .expect(0);
    let mut edited = saved.clone();
    edited["telephone"] = "(81) 3222-1111".into();
    let stale = env.write("stale.json", &edited.to_string());
    env.run(&["facility", "edit", &c, "--from-file", &stale])
        .await
        .expect(5)
        .says("changed by someone else");
    let shown = env.json(&["facility", "show", &c]).await;
    assert_eq!(shown["name"], "Renomeada por Colega");
    // Read again, the same change goes through.
    let mut fresh = shown.clone();
    fresh["telephone"] = "(81) 3222-1111".into();
    let fresh = env.write("fresh.json", &fresh.to_string());
    let saved = env
        .json(&["facility", "edit", &c, "--from-file", &fresh])
        .await;
    assert_eq!(
        (saved["name"].as_str(), saved["telephone"].as_str()),
        (Some("Renomeada por Colega"), Some("(81) 3222-1111"))
    );
}
