//! Who may see what: staff (every role but `Cliente`) see every live record; a `Cliente` only the
//! records of the facilities they are linked to. Every route that loads a record for a caller
//! goes through here, and answers 404 (not 403) for what the caller may not see.

use crate::auth::Caller;
use crate::db::Conn;
use crate::error::{ApiError, Result};
use crate::store::{equipment, facilities};
use registry_core::api::Facility;
use registry_core::equipment::Equipment;

/// Staff read every facility; a `Cliente` only the facilities they are linked to.
pub fn scope_for(caller: &Caller) -> Option<String> {
    (!caller.is_staff()).then(|| caller.id.clone())
}

/// Loads a live facility the caller may see, or 404.
pub async fn visible(conn: &mut Conn, caller: &Caller, id: &str) -> Result<Facility> {
    let facility = facilities::view(conn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("facility"))?;
    if !caller.is_staff() && !facilities::is_member(conn, id, &caller.id).await? {
        return Err(ApiError::not_found("facility"));
    }
    Ok(facility)
}

/// Live equipment the caller may see (staff: all; a `Cliente`: their facilities'), or 404.
pub async fn visible_equipment(conn: &mut Conn, caller: &Caller, id: &str) -> Result<Equipment> {
    let equipment = equipment::get(conn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("equipment"))?;
    if !caller.is_staff()
        && !facilities::is_member(conn, &equipment.facility.id, &caller.id).await?
    {
        return Err(ApiError::not_found("equipment"));
    }
    Ok(equipment)
}
