//! Radioactive material endpoints: receipts checked against the facility's authorisation, the
//! weekly usage against the authorised quantities, and waste in decay storage up to its release.
//! Staff write; a `Cliente` reads the records of the facilities they are linked to (404 otherwise).
//! One file a concern; this one routes and holds what they share.

mod receipts;
mod waste;

use crate::access::{scope_for, visible};
use crate::auth::Caller;
use crate::db::Conn;
use crate::error::{ApiError, OrNotFound, Result};
use crate::routes::describe::{Routes, routes};
use crate::store::facilities;
use crate::store::material::Scope;
use registry_core::equipment::Reference;

pub fn routes() -> Routes {
    routes![
        receipts::receive,
        receipts::list_for_facility,
        receipts::list_all,
        receipts::show_receipt,
        receipts::weekly_usage,
        waste::store_waste,
        waste::waste_for_facility,
        waste::waste_all,
        waste::show_waste,
        waste::edit_waste,
        waste::release
    ]
}

fn bad_filter(key: &str, what: &str) -> ApiError {
    ApiError::BadRequest(format!("{key} must be {what}."))
}

/// Which facility a list is of: the one in its path, which must be visible (404), or the one a
/// `facilityId` filter names, which only narrows the list (one the caller cannot see, or that
/// does not exist, leaves it empty, as on the documents and due lists).
enum Of {
    Path(String),
    Filter(Option<String>),
}

/// Staff see every facility; a `Cliente` theirs.
async fn scope(conn: &mut Conn, caller: &Caller, of: Of) -> Result<Scope> {
    let facility = match of {
        Of::Path(id) => {
            visible(conn, caller, &id).await?;
            Some(id)
        }
        Of::Filter(id) => id,
    };
    Ok(Scope {
        facility_id: facility,
        member: scope_for(caller),
    })
}

/// The live facility a staff member writes to, as a reference, or 404.
async fn facility_ref(conn: &mut Conn, id: &str) -> Result<Reference> {
    facilities::hold_live(conn, id)
        .await?
        .or_not_found("facility")
}
