//! The facility rules: reading a create or edit payload into valid values (all field errors at
//! once); applying it to a new or the current facility is in [`aggregate`].

use crate::cnpj::Cnpj;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::payload::{ObjectReader, reference_id};
use crate::values::{
    Department, MainRole, Practice, Radioisotope, Responsibility, Telephone, WeeklyQuantity,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;
use utoipa::ToSchema;

pub mod aggregate;

pub use aggregate::{
    Applied, FacilityFields, References, RoleChange, UserState, apply_user_links, check_cnpj_lock,
    check_linked_user, check_linked_users,
};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Address {
    #[schema(max_length = 200)]
    pub street: String,
    #[schema(max_length = 200)]
    pub city: String,
    #[schema(max_length = 200)]
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub complement: Option<String>,
    #[serde(rename = "zipCode", default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub zip_code: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RadioisotopeGrant {
    pub name: Radioisotope,
    pub quantity: WeeklyQuantity,
}

/// A user linked to a facility with the responsibilities they hold there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserLink {
    pub user_id: String,
    pub responsibilities: Vec<Responsibility>,
}

/// A validated facility payload. On create every required field is `Some`; on edit an absent
/// key is `None` and leaves the stored value unchanged.
#[derive(Debug, Clone, Default)]
pub struct FacilityChanges {
    pub name: Option<String>,
    pub company_name: Option<String>,
    pub cnpj: Option<Cnpj>,
    pub telephone: Option<Telephone>,
    pub department: Option<Department>,
    /// `Some(None)` clears the group.
    pub group: Option<Option<String>>,
    pub address: Option<Vec<Address>>,
    /// `Some(None)` clears the registry number.
    pub cnen_registry: Option<Option<String>>,
    pub users: Option<Vec<UserLink>>,
    pub radioisotopes: Option<Vec<RadioisotopeGrant>>,
    pub practices: Option<BTreeSet<Practice>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Create,
    Edit,
}

/// Reads a facility payload. `extra_responsibilities` are the deployer's custom values.
pub fn read_facility(
    body: &Value,
    mode: Mode,
    extra_responsibilities: &[String],
) -> Result<FacilityChanges, Vec<FieldError>> {
    let (changes, errs) = read_facility_partial(body, mode, extra_responsibilities);
    errs.finish(changes)
}

/// Like [`read_facility`], but also returns what could be read when some fields fail, so that
/// checks needing the store (users, group) can add their errors to the same answer.
pub fn read_facility_partial(
    body: &Value,
    mode: Mode,
    extra_responsibilities: &[String],
) -> (FacilityChanges, FieldErrors) {
    let mut errs = FieldErrors::default();
    let r = match ObjectReader::body(body) {
        Ok(r) => r,
        Err(e) => {
            errs.extend(e);
            return (FacilityChanges::default(), errs);
        }
    };
    let create = mode == Mode::Create;
    let string = |key: &str, errs: &mut FieldErrors| r.string_required_if(create, key, errs);

    let mut out = FacilityChanges {
        name: string("name", &mut errs),
        company_name: string("companyName", &mut errs),
        ..Default::default()
    };

    // As sent: the spaces other strings lose to trimming make a CNPJ invalid (14 characters).
    let sent_cnpj = |_| r.get("cnpj").and_then(Value::as_str).map(str::to_owned);
    out.cnpj = string("cnpj", &mut errs)
        .and_then(sent_cnpj)
        .and_then(|raw| match Cnpj::parse(&raw) {
            Ok(c) => Some(c),
            Err(e) => {
                errs.push("cnpj", FieldCode::InvalidCnpj, e.to_string());
                None
            }
        });

    out.telephone = string("telephone", &mut errs).and_then(|raw| {
        errs.check(
            Telephone::parse(&raw),
            "telephone",
            FieldCode::InvalidTelephone,
            "must include the area code, e.g. (11) 98765-4321: 10 or 11 digits, optionally after +55",
        )
    });

    out.department = string("department", &mut errs).and_then(|raw| {
        errs.check(
            Department::parse(&raw),
            "department",
            FieldCode::InvalidDepartment,
            format!("must be one of: {}", Department::allowed()),
        )
    });

    out.group = match r.get("group") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) if s.trim().is_empty() => Some(None),
        Some(v) => errs
            .check(
                reference_id(v),
                "group",
                FieldCode::InvalidValue,
                "must be a group _id or {\"_id\": ...}",
            )
            .map(Some),
    };

    out.address = read_addresses(&r, create, &mut errs);
    out.cnen_registry = r.clearable_string("CNENregistry", &mut errs);
    out.users = r
        .array_if_present("users", &mut errs)
        .map(|items| read_user_links(items, extra_responsibilities, &mut errs));
    out.radioisotopes = r
        .array_if_present("radioisotopes", &mut errs)
        .map(|items| read_radioisotopes(items, &mut errs));
    out.practices = r
        .array_if_present("practices", &mut errs)
        .map(|items| read_practices(items, &mut errs));

    (out, errs)
}

/// The most addresses one facility may have.
pub const MAX_ADDRESSES: usize = 20;
/// The most users one facility may link.
pub const MAX_USER_LINKS: usize = 100;

