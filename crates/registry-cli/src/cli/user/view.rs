//! How users are printed.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Column, or_empty};
use registry_core::api::User;

const COLUMNS: &[Column<User>] = &[
    ("_id", |u| u.id.clone()),
    ("name", |u| u.name.clone()),
    ("email", |u| u.email.clone()),
    ("roles", roles),
    ("active", |u| output::yes_no(u.active)),
];

fn roles(u: &User) -> String {
    u.roles
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn print_list(ctx: &Ctx, users: &[User]) -> Result<(), Fail> {
    output::print_table(ctx.format, users, COLUMNS)?;
    Ok(())
}

pub fn show(ctx: &Ctx, u: &User) -> Result<(), Fail> {
    let l = &u.licences;
    output::print_record(
        ctx.format,
        u,
        vec![
            ("_id", u.id.clone()),
            ("name", u.name.clone()),
            ("email", u.email.clone()),
            ("telephone", or_empty(&u.telephone)),
            ("cpf", or_empty(&u.cpf)),
            ("roles", roles(u)),
            ("active", output::yes_no(u.active)),
            ("ANLicenseNumber", or_empty(&l.an_number)),
            ("ANLicenseValidity", or_empty(&l.an_validity)),
            ("FMLicenseNumber", or_empty(&l.fm_number)),
            ("FMLicenseValidity", or_empty(&l.fm_validity)),
        ],
    )?;
    Ok(())
}
