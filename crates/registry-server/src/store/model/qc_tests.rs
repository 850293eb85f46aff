//! The types of `store::qc_tests` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use chrono::NaiveDate;
use registry_core::equipment::DueState;
/// Which (equipment, test type) pairs to judge, and on which day.
#[derive(Debug, Clone, Default)]
pub struct DueQuery {
    /// One equipment (active or not); otherwise every live, active equipment.
    pub equipment_id: Option<String>,
    /// Only facilities this user is linked to (a `Cliente`).
    pub member: Option<String>,
    pub facility_id: Option<String>,
    pub equipment_type_id: Option<String>,
    /// Only these states; empty means all.
    pub states: Vec<DueState>,
    /// Only pairs whose latest test is `Insatisfatório`.
    pub failing: bool,
    pub today: NaiveDate,
    pub limit: i64,
    pub offset: i64,
}
