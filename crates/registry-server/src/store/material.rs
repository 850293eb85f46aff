//! Receipts of radioactive material, waste packages in decay storage, what the notices read, and
//! the daily digests (planned once per day, claimed by exactly one instance each).
//!
//! The storage interface of this resource; the queries are in `sql/material.rs` (receipts),
//! `sql/waste.rs` (waste packages) and `sql/notices.rs` (what the notices read, the digests).

use registry_core::Radioisotope;
use registry_core::equipment::Reference;
use registry_core::material::Receipt;
use registry_core::waste::{WastePackage, WasteRelease};

pub use super::model::material::*;

super::model::saved_by!(WastePackage, save_waste);

backend_fns! { material;
    /// Holds the facility's row until the transaction ends, so that two receipts of one week are
    /// summed one after the other (SQLite has a single writer already).
    pub async fn lock_facility(facility_id: &str) -> Result<(), sqlx::Error>;

    /// The facility's authorised radioisotopes and weekly quantities, in the facility's order.
    pub async fn authorised(facility_id: &str) -> Result<Vec<(Radioisotope, f64)>, sqlx::Error>;

    /// Per isotope, the week's total activity at receipt and the number of receipts.
    pub async fn week_totals(facility_id: &str, week: &str) -> Result<Vec<(Radioisotope, f64, i64)>, sqlx::Error>;

    pub async fn insert_receipt(r: &Receipt) -> Result<(), sqlx::Error>;

    pub async fn receipt(id: &str) -> Result<Option<Receipt>, sqlx::Error>;

    /// A page of receipts, newest first (by the time received), filtered by `week`, `radioisotope`
    /// and `overQuantity` (`true`/`false`).
    pub async fn receipts(scope: &Scope, week: Option<&str>, radioisotope: Option<Radioisotope>, over_quantity: Option<bool>, limit: i64, offset: i64) -> Result<(Vec<Receipt>, i64), sqlx::Error>;
}

backend_fns! { waste;
    pub async fn save_waste(w: &WastePackage, insert: bool) -> Result<(), sqlx::Error>;

    /// Records the release of a stored package; `false` when it was released meanwhile.
    pub async fn release_waste(id: &str, release: &WasteRelease, at: &str) -> Result<bool, sqlx::Error>;

    pub async fn waste(id: &str, today: &str) -> Result<Option<WastePackage>, sqlx::Error>;

    /// A page of packages, newest first.
    pub async fn waste_list(scope: &Scope, query: &WasteQuery, today: &str, limit: i64, offset: i64) -> Result<(Vec<WastePackage>, i64), sqlx::Error>;
}

backend_fns! { notices;
    /// A QC test due on or before `limit` on active equipment: `(facility, equipment, test name, next due)`.
    pub async fn qc_due_by(scope: &Scope, limit: &str) -> Result<Vec<(Reference, Reference, String, String)>, sqlx::Error>;

    pub async fn licences_ending_by(scope: &Scope, limit: &str) -> Result<Vec<LicenceEnd>, sqlx::Error>;

    /// Live documents whose validity ends within `[from, to]`: `(facility, equipment, document, validity)`.
    pub async fn documents_ending_between(scope: &Scope, from: &str, to: &str) -> Result<Vec<(Reference, Option<Reference>, Reference, String)>, sqlx::Error>;

    /// Stored packages whose release date is on or before `today`.
    pub async fn releasable_waste(scope: &Scope, today: &str) -> Result<Vec<WastePackage>, sqlx::Error>;

    /// `(facility, isotope, week, total, authorised)` for each isotope received in each week
    /// among `weeks`, with the facility's authorised quantity today.
    pub async fn weekly_totals(scope: &Scope, weeks: &[String]) -> Result<Vec<(Reference, Radioisotope, String, f64, Option<f64>)>, sqlx::Error>;

    /// The e-mail addresses of the active Titular, Responsável Técnico and Supervisor of a facility.
    pub async fn responsible_emails(facility_id: &str) -> Result<Vec<String>, sqlx::Error>;

    /// Whether some instance planned `day` already (a read, so that polls after the hour do not take
    /// the writer).
    pub async fn day_planned(day: &str) -> Result<bool, sqlx::Error>;

    /// Marks `day` as planned by `instance`; `false` when another instance planned it already.
    pub async fn claim_day(day: &str, instance: &str, now: &str) -> Result<bool, sqlx::Error>;

    pub async fn insert_digest(d: &Digest, now: &str) -> Result<(), sqlx::Error>;

    /// Claims due digests for `instance` until `until` (see [`claims::claim`]).
    pub async fn claim_digests(instance: &str, now: &str, until: &str, limit: i64) -> Result<Vec<Digest>, sqlx::Error>;
}