fn read_addresses(r: &ObjectReader, create: bool, errs: &mut FieldErrors) -> Option<Vec<Address>> {
    let required = "is required: at least one {street, city, state}";
    let items: Vec<&Value> = match r.required_if(create, "address", required, errs)? {
        Value::Array(items) if items.is_empty() => {
            errs.push(
                "address",
                FieldCode::Required,
                "must have at least one {street, city, state}",
            );
            return None;
        }
        Value::Array(items) if items.len() > MAX_ADDRESSES => {
            errs.push(
                "address",
                FieldCode::InvalidValue,
                format!("must have at most {MAX_ADDRESSES} addresses"),
            );
            return None;
        }
        Value::Array(items) => items.iter().collect(),
        obj @ Value::Object(_) => vec![obj],
        _ => {
            errs.push(
                "address",
                FieldCode::InvalidValue,
                "must be an array of {street, city, state}",
            );
            return None;
        }
    };
    let before = errs.len();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let path = format!("address[{i}]");
        let Some(a) =
            ObjectReader::item(item, path, "must be an object {street, city, state}", errs)
        else {
            continue;
        };
        let street = a.required_string("street", errs);
        let city = a.required_string("city", errs);
        let state = a.required_string("state", errs);
        let complement = a.clearable_string("complement", errs).flatten();
        let zip_code = a.clearable_string("zipCode", errs).flatten();
        if let (Some(street), Some(city), Some(state)) = (street, city, state) {
            out.push(Address {
                street,
                city,
                state,
                complement,
                zip_code,
            });
        }
    }
    (errs.len() == before).then_some(out)
}

fn read_user_links(items: &[Value], extra: &[String], errs: &mut FieldErrors) -> Vec<UserLink> {
    if items.len() > MAX_USER_LINKS {
        errs.push(
            "users",
            FieldCode::InvalidValue,
            format!("must link at most {MAX_USER_LINKS} users"),
        );
        return Vec::new();
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("users[{i}]");
        let Some(u) = ObjectReader::item(
            item,
            path,
            "must be an object {_id, responsabilities}",
            errs,
        ) else {
            continue;
        };
        let id = u.required_string("_id", errs);
        let mut responsibilities: Vec<Responsibility> = Vec::new();
        for (k, value) in u
            .array_if_present("responsabilities", errs)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let field = format!("users[{i}].responsabilities[{k}]");
            match value
                .as_str()
                .and_then(|s| Responsibility::parse(s.trim(), extra))
            {
                Some(r) if !responsibilities.contains(&r) => responsibilities.push(r),
                Some(_) => {}
                None => {
                    let mut allowed = MainRole::allowed();
                    for e in extra {
                        allowed.push_str(", ");
                        allowed.push_str(e);
                    }
                    errs.push(
                        field,
                        FieldCode::InvalidResponsibility,
                        format!("must be one of: {allowed}"),
                    );
                }
            }
        }
        if let Some(id) = id {
            if !seen.insert(id.clone()) {
                errs.push(
                    format!("users[{i}]._id"),
                    FieldCode::InvalidValue,
                    "is listed more than once",
                );
                continue;
            }
            out.push(UserLink {
                user_id: id,
                responsibilities,
            });
        }
    }
    out
}

fn read_radioisotopes(items: &[Value], errs: &mut FieldErrors) -> Vec<RadioisotopeGrant> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("radioisotopes[{i}]");
        let Some(g) = ObjectReader::item(item, path, "must be an object {name, quantity}", errs)
        else {
            continue;
        };
        let name =
            g.required("name", errs)
                .and_then(|v| match v.as_str().and_then(Radioisotope::parse) {
                    Some(n) if !seen.insert(n) => {
                        errs.push(
                            g.path("name"),
                            FieldCode::DuplicateRadioisotope,
                            format!("{n} is listed more than once"),
                        );
                        None
                    }
                    Some(n) => Some(n),
                    None => {
                        errs.push(
                            g.path("name"),
                            FieldCode::InvalidRadioisotope,
                            format!("must be one of: {}", Radioisotope::allowed()),
                        );
                        None
                    }
                });
        let quantity = match g.get("quantity") {
            None | Some(Value::Null) => {
                errs.push(
                    g.path("quantity"),
                    FieldCode::Required,
                    "is required (mCi per week)",
                );
                None
            }
            Some(v) => errs.check(
                WeeklyQuantity::from_json(v),
                g.path("quantity"),
                FieldCode::InvalidQuantity,
                WeeklyQuantity::RULE,
            ),
        };
        if let (Some(name), Some(quantity)) = (name, quantity) {
            out.push(RadioisotopeGrant { name, quantity });
        }
    }
    out
}

fn read_practices(items: &[Value], errs: &mut FieldErrors) -> BTreeSet<Practice> {
    let mut out = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().and_then(Practice::parse) {
            Some(p) => {
                out.insert(p);
            }
            None => errs.push(
                format!("practices[{i}]"),
                FieldCode::InvalidPractice,
                format!("must be one of: {}", Practice::allowed()),
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests;
