//! The types of `store::catalogue` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use crate::db::Conn;

/// Which records a catalogue's list shows.
#[derive(Debug, Clone, Default)]
pub struct CatalogueFilter {
    /// Case- and accent-insensitive substring of the name.
    pub q: Option<String>,
    /// Test types only: those of this equipment type.
    pub equipment_type_id: Option<String>,
}

/// The columns of a plain named-catalogue table (`name_key` is kept from `name`).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedRow {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A record kept in a plain named-catalogue table.
pub trait Named: Sized {
    /// Its table.
    const TABLE: &'static str;

    fn from_row(row: NamedRow) -> Self;

    fn to_row(&self) -> NamedRow;

    fn set_updated_at(&mut self, at: String);
}

/// Implements [`Named`] for a record type that has a [`NamedRow`]'s fields, and the given others
/// at the values a row leaves them at: `named_record!(Group, "facility_groups", facilities: None)`.
macro_rules! named_record {
    ($ty:ty, $table:literal $(, $field:ident: $value:expr)*) => {
        impl $crate::store::model::catalogue::Named for $ty {
            const TABLE: &'static str = $table;

            fn from_row(row: $crate::store::model::catalogue::NamedRow) -> Self {
                Self {
                    id: row.id,
                    name: row.name,
                    description: row.description,
                    created_at: row.created_at,
                    updated_at: row.updated_at,
                    $($field: $value,)*
                }
            }

            fn to_row(&self) -> $crate::store::model::catalogue::NamedRow {
                $crate::store::model::catalogue::NamedRow {
                    id: self.id.clone(),
                    name: self.name.clone(),
                    description: self.description.clone(),
                    created_at: self.created_at.clone(),
                    updated_at: self.updated_at.clone(),
                }
            }

            fn set_updated_at(&mut self, at: String) {
                self.updated_at = at;
            }
        }
    };
}
pub(crate) use named_record;

/// What the catalogue handlers (`routes/catalogue.rs`) need of the storage of their records.
pub trait Stored: super::Saved {
    fn get(
        conn: &mut Conn,
        id: &str,
    ) -> impl Future<Output = Result<Option<Self>, sqlx::Error>> + Send;

    fn list(
        conn: &mut Conn,
        filter: &CatalogueFilter,
        limit: i64,
        offset: i64,
    ) -> impl Future<Output = Result<(Vec<Self>, i64), sqlx::Error>> + Send;

    fn delete(conn: &mut Conn, id: &str) -> impl Future<Output = Result<(), sqlx::Error>> + Send;
}
