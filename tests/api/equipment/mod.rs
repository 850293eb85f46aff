//! Equipment types and test types (in `types`), equipment records (in `records`), QC test records
//! (in `qc_tests`) and the due lists (in `due`); the helpers they and other test modules share.

mod due;
mod qc_tests;
mod records;
mod types;

use crate::helpers::TestApp;
use chrono::{Days, NaiveDate};
use serde_json::{Value, json};

pub(crate) const DOSE_CALIBRATOR: &str = "00000000-0000-7000-8000-000000000001";
const GAMMA_CAMERA: &str = "00000000-0000-7000-8000-000000000002";

/// Today as the server sees it (Brasília), and a day `n` days before it.
pub(crate) fn today() -> NaiveDate {
    registry_core::equipment::local_date(chrono::Utc::now())
}

pub(crate) fn days_ago(n: u64) -> String {
    (today() - Days::new(n)).to_string()
}

pub(crate) fn id(v: &Value) -> String {
    v["_id"].as_str().expect("an _id").to_owned()
}

pub(crate) async fn test_type(
    app: &TestApp,
    equipment_type: &str,
    name: &str,
    days: i64,
) -> String {
    id(&app
        .post_created(
            "/api/typeOfTest/register",
            &app.admin,
            json!({"name": name, "typeOfEquipment": equipment_type, "expirationInDays": days}),
        )
        .await)
}

pub(crate) async fn equipment(app: &TestApp, facility: &str, equipment_type: &str) -> String {
    id(&app
        .post_created(
            "/api/equipment/register",
            &app.admin,
            json!({"facility": facility, "typeOfEquipment": equipment_type, "serialNumber": "SN-1"}),
        )
        .await)
}

pub(crate) async fn record(app: &TestApp, equipment: &str, test_type: &str, date: &str) -> Value {
    app.post_created(
        "/api/test/",
        &app.admin,
        json!({"equipment": equipment, "typeOfTest": test_type, "date": date, "conclusion": "Satisfatório"}),
    )
    .await
}
