//! Equipment types, test types, equipment and QC tests (spec §4.4, §4.6).

use super::http::{Client, FileDownload, ListQuery, Result, id_body};
use registry_core::api::{ListEnvelope, Message};
use registry_core::equipment::{DueTest, Equipment, EquipmentType, QcTest, TestType};
use reqwest::Method;
use serde_json::{Value, json};

impl Client {
    pub async fn equipment_types(&self, query: &ListQuery) -> Result<Vec<EquipmentType>> {
        self.all_pages("/typeOfEquipment", query).await
    }

    pub async fn equipment_type(&self, id: &str) -> Result<EquipmentType> {
        self.fetch(&format!("/typeOfEquipment/{id}")).await
    }

    /// Every test type, or those of one equipment type.
    pub async fn test_types(&self, equipment_type: Option<&str>) -> Result<Vec<TestType>> {
        let query = ListQuery::default().filter_opt("typeOfEquipment", equipment_type);
        self.all_pages("/typeOfTest", &query).await
    }

    pub async fn test_type(&self, id: &str) -> Result<TestType> {
        self.fetch(&format!("/typeOfTest/{id}")).await
    }

    pub async fn equipment(&self, id: &str) -> Result<Equipment> {
        self.fetch(&format!("/equipment/{id}")).await
    }

    /// One page of a facility's equipment; filters `typeOfEquipment`, `active`, `q`.
    pub async fn facility_equipment(
        &self,
        facility_id: &str,
        query: &ListQuery,
    ) -> Result<ListEnvelope<Equipment>> {
        self.get(&format!("/facility/{facility_id}/equipments"), query)
            .await
    }

    /// `POST /equipment/register`: `{facility, typeOfEquipment, manufacturer?, model?,
    /// serialNumber?, patrimonialNumber?, localization?, attributes?}`.
    pub async fn register_equipment(&self, payload: &Value) -> Result<Equipment> {
        self.post("/equipment/register", payload).await
    }

    /// `POST /facility/equipment/edit`: `payload` carries `_id` and the fields to change.
    pub async fn edit_equipment(&self, payload: &Value) -> Result<Equipment> {
        self.post("/facility/equipment/edit", payload).await
    }

    pub async fn archive_equipment(&self, id: &str) -> Result<Message> {
        self.post("/facility/equipment/exclude", &id_body(id)).await
    }

    /// `POST /test/`: `{equipment, typeOfTest, date, conclusion, performedBy?, measurements?,
    /// notes?, document?}`.
    pub async fn record_test(&self, payload: &Value) -> Result<QcTest> {
        self.post("/test/", payload).await
    }

    pub async fn qc_test(&self, id: &str) -> Result<QcTest> {
        self.fetch(&format!("/test/{id}")).await
    }

    /// `GET /test/:id/report`: the test's one-page PDF report.
    pub async fn qc_test_report(&self, id: &str) -> Result<FileDownload> {
        let path = format!("/test/{id}/report");
        let response = self
            .send_raw(self.request(Method::GET, &path), &path)
            .await?;
        Ok(FileDownload {
            url: self.url(&path),
            response,
        })
    }

    /// `PUT /test/:id`: the fields present replace the stored ones.
    pub async fn edit_test(&self, id: &str, payload: &Value) -> Result<QcTest> {
        self.put(&format!("/test/{id}"), payload).await
    }

    /// `POST /test/:id` archives the record (spec §4.6 names the delete so).
    pub async fn delete_test(&self, id: &str) -> Result<Message> {
        self.post(&format!("/test/{id}"), &json!({})).await
    }

    /// Every record of one test type on one equipment, newest first; filters `dateGte`, `dateLt`.
    pub async fn test_history(
        &self,
        equipment_id: &str,
        test_type_id: &str,
        query: &ListQuery,
    ) -> Result<Vec<QcTest>> {
        self.all_pages(&format!("/test/{equipment_id}/{test_type_id}"), query)
            .await
    }

    /// Every test type of the equipment's type with its last date, next due date and state;
    /// filter `state` (comma-separated).
    pub async fn equipment_due(
        &self,
        equipment_id: &str,
        query: &ListQuery,
    ) -> Result<Vec<DueTest>> {
        self.all_pages(&format!("/equipment/{equipment_id}/tests/due"), query)
            .await
    }

    /// What needs attention across the facilities the caller can read; filters `state`,
    /// `facilityId`, `typeOfEquipment`.
    pub async fn tests_due(&self, query: &ListQuery) -> Result<Vec<DueTest>> {
        self.all_pages("/tests/due", query).await
    }
}
