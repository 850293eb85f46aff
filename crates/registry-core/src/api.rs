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
    /// Authorised weekly activity in mCi, from 0.001 to 1,000,000.
    #[schema(minimum = 0.001, maximum = 1000000)]
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
    /// Whether the user's account is active: a deactivated user stays linked, but no change of
    /// the facility's links is accepted while they are (`user_inactive`).
    #[serde(default = "linked_user_active")]
    #[schema(required = true)]
    pub active: bool,
    #[serde(flatten)]
    pub licences: Licences,
}

/// A link read from a server that does not say (before `active` was shown) is taken as active.
fn linked_user_active() -> bool {
    true
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Licences {
    #[serde(rename = "ANLicenseNumber")]
    pub an_number: Option<String>,
    #[serde(rename = "ANLicenseValidity")]
    #[schema(format = Date)]
    pub an_validity: Option<String>,
    #[serde(rename = "FMLicenseNumber")]
    pub fm_number: Option<String>,
    #[serde(rename = "FMLicenseValidity")]
    #[schema(format = Date)]
    pub fm_validity: Option<String>,
}

impl Licences {
    /// The four keys, `null` when unset (a payload or a facility's user entry leaves them out).
    fn serialize_all<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("ANLicenseNumber", &self.an_number)?;
        map.serialize_entry("ANLicenseValidity", &self.an_validity)?;
        map.serialize_entry("FMLicenseNumber", &self.fm_number)?;
        map.serialize_entry("FMLicenseValidity", &self.fm_validity)?;
        map.end()
    }
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
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
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
    // All four licence keys, null when unset, as telephone and cpf (product.md §3).
    #[serde(flatten, serialize_with = "Licences::serialize_all")]
    pub licences: Licences,
    #[serde(rename = "createdAt")]
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    #[schema(format = DateTime)]
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
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    #[schema(format = DateTime)]
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
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Message {
    pub message: String,
    #[serde(rename = "_id")]
    pub id: Option<String>,
    /// A fresh token, after the caller changed their own password (older tokens stop working).
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
    /// When the change was made.
    #[schema(format = DateTime)]
    pub at: String,
    /// The same instant as `at`: every record carries `createdAt` and `updatedAt` (product.md
    /// §1), and an audit event never changes after it is written.
    #[serde(rename = "createdAt")]
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
    /// Main-role holder changes (to be notified to the regulator within 30 days).
    #[serde(rename = "roleChanges", default, skip_serializing_if = "Vec::is_empty")]
    pub role_changes: Vec<crate::facility::RoleChange>,
}

/// The facility create and edit payload (spec §2.1). On create, name, companyName, cnpj, telephone,
/// department and address are required; on edit, absent keys leave the stored values unchanged.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FacilityInput {
    /// The facility being edited (edit only).
    #[serde(rename = "_id")]
    pub id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 200)]
    pub company_name: Option<String>,
    /// 14 characters, no punctuation: numeric or the 2026 alphanumeric form.
    #[schema(min_length = 14, max_length = 14, pattern = "^[0-9A-Z]{12}[0-9]{2}$")]
    pub cnpj: Option<String>,
    /// With the area code, e.g. `(11) 3456-7890`.
    #[schema(max_length = 200)]
    pub telephone: Option<String>,
    pub department: Option<Department>,
    /// A group `_id` (or `{"_id": ...}`); null clears it.
    pub group: Option<String>,
    /// At least one address, at most 20 (a single object is accepted too).
    #[schema(min_items = 1, max_items = 20)]
    pub address: Option<Vec<Address>>,
    #[serde(rename = "CNENregistry")]
    #[schema(max_length = 200)]
    pub cnen_registry: Option<String>,
    #[schema(max_items = 100)]
    pub users: Option<Vec<FacilityUserInput>>,
    pub radioisotopes: Option<Vec<RadioisotopeView>>,
    pub practices: Option<Vec<Practice>>,
}

/// A user link in a facility payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FacilityUserInput {
    #[serde(rename = "_id")]
    pub id: String,
    /// `Titular`, `Responsável Técnico`, `Substituto`, `Supervisor` or a configured custom value.
    pub responsabilities: Vec<String>,
}

/// `POST /facility/users/edit`: the full list of user links of a facility.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FacilityUsersInput {
    #[serde(rename = "_id")]
    pub id: String,
    pub users: Vec<FacilityUserInput>,
}

/// A body that only names a record.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct IdInput {
    #[serde(rename = "_id")]
    pub id: String,
}

/// The user register and edit payload. On register, name, email and password are required.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct UserInput {
    /// The user being edited (edit only; defaults to the caller).
    #[serde(rename = "_id")]
    pub id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 200)]
    pub email: Option<String>,
    /// At least 8 characters (register only).
    #[schema(min_length = 8, max_length = 256)]
    pub password: Option<String>,
    #[schema(max_length = 200)]
    pub telephone: Option<String>,
    #[schema(max_length = 200)]
    pub cpf: Option<String>,
    pub roles: Option<Vec<Role>>,
    pub active: Option<bool>,
    #[serde(flatten)]
    pub licences: Licences,
}

/// `POST /changePassword/`: your own password with `currentPassword`, or (Administrator) another user's with `_id`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangePasswordInput {
    #[serde(rename = "_id")]
    pub id: Option<String>,
    pub current_password: Option<String>,
    #[schema(min_length = 8, max_length = 256)]
    pub new_password: String,
}

/// `POST /password_recover/`: `{email}` asks for a code by e-mail; `{token, newPassword}` uses it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasswordRecoverInput {
    pub email: Option<String>,
    pub token: Option<String>,
    pub new_password: Option<String>,
}

/// Group register and edit payload.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct GroupInput {
    #[serde(rename = "_id")]
    pub id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 10000)]
    pub description: Option<String>,
}
