//! Equipment types and the QC test types of each.
//!
//! The storage interface of this resource; the queries are in `sql/equipment_types.rs`, and
//! those equipment types share with the other plain named catalogues in `sql/catalogue.rs`.

use crate::db::Conn;
use crate::store::catalogue::{self, CatalogueFilter, Stored};
use registry_core::equipment::{EquipmentType, Reference, TestType};

// Equipment types are a plain named catalogue.
catalogue::named_record!(EquipmentType, "equipment_types");

pub async fn get_type(conn: &mut Conn, id: &str) -> Result<Option<EquipmentType>, sqlx::Error> {
    EquipmentType::get(conn, id).await
}

/// The equipment type `id` as a reference, or `None`.
pub async fn type_reference(conn: &mut Conn, id: &str) -> Result<Option<Reference>, sqlx::Error> {
    Ok(get_type(conn, id).await?.map(|t| Reference {
        id: t.id,
        name: t.name,
    }))
}

super::model::saved_by!(TestType, save_test_type);

/// Test types are stored with their equipment type's name.
impl Stored for TestType {
    async fn get(conn: &mut Conn, id: &str) -> Result<Option<TestType>, sqlx::Error> {
        get_test_type(conn, id).await
    }

    async fn list(
        conn: &mut Conn,
        filter: &CatalogueFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<TestType>, i64), sqlx::Error> {
        list_test_types(conn, filter, limit, offset).await
    }

    async fn delete(conn: &mut Conn, id: &str) -> Result<(), sqlx::Error> {
        delete_test_type(conn, id).await
    }
}

backend_fns! { equipment_types;
    /// What still refers to an equipment type: `(equipment, test types)`. Archived equipment counts,
    /// since it keeps its history.
    pub async fn type_users(id: &str) -> Result<(i64, i64), sqlx::Error>;

    pub async fn get_test_type(id: &str) -> Result<Option<TestType>, sqlx::Error>;

    /// Test types by equipment type and name, optionally of one equipment type only.
    pub async fn list_test_types(filter: &CatalogueFilter, limit: i64, offset: i64) -> Result<(Vec<TestType>, i64), sqlx::Error>;

    /// Whether another test type of this equipment type has this name.
    pub async fn test_type_name_taken(equipment_type_id: &str, name: &str, except_id: &str) -> Result<bool, sqlx::Error>;

    pub async fn save_test_type(t: &TestType, insert: bool) -> Result<(), sqlx::Error>;

    /// QC test records (archived ones too) of this test type.
    pub async fn test_type_records(id: &str) -> Result<i64, sqlx::Error>;

    pub async fn delete_test_type(id: &str) -> Result<(), sqlx::Error>;

    /// Seeds the QC test catalogue (`registry_core::qc::catalogue`) once per database: a test type
    /// whose id or name is already taken on its equipment type is left as it is.
    pub async fn seed_catalogue() -> Result<(), sqlx::Error>;
}
