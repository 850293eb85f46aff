//! Plain named catalogues — equipment types and groups: tables of `id, name, name_key,
//! description, created_at, updated_at` whose records differ only in their table and their type.
//! One set of queries (`sql/catalogue.rs`) serves each [`Named`] type, which is thereby
//! [`Stored`], as the catalogue handlers (`routes/catalogue.rs`) need their records to be.

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
}

/// Implements [`Named`] for a record type that has a [`NamedRow`]'s fields, and the given others
/// at the values a row leaves them at: `named_record!(Group, "facility_groups", facilities: None)`.
macro_rules! named_record {
    ($ty:ty, $table:literal $(, $field:ident: $value:expr)*) => {
        impl $crate::store::catalogue::Named for $ty {
            const TABLE: &'static str = $table;

            fn from_row(row: $crate::store::catalogue::NamedRow) -> Self {
                Self {
                    id: row.id,
                    name: row.name,
                    description: row.description,
                    created_at: row.created_at,
                    updated_at: row.updated_at,
                    $($field: $value,)*
                }
            }

            fn to_row(&self) -> $crate::store::catalogue::NamedRow {
                $crate::store::catalogue::NamedRow {
                    id: self.id.clone(),
                    name: self.name.clone(),
                    description: self.description.clone(),
                    created_at: self.created_at.clone(),
                    updated_at: self.updated_at.clone(),
                }
            }
        }
    };
}
pub(crate) use named_record;

backend_fns! { catalogue;
    pub async fn get_row(table: &'static str, id: &str) -> Result<Option<NamedRow>, sqlx::Error>;

    /// Records by name, filtered by `q`.
    pub async fn list_rows(table: &'static str, q: Option<&str>, limit: i64, offset: i64) -> Result<(Vec<NamedRow>, i64), sqlx::Error>;

    /// Whether another record of `table` has this name (case- and accent-insensitive).
    pub async fn name_taken_in(table: &'static str, name: &str, except_id: &str) -> Result<bool, sqlx::Error>;

    pub async fn save_row(table: &'static str, row: &NamedRow, insert: bool) -> Result<(), sqlx::Error>;

    pub async fn delete_row(table: &'static str, id: &str) -> Result<(), sqlx::Error>;
}

/// What the catalogue handlers (`routes/catalogue.rs`) need of the storage of their records.
pub trait Stored: Sized {
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

    fn save(
        &self,
        conn: &mut Conn,
        insert: bool,
    ) -> impl Future<Output = Result<(), sqlx::Error>> + Send;

    fn delete(conn: &mut Conn, id: &str) -> impl Future<Output = Result<(), sqlx::Error>> + Send;
}

/// A plain named catalogue's records are stored alike, in their table.
impl<T: Named + Send + Sync> Stored for T {
    async fn get(conn: &mut Conn, id: &str) -> Result<Option<T>, sqlx::Error> {
        Ok(get_row(conn, T::TABLE, id).await?.map(T::from_row))
    }

    /// Records by name, filtered by `q`.
    async fn list(
        conn: &mut Conn,
        filter: &CatalogueFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<T>, i64), sqlx::Error> {
        let (rows, total) = list_rows(conn, T::TABLE, filter.q.as_deref(), limit, offset).await?;
        Ok((rows.into_iter().map(T::from_row).collect(), total))
    }

    async fn save(&self, conn: &mut Conn, insert: bool) -> Result<(), sqlx::Error> {
        save_row(conn, T::TABLE, &self.to_row(), insert).await
    }

    async fn delete(conn: &mut Conn, id: &str) -> Result<(), sqlx::Error> {
        delete_row(conn, T::TABLE, id).await
    }
}

/// Whether another record has this name (case- and accent-insensitive).
pub async fn name_taken<T: Named>(
    conn: &mut Conn,
    name: &str,
    except_id: &str,
) -> Result<bool, sqlx::Error> {
    name_taken_in(conn, T::TABLE, name, except_id).await
}
