//! Radioactive material, waste and notices (docs/radioactive-material.md).

use super::http::{Client, ListQuery, Result};
use registry_core::material::{Receipt, WeeklyUsage};
use registry_core::notice::Notice;
use registry_core::waste::WastePackage;
use serde_json::Value;

impl Client {
    /// `POST /facility/:id/receipts`: `{radioisotope, activity, activityReferenceTime?, supplier,
    /// lot?, receivedBy?, receivedAt?, notes?}`.
    pub async fn receive_material(&self, facility_id: &str, payload: &Value) -> Result<Receipt> {
        self.post(&format!("/facility/{facility_id}/receipts"), payload)
            .await
    }

    /// Receipts of every facility the caller can read (filters `facilityId`, `week`,
    /// `radioisotope`, `overQuantity`), latest received first.
    pub async fn receipts(&self, query: &ListQuery) -> Result<Vec<Receipt>> {
        self.all_pages("/receipts", query).await
    }

    /// `GET /facility/:id/radioisotopes/usage?week=YYYY-Www` (the current week without one).
    pub async fn weekly_usage(&self, facility_id: &str, week: Option<&str>) -> Result<WeeklyUsage> {
        let mut query = ListQuery::default();
        if let Some(w) = week {
            query = query.filter("week", w);
        }
        self.get(
            &format!("/facility/{facility_id}/radioisotopes/usage"),
            &query,
        )
        .await
    }

    /// `POST /facility/:id/waste`: `{form, contents: [{radioisotope, activity}], mass, closedAt?,
    /// location, description?}`.
    pub async fn store_waste(&self, facility_id: &str, payload: &Value) -> Result<WastePackage> {
        self.post(&format!("/facility/{facility_id}/waste"), payload)
            .await
    }

    /// Waste packages (filters `facilityId`, `releasable`, `released`, `radioisotope`).
    pub async fn waste(&self, query: &ListQuery) -> Result<Vec<WastePackage>> {
        self.all_pages("/waste", query).await
    }

    /// `POST /waste/:id/release`: `{doseRate, releasedAt?, notes?}`.
    pub async fn release_waste(&self, id: &str, payload: &Value) -> Result<WastePackage> {
        self.post(&format!("/waste/{id}/release"), payload).await
    }

    /// What needs the responsible people today (filters `facilityId`, `kind`).
    pub async fn notices(&self, query: &ListQuery) -> Result<Vec<Notice>> {
        self.all_pages("/notices", query).await
    }
}
