//! The types of `store::audit` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use registry_core::facility::RoleChange;
use serde_json::Value;
pub struct Change<'a> {
    pub entity: &'a str,
    pub entity_id: &'a str,
    pub action: &'a str,
    pub actor: Option<&'a str>,
    pub before: Option<&'a Value>,
    pub after: Option<&'a Value>,
    pub role_changes: &'a [RoleChange],
}
