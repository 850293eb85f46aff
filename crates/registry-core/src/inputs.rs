//! The request bodies of equipment, catalogues, QC tests and radioactive material, as the OpenAPI
//! document describes them. The server never deserialises into these: each body is read field
//! by field by its module's reader (`equipment::read`, `material`, `waste`), which reports every
//! failing field at once; these types give clients the fields' names and types. On an edit every
//! field is optional and an absent one is left unchanged.

use crate::qc::{Conclusion, TestKind, Tolerances};
use crate::values::Radioisotope;
use crate::waste::WasteForm;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// `POST /equipment/register` (`facility` and `typeOfEquipment` required) and
/// `POST /facility/equipment/edit` (`_id` required; the facility cannot change, nor the type once QC tests
/// were recorded). Text fields: `""` or `null` clears them on edit.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipmentInput {
    #[serde(rename = "_id")]
    pub id: Option<String>,
    /// The facility's `_id` (or `{"_id": ...}`).
    pub facility: Option<String>,
    /// The equipment type's `_id` (or `{"_id": ...}`).
    pub type_of_equipment: Option<String>,
    #[schema(max_length = 200)]
    pub manufacturer: Option<String>,
    #[schema(max_length = 200)]
    pub model: Option<String>,
    #[schema(max_length = 200)]
    pub serial_number: Option<String>,
    #[schema(max_length = 200)]
    pub patrimonial_number: Option<String>,
    #[schema(max_length = 200)]
    pub localization: Option<String>,
    /// Free JSON; replaces the whole stored object.
    pub attributes: Option<Map<String, Value>>,
    pub active: Option<bool>,
}

/// `POST /typeOfEquipment/register` (`name` required) and `/typeOfEquipment/edit` (`_id`).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct CatalogueInput {
    #[serde(rename = "_id")]
    pub id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 10000)]
    pub description: Option<String>,
}

/// `POST /typeOfTest/register` (`name`, `typeOfEquipment`, `expirationInDays` required) and
/// `/typeOfTest/edit` (`_id`). `kind` makes the registry compute the records' verdict;
/// `tolerances` default to the kind's (docs/qc.md).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestTypeInput {
    #[serde(rename = "_id")]
    pub id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    /// The equipment type's `_id` (or `{"_id": ...}`).
    pub type_of_equipment: Option<String>,
    /// How often the test falls due, in days.
    #[schema(minimum = 1, maximum = 3650)]
    pub expiration_in_days: Option<i64>,
    #[schema(max_length = 10000)]
    pub description: Option<String>,
    pub kind: Option<TestKind>,
    pub tolerances: Option<Tolerances>,
}

/// `POST /test` (`equipment`, `typeOfTest`, `date` required; `conclusion` too unless the type has
/// a `kind`) and `PUT /test/{id}`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QcTestInput {
    /// The equipment's `_id` (or `{"_id": ...}`).
    pub equipment: Option<String>,
    /// The test type's `_id` (or `{"_id": ...}`).
    pub type_of_test: Option<String>,
    /// `YYYY-MM-DD`, not after today (Brasília).
    #[schema(format = Date)]
    pub date: Option<String>,
    /// Refused for a test type with a `kind`: the registry sets it from the readings.
    pub conclusion: Option<Conclusion>,
    /// A user's `_id`; default the caller.
    pub performed_by: Option<String>,
    /// The readings of a computed kind (docs/qc.md), else any JSON.
    pub measurements: Option<Value>,
    #[schema(max_length = 10000)]
    pub notes: Option<String>,
    /// A live document of the equipment's facility (the report).
    pub document: Option<String>,
}

/// `POST /facility/{id}/receipts`: a delivery of radioactive material.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptInput {
    /// One the facility is authorised for; the nuclide spelling (`Tc-99m`) is accepted.
    pub radioisotope: Radioisotope,
    /// mCi at `activityReferenceTime` (default: at receipt).
    pub activity: f64,
    /// RFC 3339.
    pub activity_reference_time: Option<String>,
    #[schema(max_length = 200)]
    pub supplier: String,
    #[schema(max_length = 200)]
    pub lot: Option<String>,
    /// The name of who received it (not a user reference: the person at the door may have no
    /// account); default the caller's name.
    #[schema(max_length = 200)]
    pub received_by: Option<String>,
    /// RFC 3339 or `YYYY-MM-DD`, not in the future; default now.
    pub received_at: Option<String>,
    #[schema(max_length = 10000)]
    pub notes: Option<String>,
}

/// One isotope of a waste package: its activity (mCi) when the package was closed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WasteContentInput {
    pub radioisotope: Radioisotope,
    pub activity: f64,
}

/// `POST /facility/{id}/waste` (`form`, `contents`, `mass`, `location` required) and
/// `PUT /waste/{id}`; the release date is computed from the half-lives and clearance levels.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WasteInput {
    pub form: Option<WasteForm>,
    pub contents: Option<Vec<WasteContentInput>>,
    /// kg.
    pub mass: Option<f64>,
    /// RFC 3339 or `YYYY-MM-DD`, not in the future; default now.
    pub closed_at: Option<String>,
    #[schema(max_length = 200)]
    pub location: Option<String>,
    #[schema(max_length = 10000)]
    pub description: Option<String>,
}

/// `POST /waste/{id}/release`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WasteReleaseInput {
    /// µSv/h at the package's surface, zero or more.
    pub dose_rate: f64,
    /// RFC 3339 or `YYYY-MM-DD`, not in the future; default now.
    pub released_at: Option<String>,
    #[schema(max_length = 10000)]
    pub notes: Option<String>,
}
