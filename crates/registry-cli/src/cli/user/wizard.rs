//! The user wizards at a terminal: the roles picked among those the caller may grant, and
//! `user edit` without field flags walking every field with the stored value to keep or change.

use crate::cli::changes::Changes;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{auth, output, prompt, rules};
use registry_core::Role;
use registry_core::api::User;
use registry_core::user::may_grant;
use serde_json::json;

/// At the terminal: roles picked among those the caller may grant (product.md §3: an
/// Administrator any, other staff only `Cliente`), those of `marked` marked at the start: the
/// user gets what the person marks, and `Cliente` when nothing is marked. Nothing is asked
/// (`None`) when `Cliente` is all the caller may grant (or nobody is logged in:
/// self-registration).
pub async fn ask_roles(ctx: &Ctx, marked: &[Role]) -> Result<Option<Vec<Role>>, Fail> {
    let Some(me) = auth::caller(ctx).await? else {
        return Ok(None);
    };
    let grantable: Vec<Role> = Role::ALL
        .iter()
        .copied()
        .filter(|r| may_grant(&me.roles, *r))
        .collect();
    if grantable.iter().all(|r| *r == Role::Client) {
        return Ok(None);
    }
    let items: Vec<&str> = grantable.iter().map(|r| r.as_str()).collect();
    let marks: Vec<bool> = grantable.iter().map(|r| marked.contains(r)).collect();
    let chosen = prompt::multi_select("Roles", &items, &marks)?;
    if chosen.is_empty() {
        output::note("No role marked: the user is a Cliente.");
        return Ok(Some(vec![Role::Client]));
    }
    Ok(Some(chosen.into_iter().map(|i| grantable[i]).collect()))
}

/// Walks every field of `u` with the stored value to keep or change; an emptied optional field
/// is cleared. The roles are asked only of a caller who may grant more than `Cliente`.
pub async fn edit(ctx: &Ctx, u: &User) -> Result<Changes, Fail> {
    let mut c = Changes::default();
    c.text("name", "Name", &u.name, &rules::not_empty)?;
    c.text("email", "E-mail", &u.email, &rules::email)?;
    let telephone = rules::user_field("telephone");
    let stored = u.telephone.as_deref();
    c.optional(
        "telephone",
        "Telephone with area code",
        stored,
        Some(&telephone),
    )?;
    let cpf = rules::user_field("cpf");
    c.optional("cpf", "CPF", u.cpf.as_deref(), Some(&cpf))?;
    if let Some(roles) = ask_roles(ctx, &u.roles).await? {
        let same = roles.len() == u.roles.len() && roles.iter().all(|r| u.roles.contains(r));
        c.put_if(!same, "roles", json!(roles));
    }
    let l = &u.licences;
    for (key, label, stored) in [
        ("ANLicenseNumber", "AN licence number", &l.an_number),
        (
            "ANLicenseValidity",
            "AN licence valid until (YYYY-MM-DD)",
            &l.an_validity,
        ),
        ("FMLicenseNumber", "FM licence number", &l.fm_number),
        (
            "FMLicenseValidity",
            "FM licence valid until (YYYY-MM-DD)",
            &l.fm_validity,
        ),
    ] {
        let check = rules::user_field(key);
        c.optional(key, label, stored.as_deref(), Some(&check))?;
    }
    Ok(c)
}
