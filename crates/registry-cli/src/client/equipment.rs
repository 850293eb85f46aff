//! Equipment types, test types, equipment and QC tests (spec §4.4, §4.6).

use super::http::{Client, FileDownload, ListQuery, Result, api_path, id_body};
use registry_core::api::{ListEnvelope, Message};
use registry_core::equipment::{DueTest, Equipment, EquipmentType, QcTest, TestType};
use serde_json::{Value, json};

impl Client {
    endpoints! {
        fn equipment_types(query: &ListQuery) -> Vec<EquipmentType> =
            all_pages("/typeOfEquipment", query);
        fn equipment_type(id: &str) -> EquipmentType = fetch(&api_path(&["typeOfEquipment", id])?);
        fn test_type(id: &str) -> TestType = fetch(&api_path(&["typeOfTest", id])?);
        fn equipment(id: &str) -> Equipment = fetch(&api_path(&["equipment", id])?);
        /// One page of a facility's equipment; filters `typeOfEquipment`, `active`, `q`.
        fn facility_equipment(facility_id: &str, query: &ListQuery) -> ListEnvelope<Equipment> =
            get(&api_path(&["facility", facility_id, "equipments"])?, query);
        /// Every page of a facility's equipment, with the filters of [`Client::facility_equipment`].
        fn all_facility_equipment(facility_id: &str, query: &ListQuery) -> Vec<Equipment> =
            all_pages(&api_path(&["facility", facility_id, "equipments"])?, query);
        /// `POST /equipment/register`: `{facility, typeOfEquipment, manufacturer?, model?,
        /// serialNumber?, patrimonialNumber?, localization?, attributes?}`.
        fn register_equipment(payload: &Value) -> Equipment = post("/equipment/register", payload);
        /// `POST /facility/equipment/edit`: `payload` carries `_id` and the fields to change.
        fn edit_equipment(payload: &Value) -> Equipment =
            post("/facility/equipment/edit", payload);
        fn archive_equipment(id: &str) -> Message =
            post("/facility/equipment/exclude", &id_body(id));
        /// `POST /test/`: `{equipment, typeOfTest, date, conclusion, performedBy?, measurements?,
        /// notes?, document?}`.
        fn record_test(payload: &Value) -> QcTest = post("/test/", payload);
        fn qc_test(id: &str) -> QcTest = fetch(&api_path(&["test", id])?);
        /// `GET /test/:id/report`: the test's one-page PDF report.
        fn qc_test_report(id: &str) -> FileDownload =
            download(&api_path(&["test", id, "report"])?, &ListQuery::default());
        /// `PUT /test/:id`: the fields present replace the stored ones.
        fn edit_test(id: &str, payload: &Value) -> QcTest = put(&api_path(&["test", id])?, payload);
        /// `POST /test/:id` archives the record (spec §4.6 names the delete so).
        fn delete_test(id: &str) -> Message = post(&api_path(&["test", id])?, &json!({}));
        /// Every record of one test type on one equipment, newest first; filters `dateGte`,
        /// `dateLt`.
        fn test_history(equipment_id: &str, test_type_id: &str, query: &ListQuery) -> Vec<QcTest> =
            all_pages(&api_path(&["test", equipment_id, test_type_id])?, query);
        /// Every test type of the equipment's type with its last date, next due date and state;
        /// filter `state` (comma-separated).
        fn equipment_due(equipment_id: &str, query: &ListQuery) -> Vec<DueTest> =
            all_pages(&api_path(&["equipment", equipment_id, "tests", "due"])?, query);
        /// What needs attention across the facilities the caller can read; filters `state`,
        /// `facilityId`, `typeOfEquipment`.
        fn tests_due(query: &ListQuery) -> Vec<DueTest> = all_pages("/tests/due", query);
    }

    /// Every test type, or those of one equipment type.
    pub async fn test_types(&self, equipment_type: Option<&str>) -> Result<Vec<TestType>> {
        let query = ListQuery::default().filter_opt("typeOfEquipment", equipment_type);
        self.all_pages("/typeOfTest", &query).await
    }
}
