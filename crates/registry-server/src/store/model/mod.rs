//! The types of the storage interface, apart from the functions that dispatch to a backend, so
//! that the backends' queries depend on them and not on the interface that calls the backends.

pub mod audit;
pub mod catalogue;
pub mod claims;
pub mod documents;
pub mod equipment;
pub mod facilities;
pub mod material;
pub mod qc_tests;
pub mod users;

use crate::db::Conn;

/// A record the storage interface writes whole: a create inserts it, an edit stores it again
/// (see `routes::audited::edited`).
pub trait Saved: Sized {
    /// Marks the record changed at `at` (its `updatedAt`).
    fn set_updated_at(&mut self, at: String);

    fn save(
        &self,
        conn: &mut Conn,
        insert: bool,
    ) -> impl Future<Output = Result<(), sqlx::Error>> + Send;
}

/// Implements [`Saved`] for a record type with an `updated_at` field that the interface function
/// `$save(conn, record, insert)` stores: `saved_by!(Equipment, save)`.
macro_rules! saved_by {
    ($ty:ty, $save:path) => {
        impl $crate::store::Saved for $ty {
            fn set_updated_at(&mut self, at: String) {
                self.updated_at = at;
            }

            async fn save(
                &self,
                conn: &mut $crate::db::Conn,
                insert: bool,
            ) -> Result<(), sqlx::Error> {
                $save(conn, self, insert).await
            }
        }
    };
}
pub(crate) use saved_by;
