//! Groups of facilities.
//!
//! The storage interface of this resource; the queries are in `sql/groups.rs`.

use crate::extract::ListParams;
use registry_core::api::{FacilitySummary, Group};

backend_fns! { groups;
    pub async fn get(id: &str) -> Result<Option<Group>, sqlx::Error>;

    /// Groups by name.
    pub async fn list(params: &ListParams) -> Result<(Vec<Group>, i64), sqlx::Error>;

    /// Whether another group already has this name (case- and accent-insensitive).
    pub async fn name_taken(name: &str, except_id: &str) -> Result<bool, sqlx::Error>;

    pub async fn save(g: &Group, insert: bool) -> Result<(), sqlx::Error>;

    /// Live facilities of the group (only those `member` is linked to, for a `Cliente`).
    pub async fn facilities(id: &str, member: Option<&str>) -> Result<Vec<FacilitySummary>, sqlx::Error>;

    /// Deletes the group; archived facilities that still name it are detached.
    pub async fn delete(id: &str) -> Result<(), sqlx::Error>;
}
