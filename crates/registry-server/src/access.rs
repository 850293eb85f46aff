//! Who may see what: staff (every role but `Cliente`) see every live record; a `Cliente` only the
//! records of the facilities they are linked to. Every route that loads a record for a caller
//! goes through here, and answers 404 (not 403) for what the caller may not see.

use crate::auth::Caller;
use crate::db::Conn;
use crate::error::{ApiError, OrNotFound, Result};
use crate::store::documents::DocumentFilter;
use crate::store::{equipment, facilities};
use registry_core::api::Facility;
use registry_core::equipment::Equipment;

/// The documents a caller may read: staff every one, a `Cliente` the released documents of their
/// facilities.
pub fn document_scope(caller: &Caller) -> DocumentFilter {
    DocumentFilter {
        client: (!caller.is_staff()).then(|| caller.id.clone()),
        ..Default::default()
    }
}

/// Staff read every facility; a `Cliente` only the facilities they are linked to.
pub fn scope_for(caller: &Caller) -> Option<String> {
    (!caller.is_staff()).then(|| caller.id.clone())
}

/// Loads a live facility the caller may see, or 404.
pub async fn visible(conn: &mut Conn, caller: &Caller, id: &str) -> Result<Facility> {
    let found = facilities::view(conn, id).await?;
    visible_record(conn, caller, found, "facility", |f| &f.id).await
}

/// Live equipment the caller may see (staff: all; a `Cliente`: their facilities'), or 404.
pub async fn visible_equipment(conn: &mut Conn, caller: &Caller, id: &str) -> Result<Equipment> {
    let found = equipment::get(conn, id).await?;
    visible_record(conn, caller, found, "equipment", |e| &e.facility.id).await
}

/// A record that was `found`, if the caller may see the facility it belongs to (`facility_id`
/// of it); otherwise 404 `{what} not found`, as for a record that does not exist.
pub async fn visible_record<T>(
    conn: &mut Conn,
    caller: &Caller,
    found: Option<T>,
    what: &str,
    facility_id: impl Fn(&T) -> &str,
) -> Result<T> {
    let record = found.or_not_found(what)?;
    if !caller.is_staff() && !facilities::is_member(conn, facility_id(&record), &caller.id).await? {
        return Err(ApiError::not_found(what));
    }
    Ok(record)
}
