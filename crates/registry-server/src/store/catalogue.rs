//! Plain named catalogues — equipment types and groups: tables of `id, name, name_key,
//! description, created_at, updated_at` whose records differ only in their table and their type.
//! One set of queries (`sql/catalogue.rs`) serves each [`Named`] type, which is thereby
//! [`Stored`], as the catalogue handlers (`routes/catalogue.rs`) need their records to be.

use crate::db::Conn;
use crate::store::Saved;

pub use super::model::catalogue::*;

backend_fns! { catalogue;
    pub async fn get_row(table: &'static str, id: &str) -> Result<Option<NamedRow>, sqlx::Error>;

    /// Records by name, filtered by `q`.
    pub async fn list_rows(table: &'static str, q: Option<&str>, limit: i64, offset: i64) -> Result<(Vec<NamedRow>, i64), sqlx::Error>;

    /// Whether another record of `table` has this name (case- and accent-insensitive).
    pub async fn name_taken_in(table: &'static str, name: &str, except_id: &str) -> Result<bool, sqlx::Error>;

    pub async fn save_row(table: &'static str, row: &NamedRow, insert: bool) -> Result<(), sqlx::Error>;

    pub async fn delete_row(table: &'static str, id: &str) -> Result<(), sqlx::Error>;
}

/// A plain named catalogue's records are stored alike, in their table.
impl<T: Named + Send + Sync> Saved for T {
    fn set_updated_at(&mut self, at: String) {
        Named::set_updated_at(self, at);
    }

    async fn save(&self, conn: &mut Conn, insert: bool) -> Result<(), sqlx::Error> {
        save_row(conn, T::TABLE, &self.to_row(), insert).await
    }
}

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
