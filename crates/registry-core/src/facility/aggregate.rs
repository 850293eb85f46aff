//! The facility aggregate: the fields a facility stores, and the rules that turn a validated
//! payload into them (create) or merge it into the current ones (edit): the one-holder-per-main-role
//! rule with replacement, linked users that must exist and be active, the group that must exist,
//! and the cnpj lock. No IO: what the rules need from the store is loaded first ([`References`]).

use super::{Address, FacilityChanges, RadioisotopeGrant, UserLink};
use crate::cnpj::Cnpj;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::payload::update;
use crate::values::{Department, MainRole, Practice};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use utoipa::ToSchema;

/// What a facility stores besides its id, version and times.
#[derive(Debug, Clone, PartialEq)]
pub struct FacilityFields {
    pub name: String,
    pub company_name: String,
    pub cnpj: String,
    pub telephone: String,
    pub department: Department,
    pub group_id: Option<String>,
    pub cnen_registry: Option<String>,
    pub address: Vec<Address>,
    pub users: Vec<UserLink>,
    pub radioisotopes: Vec<RadioisotopeGrant>,
    pub practices: BTreeSet<Practice>,
}

impl FacilityFields {
    /// What no two live facilities share: the cnpj within a department.
    pub fn key(&self) -> (&str, Department) {
        (&self.cnpj, self.department)
    }
}

/// What the store knows about the references of a payload, loaded before the rules run.
#[derive(Debug, Clone, Default)]
pub struct References {
    /// Whether the group the payload names exists (read only when it names one).
    pub group_exists: bool,
    /// The users the payload links (read only when it links users); a missing id does not exist.
    pub users: BTreeMap<String, UserState>,
    /// Whether equipment, documents or QC tests refer to the facility (read only when the payload
    /// changes its cnpj).
    pub linked_to_records: bool,
}

/// The result of applying a payload: the fields to store and the main-role holders it changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub fields: FacilityFields,
    pub role_changes: Vec<RoleChange>,
}

impl FacilityChanges {
    /// The group the payload names, if it names one.
    pub fn named_group(&self) -> Option<&str> {
        self.group.as_ref()?.as_deref()
    }

    /// The ids of the users the payload links, when it sets the links.
    pub fn linked_user_ids(&self) -> Option<Vec<&str>> {
        let links = self.users.as_ref()?;
        Some(links.iter().map(|l| l.user_id.as_str()).collect())
    }

    /// Whether the payload changes the cnpj from `stored`.
    pub fn changes_cnpj(&self, stored: &str) -> bool {
        self.cnpj.as_ref().is_some_and(|c| c.as_str() != stored)
    }

    /// A new facility from a payload read in [`Mode::Create`](super::Mode::Create).
    /// `errs` are the errors reading it found: all errors are reported at once.
    pub fn into_new(
        self,
        refs: &References,
        mut errs: FieldErrors,
    ) -> Result<Applied, Vec<FieldError>> {
        let links = self.check_references(&[], refs, &mut errs);
        errs.finish(())?;
        let (user_links, role_changes) = links.unwrap_or_default();
        let (
            Some(name),
            Some(company_name),
            Some(cnpj),
            Some(telephone),
            Some(department),
            Some(address),
        ) = (
            self.name,
            self.company_name,
            self.cnpj,
            self.telephone,
            self.department,
            self.address,
        )
        else {
            unreachable!("create mode reports every missing required field");
        };
        Ok(Applied {
            fields: FacilityFields {
                name,
                company_name,
                cnpj: cnpj.as_str().to_owned(),
                telephone: telephone.as_str().to_owned(),
                department,
                group_id: self.group.flatten(),
                cnen_registry: self.cnen_registry.flatten(),
                address,
                users: user_links,
                radioisotopes: self.radioisotopes.unwrap_or_default(),
                practices: self.practices.unwrap_or_default(),
            },
            role_changes,
        })
    }

    /// Merges an edit payload into `current`: each key present replaces its field, the user links
    /// follow [`apply_user_links`]. `errs` are the errors reading the payload found: all errors
    /// are reported at once. `Ok(None)` when the edit changes nothing.
    pub fn apply_to(
        self,
        current: &FacilityFields,
        refs: &References,
        mut errs: FieldErrors,
    ) -> Result<Option<Applied>, Vec<FieldError>> {
        let links = self.check_references(&current.users, refs, &mut errs);
        errs.extend(check_cnpj_lock(
            &current.cnpj,
            self.cnpj.as_ref(),
            refs.linked_to_records,
        ));
        errs.finish(())?;
        let mut fields = current.clone();
        let role_changes = match links {
            Some((users, role_changes)) => {
                fields.users = users;
                role_changes
            }
            None => Vec::new(),
        };
        update(&mut fields.name, self.name);
        update(&mut fields.company_name, self.company_name);
        update(&mut fields.cnpj, self.cnpj.map(|v| v.as_str().to_owned()));
        update(
            &mut fields.telephone,
            self.telephone.map(|v| v.as_str().to_owned()),
        );
        update(&mut fields.department, self.department);
        update(&mut fields.group_id, self.group);
        update(&mut fields.address, self.address);
        update(&mut fields.cnen_registry, self.cnen_registry);
        // Authorisations are a set: the same ones in another order change nothing, and the
        // stored order is kept (as practices, a set already).
        let radioisotopes = self.radioisotopes.filter(|new| {
            new.len() != fields.radioisotopes.len()
                || new.iter().any(|g| !fields.radioisotopes.contains(g))
        });
        update(&mut fields.radioisotopes, radioisotopes);
        update(&mut fields.practices, self.practices);
        Ok((fields != *current).then_some(Applied {
            fields,
            role_changes,
        }))
    }

