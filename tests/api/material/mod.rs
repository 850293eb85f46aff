//! Receipts of radioactive material and weekly usage (in `receipts`), waste in decay storage (in
//! `waste`), notices and the daily digest (in `notices`) (docs/radioactive-material.md); the
//! helpers they share.

mod notices;
mod receipts;
mod waste;

use crate::equipment::id;
use crate::helpers::TestApp;
use serde_json::{Value, json};

/// A facility (Tc(99m) 1500 and I(131) 200.5 mCi a week) with a linked `Cliente`; returns
/// `(facility, linked client's token, unlinked client's token)`.
async fn setup(app: &TestApp, name: &str) -> (String, String, String) {
    let (linked, linked_token) = app.user_with(&["Cliente"], "Cliente Ligado").await;
    let (_, other_token) = app.user_with(&["Cliente"], "Cliente Alheio").await;
    let facility = id(&app.create_facility_of(&linked, name).await);
    (facility, linked_token, other_token)
}

async fn receive(app: &TestApp, facility: &str, body: Value) -> Value {
    app.post_created(
        &format!("/api/facility/{facility}/receipts"),
        &app.admin,
        body,
    )
    .await
}

/// A solid package of 10 kg holding 1 mCi of `radioisotope`, closed on 2026-01-05 and kept at
/// `location`: a `store_waste` body.
fn solid_waste(radioisotope: &str, location: &str) -> Value {
    json!({"form": "Sólido", "contents": [{"radioisotope": radioisotope, "activity": 1}], "mass": 10,
           "closedAt": "2026-01-05", "location": location})
}

async fn store_waste(app: &TestApp, facility: &str, body: Value) -> Value {
    app.post_created(&format!("/api/facility/{facility}/waste"), &app.admin, body)
        .await
}
