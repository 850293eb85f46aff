//! Groups of facilities.
//!
//! The storage interface of this resource; the queries are in `sql/groups.rs`, and those groups
//! share with the other plain named catalogues in `sql/catalogue.rs`.

use crate::db::Conn;
use crate::store::catalogue::{self, Stored};
use registry_core::api::{FacilitySummary, Group};

// Groups are a plain named catalogue; a stored group lists no facilities.
catalogue::named_record!(Group, "facility_groups", facilities: None);

pub async fn get(conn: &mut Conn, id: &str) -> Result<Option<Group>, sqlx::Error> {
    Group::get(conn, id).await
}

backend_fns! { groups;
    /// Live facilities of the group (only those `member` is linked to, for a `Cliente`).
    pub async fn facilities(id: &str, member: Option<&str>) -> Result<Vec<FacilitySummary>, sqlx::Error>;

    /// Unsets the group of the archived facilities that still name it, before it is deleted:
    /// their ids.
    pub async fn detach_archived_facilities(id: &str) -> Result<Vec<String>, sqlx::Error>;
}
