//! QC test records (spec §4.6: create, edit, delete, history of one test type on one equipment)
//! and due dates, per equipment and across every facility the caller can read. One file a
//! concern; this one routes and holds what they share.

mod due;
mod read;
mod record;

use crate::routes::describe::{Routes, routes};
use chrono::NaiveDate;
use registry_core::equipment::local_date;

pub fn routes() -> Routes {
    routes![
        record::create,
        read::show,
        record::edit,
        record::delete,
        read::report,
        read::history,
        due::due_for_equipment,
        due::due_everywhere
    ]
}

fn today() -> NaiveDate {
    local_date(chrono::Utc::now())
}
