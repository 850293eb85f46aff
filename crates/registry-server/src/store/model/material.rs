//! The types of `store::material` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use registry_core::Radioisotope;
use registry_core::equipment::Reference;
/// Which records a list shows: one facility's, or every facility's a caller may read.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub facility_id: Option<String>,
    /// Only facilities this user is linked to (a `Cliente`).
    pub member: Option<String>,
}

/// Filters of the waste lists.
#[derive(Debug, Clone, Default)]
pub struct WasteQuery {
    /// Only packages that may be released today (`true`), or that may not (`false`).
    pub releasable: Option<bool>,
    /// Only released (`true`) or stored (`false`) packages.
    pub released: Option<bool>,
    pub radioisotope: Option<Radioisotope>,
}

/// An AN or FM licence of an active user linked to a live facility, ending on or before `limit`.
pub struct LicenceEnd {
    pub facility: Reference,
    pub user: Reference,
    pub kind: &'static str,
    pub number: Option<String>,
    pub validity: String,
}

/// A digest to send.
pub struct Digest {
    pub id: String,
    pub day: String,
    pub facility_id: String,
    pub recipients: Vec<String>,
    pub subject: String,
    pub body: String,
    pub item_count: i64,
    pub attempts: i64,
}
