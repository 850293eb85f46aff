//! How users are printed.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Rows};
use registry_core::api::User;

fn roles(u: &User) -> String {
    u.roles
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn print_list(ctx: &Ctx, users: &[User]) -> Result<(), Fail> {
    let cells = users
        .iter()
        .map(|u| {
            vec![
                u.id.clone(),
                u.name.clone(),
                u.email.clone(),
                roles(u),
                if u.active { "yes" } else { "no" }.into(),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: users,
            headers: &["_id", "name", "email", "roles", "active"],
            cells,
        },
    )?;
    Ok(())
}

pub fn show(ctx: &Ctx, u: &User) -> Result<(), Fail> {
    let l = &u.licences;
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    output::print_record(
        ctx.format,
        u,
        vec![
            ("_id", u.id.clone()),
            ("name", u.name.clone()),
            ("email", u.email.clone()),
            ("telephone", opt(&u.telephone)),
            ("cpf", opt(&u.cpf)),
            ("roles", roles(u)),
            ("active", u.active.to_string()),
            ("ANLicenseNumber", opt(&l.an_number)),
            ("ANLicenseValidity", opt(&l.an_validity)),
            ("FMLicenseNumber", opt(&l.fm_number)),
            ("FMLicenseValidity", opt(&l.fm_validity)),
        ],
    )?;
    Ok(())
}
