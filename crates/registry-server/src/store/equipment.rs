//! Equipment of the facilities. Archived equipment stays in the database with its QC tests.
//!
//! The storage interface of this resource; the queries are in `sql/equipment.rs`.

use registry_core::equipment::Equipment;

pub use super::model::equipment::*;

super::model::saved_by!(Equipment, save);

backend_fns! { equipment;
    /// Live equipment, or `None`.
    pub async fn get(id: &str) -> Result<Option<Equipment>, sqlx::Error>;

    /// A page of a facility's live equipment, newest first, filtered by `typeOfEquipment`, `active`
    /// (`true`/`false`) and `q` (manufacturer, model, serial or patrimonial number, localization).
    pub async fn list_for_facility(facility_id: &str, filter: &EquipmentFilter, limit: i64, offset: i64) -> Result<(Vec<Equipment>, i64), sqlx::Error>;

    pub async fn save(e: &Equipment, insert: bool) -> Result<(), sqlx::Error>;

    pub async fn archive(id: &str, at: &str) -> Result<(), sqlx::Error>;

    /// Whether QC tests (archived ones too) were recorded on the equipment.
    pub async fn has_tests(id: &str) -> Result<bool, sqlx::Error>;
}
