//! Radioactive material, waste and notices (docs/radioactive-material.md).

use super::http::{Client, ListQuery, Result, api_path};
use registry_core::material::{Receipt, WeeklyUsage};
use registry_core::notice::Notice;
use registry_core::waste::WastePackage;
use serde_json::Value;

impl Client {
    endpoints! {
        /// `POST /facility/:id/receipts`: `{radioisotope, activity, activityReferenceTime?,
        /// supplier, lot?, receivedBy?, receivedAt?, notes?}`.
        fn receive_material(facility_id: &str, payload: &Value) -> Receipt =
            post(&api_path(&["facility", facility_id, "receipts"])?, payload);
        /// Receipts of every facility the caller can read (filters `facilityId`, `week`,
        /// `radioisotope`, `overQuantity`), latest received first.
        fn receipts(query: &ListQuery) -> Vec<Receipt> = all_pages("/receipts", query);
        /// `GET /facility/:id/radioisotopes/usage?week=YYYY-Www` (the current week without one).
        fn weekly_usage(facility_id: &str, week: Option<&str>) -> WeeklyUsage = get(
            &api_path(&["facility", facility_id, "radioisotopes", "usage"])?,
            &ListQuery::default().filter_opt("week", week),
        );
        /// `POST /facility/:id/waste`: `{form, contents: [{radioisotope, activity}], mass,
        /// closedAt?, location, description?}`.
        fn store_waste(facility_id: &str, payload: &Value) -> WastePackage =
            post(&api_path(&["facility", facility_id, "waste"])?, payload);
        /// Waste packages (filters `facilityId`, `releasable`, `released`, `radioisotope`).
        fn waste(query: &ListQuery) -> Vec<WastePackage> = all_pages("/waste", query);
        /// `POST /waste/:id/release`: `{doseRate, releasedAt?, notes?}`.
        fn release_waste(id: &str, payload: &Value) -> WastePackage =
            post(&api_path(&["waste", id, "release"])?, payload);
        /// What needs the responsible people today (filters `facilityId`, `kind`).
        fn notices(query: &ListQuery) -> Vec<Notice> = all_pages("/notices", query);
    }
}