    /// The group and linked-user rules, adding to `errs`. Returns the resulting user links and
    /// role changes when the payload sets the links and they pass the one-holder rule.
    fn check_references(
        &self,
        current_links: &[UserLink],
        refs: &References,
        errs: &mut FieldErrors,
    ) -> Option<(Vec<UserLink>, Vec<RoleChange>)> {
        if let Some(group) = self.named_group()
            && !refs.group_exists
        {
            errs.push(
                "group",
                FieldCode::GroupNotFound,
                format!("names no group with _id {group}"),
            );
        }
        let links = self.users.as_ref()?;
        errs.extend(check_linked_users(links, &refs.users));
        match apply_user_links(current_links, links.clone()) {
            Ok(applied) => Some(applied),
            Err(e) => {
                errs.extend(e);
                None
            }
        }
    }
}

/// A change of holder of a main role, recorded in the audit log (the regulator must be told of a
/// new Titular, RT or Supervisor within 30 days).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RoleChange {
    pub role: MainRole,
    pub from: Option<String>,
    pub to: Option<String>,
}

/// Applies incoming user links over the current ones (empty on create). Each main role has at
/// most one holder: a user newly given a main role replaces its previous holder, who keeps the
/// rest of their responsibilities; two new holders of one role are an error.
pub fn apply_user_links(
    current: &[UserLink],
    mut incoming: Vec<UserLink>,
) -> Result<(Vec<UserLink>, Vec<RoleChange>), Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let holders_of = |links: &[UserLink], role: MainRole| -> Vec<String> {
        links
            .iter()
            .filter(|l| l.responsibilities.iter().any(|r| r.main() == Some(role)))
            .map(|l| l.user_id.clone())
            .collect()
    };
    for &role in MainRole::ALL {
        let previous = holders_of(current, role);
        let new_holders: Vec<usize> = incoming
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                l.responsibilities.iter().any(|r| r.main() == Some(role))
                    && !previous.contains(&l.user_id)
            })
            .map(|(i, _)| i)
            .collect();
        match new_holders.as_slice() {
            [] => {}
            [winner] => {
                for (i, link) in incoming.iter_mut().enumerate() {
                    if i != *winner {
                        link.responsibilities.retain(|r| r.main() != Some(role));
                    }
                }
            }
            [_, rest @ ..] => {
                for &i in rest {
                    let k = incoming[i]
                        .responsibilities
                        .iter()
                        .position(|r| r.main() == Some(role))
                        .unwrap_or(0);
                    errs.push(
                        format!("users[{i}].responsabilities[{k}]"),
                        FieldCode::DuplicateRole,
                        format!("{role} can have only one holder per facility"),
                    );
                }
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs.into_vec());
    }
    let changes = MainRole::ALL
        .iter()
        .filter_map(|&role| {
            let before = holders_of(current, role).into_iter().next();
            let after = holders_of(&incoming, role).into_iter().next();
            (before != after).then_some(RoleChange {
                role,
                from: before,
                to: after,
            })
        })
        .collect();
    Ok((incoming, changes))
}

/// What the store knows of a referenced user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserState {
    Active,
    Inactive,
}

impl UserState {
    pub fn of(active: bool) -> Self {
        if active {
            UserState::Active
        } else {
            UserState::Inactive
        }
    }
}

/// A user a record refers to (in `field`) must exist (`state` is `None` when it does not) and be
/// active.
pub fn check_linked_user(
    field: impl Into<String>,
    user_id: &str,
    state: Option<UserState>,
) -> Option<FieldError> {
    match state {
        Some(UserState::Active) => None,
        Some(UserState::Inactive) => Some(FieldError::new(
            field,
            FieldCode::UserInactive,
            format!(
                "names user {user_id}, who is deactivated: reactivate the account, or name \
                 someone else"
            ),
        )),
        None => Some(FieldError::new(
            field,
            FieldCode::UserNotFound,
            format!("names no user with _id {user_id}"),
        )),
    }
}

/// Every linked user must exist and be active.
pub fn check_linked_users(
    links: &[UserLink],
    known: &BTreeMap<String, UserState>,
) -> Vec<FieldError> {
    links
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            check_linked_user(
                format!("users[{i}]._id"),
                &l.user_id,
                known.get(&l.user_id).copied(),
            )
        })
        .collect()
}

/// The cnpj cannot change once the facility is linked to records (equipment, documents, tests).
pub fn check_cnpj_lock(
    stored: &str,
    incoming: Option<&Cnpj>,
    linked_to_records: bool,
) -> Option<FieldError> {
    match incoming {
        Some(new) if new.as_str() != stored && linked_to_records => Some(FieldError::new(
            "cnpj",
            FieldCode::CnpjLocked,
            "cannot be changed: the facility is already linked to equipment, documents or tests",
        )),
        _ => None,
    }
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
