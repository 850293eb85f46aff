//! Facility records: the facility row and its children (addresses, user links, radioisotopes,
//! practices, images), loaded for a page in a fixed number of queries.
//!
//! The storage interface of this resource; the queries are in `sql/facilities.rs`.

use registry_core::api::Facility;
use registry_core::facility::{FacilityFields, RadioisotopeGrant, UserLink};
use registry_core::values::WeeklyQuantity;
use registry_core::{Department, Responsibility};

/// A facility as stored, before enrichment: its fields (the core aggregate's) with its id,
/// version and times.
#[derive(Debug, Clone, PartialEq)]
pub struct FacilityRecord {
    pub id: String,
    pub fields: FacilityFields,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// The image kinds a facility can carry, with the path segment that serves each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Logo,
    Background,
}

impl ImageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ImageKind::Logo => "logo",
            ImageKind::Background => "background",
        }
    }
}

pub use crate::store::types::Param;

/// The stored fields of a loaded facility (to apply an edit to them).
pub fn fields_of(f: &Facility) -> Result<FacilityFields, sqlx::Error> {
    Ok(FacilityFields {
        name: f.name.clone(),
        company_name: f.company_name.clone(),
        cnpj: f.cnpj.clone(),
        telephone: f.telephone.clone(),
        department: f.department,
        group_id: f.group.as_ref().map(|g| g.id.clone()),
        cnen_registry: f.cnen_registry.clone(),
        address: f.address.clone(),
        users: f
            .users
            .iter()
            .map(|u| UserLink {
                user_id: u.id.clone(),
                responsibilities: u
                    .responsabilities
                    .iter()
                    .map(|s| stored_responsibility(s))
                    .collect(),
            })
            .collect(),
        radioisotopes: f
            .radioisotopes
            .iter()
            .map(|g| {
                WeeklyQuantity::stored(g.quantity)
                    .map(|quantity| RadioisotopeGrant {
                        name: g.name,
                        quantity,
                    })
                    .ok_or_else(|| {
                        decode_err(format!("stored quantity {} is not positive", g.quantity))
                    })
            })
            .collect::<Result<_, _>>()?,
        practices: f.practices.iter().copied().collect(),
    })
}

/// Which live facilities a list shows: the caller's scope (a department's list; a `Cliente`
/// sees only the facilities they are linked to) and the filters of product.md §2.
#[derive(Debug, Clone, Default)]
pub struct FacilityFilter {
    pub department: Option<String>,
    /// Only facilities this user is linked to (the scope of a `Cliente`, or a user's list).
    pub member: Option<String>,
    /// Case- and accent-insensitive substring of name, company name, cnpj or a city.
    pub q: Option<String>,
    pub state: Option<String>,
    pub city: Option<String>,
    pub group_id: Option<String>,
    pub radioisotope: Option<String>,
    pub practice: Option<String>,
    /// Only facilities this user is linked to (the `userId` filter).
    pub user_id: Option<String>,
}

backend_fns! { facility_reads;
    /// Live facilities with these ids, enriched, in the order of `ids` (missing ones are skipped).
    pub async fn views(ids: &[String]) -> Result<Vec<Facility>, sqlx::Error>;

    pub async fn view(id: &str) -> Result<Option<Facility>, sqlx::Error>;

    /// A page of live facilities, newest first, with the filters of product.md §2.
    pub async fn list(filter: &FacilityFilter, limit: i64, offset: i64) -> Result<(Vec<Facility>, i64), sqlx::Error>;
}

backend_fns! { facilities;
    pub async fn insert(r: &FacilityRecord) -> Result<(), sqlx::Error>;

    /// Saves the row and replaces its children.
    pub async fn update(r: &FacilityRecord) -> Result<(), sqlx::Error>;

    /// Inserts `rows` (each with one value per column) into `table` in one statement.
    pub async fn insert_rows(table: &str, columns: &[&str], rows: Vec<Vec<Param>>) -> Result<(), sqlx::Error>;

    /// The live facility already registered with this cnpj in this department, if any.
    pub async fn live_duplicate(cnpj: &str, department: Department, except_id: &str) -> Result<Option<String>, sqlx::Error>;

    /// Whether equipment, documents or QC tests refer to the facility.
    pub async fn has_records(id: &str) -> Result<bool, sqlx::Error>;

    pub async fn is_member(facility_id: &str, user_id: &str) -> Result<bool, sqlx::Error>;

    pub async fn archive(id: &str, at: &str) -> Result<bool, sqlx::Error>;

    pub async fn touch(id: &str, at: &str) -> Result<(), sqlx::Error>;

    pub async fn set_image(id: &str, kind: ImageKind, content_type: &str, data: &[u8], at: &str) -> Result<(), sqlx::Error>;

    pub async fn image(id: &str, kind: ImageKind) -> Result<Option<(String, Vec<u8>)>, sqlx::Error>;

    pub async fn remove_image(id: &str, kind: ImageKind) -> Result<bool, sqlx::Error>;
}

/// The SQL text [`views`] runs on `backend` for `n` ids (`$1`…`$n`): the facility by id is
/// `n = 1`. For measuring that query outside the server (examples/sqlite_drivers.rs).
pub fn views_sql(backend: crate::db::Backend, n: usize) -> String {
    match backend {
        crate::db::Backend::Sqlite => crate::store::sqlite::facility_reads::views_sql(n),
        crate::db::Backend::Postgres => crate::store::postgres::facility_reads::views_sql(n),
    }
}

pub(crate) fn decode_err(msg: String) -> sqlx::Error {
    sqlx::Error::Decode(msg.into())
}

pub(crate) fn stored_responsibility(s: &str) -> Responsibility {
    registry_core::MainRole::parse(s)
        .map(Responsibility::Main)
        .unwrap_or_else(|| Responsibility::Custom(s.to_owned()))
}
