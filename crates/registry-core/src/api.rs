//! Request and response types of the REST API, shared by the server and the CLI's client.
//! Field names are the wire names of the spec and product.md (camelCase, `_id`, `CNENregistry`).

use crate::facility::Address;
use crate::values::{Department, Practice, Radioisotope, Role};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The envelope of every list: `{"list": [...], "paging": {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ListEnvelope<T> {
    pub list: Vec<T>,
    pub paging: Paging,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Paging {
    pub total: i64,
    pub page_num: i64,
    pub page_size: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RadioisotopeView {
    pub name: Radioisotope,
    /// Authorised weekly activity in mCi.
    pub quantity: f64,
}

/// A user linked to a facility, enriched with their name, e-mail and licence data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FacilityUserView {
    #[serde(rename = "_id")]
    pub id: String,
    pub responsabilities: Vec<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub email: String,
    #[serde(flatten)]
    pub licences: Licences,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Licences {
    #[serde(
        rename = "ANLicenseNumber",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub an_number: Option<String>,
    #[serde(
        rename = "ANLicenseValidity",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub an_validity: Option<String>,
    #[serde(
        rename = "FMLicenseNumber",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub fm_number: Option<String>,
    #[serde(
        rename = "FMLicenseValidity",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub fm_validity: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GroupRef {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Facility {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub company_name: String,
    pub cnpj: String,
    pub telephone: String,
    pub department: Department,
    pub group: Option<GroupRef>,
    pub address: Vec<Address>,
    #[serde(rename = "CNENregistry")]
    pub cnen_registry: Option<String>,
    pub practices: Vec<Practice>,
    pub radioisotopes: Vec<RadioisotopeView>,
    pub users: Vec<FacilityUserView>,
    /// Path of the logo image, when one is set.
    pub logo: Option<String>,
    /// Path of the background image, when one is set.
    pub background_image: Option<String>,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub email: String,
    pub telephone: Option<String>,
    pub cpf: Option<String>,
    pub roles: Vec<Role>,
    pub active: bool,
    #[serde(flatten)]
    pub licences: Licences,
    #[serde(rename = "createdAt")]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FacilitySummary {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub cnpj: String,
    pub department: Department,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Group {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// The group's live facilities (on `GET /group/:id` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facilities: Option<Vec<FacilitySummary>>,
    #[serde(rename = "createdAt")]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LoginResponse {
    pub token: String,
    pub user: User,
}

/// A short confirmation, e.g. after an archive or a password change.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Message {
    pub message: String,
    #[serde(rename = "_id", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A fresh token, after the caller changed their own password (older tokens stop working).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Actor {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
}

/// One change in the audit log: who, when, what, with the record before and after.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AuditEvent {
    #[serde(rename = "_id")]
    pub id: String,
    pub entity: String,
    #[serde(rename = "entityId")]
    pub entity_id: String,
    pub action: String,
    pub actor: Option<Actor>,
    pub at: String,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
    /// Main-role holder changes (to be notified to the regulator within 30 days).
    #[serde(rename = "roleChanges", default, skip_serializing_if = "Vec::is_empty")]
    pub role_changes: Vec<crate::facility::RoleChange>,
}
