//! Receipts of radioactive material and weekly usage (in `receipts`), waste in decay storage (in
//! `waste`), notices and the daily digest (in `notices`) (docs/radioactive-material.md); the
//! helpers they share.

mod notices;
mod receipts;
mod waste;

use crate::equipment::id;
use crate::helpers::TestApp;
use serde_json::Value;

/// A facility (Tc(99m) 1500 and I(131) 200.5 mCi a week) with a linked `Cliente`; returns
/// `(facility, linked client's token, unlinked client's token)`.
async fn setup(app: &TestApp, name: &str) -> (String, String, String) {
    let (linked, linked_token) = app.user_with(&["Cliente"], "Cliente Ligado").await;
    let (_, other_token) = app.user_with(&["Cliente"], "Cliente Alheio").await;
    let facility = id(&app.create_facility_of(&linked, name).await);
    (facility, linked_token, other_token)
}

async fn receive(app: &TestApp, facility: &str, body: Value) -> Value {
    app.post(
        &format!("/api/facility/{facility}/receipts"),
        &app.admin,
        body,
    )
    .await
    .expect(201)
}

async fn store_waste(app: &TestApp, facility: &str, body: Value) -> Value {
    app.post(&format!("/api/facility/{facility}/waste"), &app.admin, body)
        .await
        .expect(201)
}
