//! The types of `store::facilities` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use registry_core::Responsibility;
use registry_core::api::Facility;
pub use registry_core::facility::FacilityFields;
use registry_core::facility::{RadioisotopeGrant, UserLink};
use registry_core::values::WeeklyQuantity;
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
#[derive(Debug, Clone, Default, PartialEq)]
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

impl FacilityFilter {
    /// A search (`q`) with no other filter.
    pub(crate) fn is_search_alone(&self) -> bool {
        let alone = FacilityFilter {
            q: self.q.clone(),
            ..FacilityFilter::default()
        };
        self.q.is_some() && *self == alone
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

#[cfg(test)]
mod tests {
    use super::FacilityFilter;

    #[test]
    fn a_search_is_alone_only_with_no_other_filter() {
        let search = |q: Option<&str>| FacilityFilter {
            q: q.map(str::to_owned),
            ..FacilityFilter::default()
        };
        assert!(search(Some("clinica")).is_search_alone());
        assert!(!search(None).is_search_alone());
        let with = |f: fn(&mut FacilityFilter)| {
            let mut filter = search(Some("clinica"));
            f(&mut filter);
            filter.is_search_alone()
        };
        assert!(!with(|f| f.department = Some("Medicina Nuclear".into())));
        assert!(!with(|f| f.member = Some("u".into())));
        assert!(!with(|f| f.city = Some("Recife".into())));
        assert!(!with(|f| f.user_id = Some("u".into())));
    }
}
