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

/// On a narrow terminal the `_id` is the first left out: a user is named by e-mail or name too.
const RANK: &[&str] = &["name", "email", "roles", "active"];

pub fn print_list(ctx: &Ctx, users: &[User]) -> Result<(), Fail> {
    output::print_table_ranked(ctx.format, users, COLUMNS, RANK)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_list_at_80_columns_shows_roles_before_ids() {
        let user: User = serde_json::from_value(serde_json::json!({
            "_id": "01a2163f-7238-7d2c-9eb7-e2c77463a94e",
            "name": "Bruno Lima de Albuquerque",
            "email": "bruno.lima@clinica-boa-vista.com.br",
            "roles": ["Físico", "Cliente"],
            "active": true,
            "createdAt": "2026-11-26T10:00:00Z",
            "updatedAt": "2026-11-26T10:00:00Z",
        }))
        .unwrap();
        let text = output::table_at(80, &[user], COLUMNS, RANK);
        assert!(text.contains("Físico"), "{text}");
        assert!(!text.contains("01a2163f"), "{text}");
    }
}
