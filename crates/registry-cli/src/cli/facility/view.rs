//! How facilities and their linked users are printed, for the facility commands and `user
//! facilities`.

use crate::cli::context::Fail;
use crate::cli::output::{self, Column, Format, or_empty};
use registry_core::MainRole;
use registry_core::api::{Facility, FacilityUserView};

/// The user holding `role` at `f`.
pub fn holder<'a>(f: &'a Facility, role: &str) -> Option<&'a FacilityUserView> {
    f.users
        .iter()
        .find(|u| u.responsabilities.iter().any(|r| r == role))
}

pub fn print_list(format: Format, facilities: &[Facility]) -> Result<(), Fail> {
    let rt = MainRole::TechnicalResponsible.as_str();
    print_list_with(format, facilities, rt, |f| {
        holder(f, rt).map(|u| u.name.clone()).unwrap_or_default()
    })
}

/// The list of facilities with a last column `last` of `cell` (the Responsável Técnico, or the
/// responsibilities of the user whose facilities they are).
pub fn print_list_with(
    format: Format,
    facilities: &[Facility],
    last: &str,
    cell: impl Fn(&Facility) -> String,
) -> Result<(), Fail> {
    // On a narrow terminal: the name, what tells apart facilities of one cnpj (its department)
    // and `last` first; the 36-character _id only where it still fits.
    output::print_list_ranked(
        format,
        facilities,
        &["_id", "name", "cnpj", "department", "city", "state", last],
        &["name", "cnpj", "department", last],
        |f| {
            let a = f.address.first();
            vec![
                f.id.clone(),
                f.name.clone(),
                f.cnpj.clone(),
                f.department.to_string(),
                a.map(|a| a.city.clone()).unwrap_or_default(),
                a.map(|a| a.state.clone()).unwrap_or_default(),
                cell(f),
            ]
        },
    )?;
    Ok(())
}

/// `Name <email>: responsibilities`, or `Name <email>` for a user linked without one; a
/// deactivated user is said to be (`Name <email> (deactivated): …`).
pub fn user_line(u: &FacilityUserView) -> String {
    let state = if u.active { "" } else { " (deactivated)" };
    let who = format!("{} <{}>{state}", u.name, u.email);
    if u.responsabilities.is_empty() {
        return who;
    }
    format!("{who}: {}", u.responsabilities.join(", "))
}

pub fn show(format: Format, f: &Facility) -> Result<(), Fail> {
    let address = f
        .address
        .iter()
        .map(|a| {
            let mut s = format!("{}, {} - {}", a.street, a.city, a.state);
            if let Some(c) = &a.complement {
                s = format!("{s} ({c})");
            }
            if let Some(z) = &a.zip_code {
                s = format!("{s} {z}");
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n");
    let fields = vec![
        ("_id", f.id.clone()),
        ("name", f.name.clone()),
        ("companyName", f.company_name.clone()),
        ("cnpj", f.cnpj.clone()),
        ("telephone", f.telephone.clone()),
        ("department", f.department.to_string()),
        (
            "group",
            f.group.as_ref().map(|g| g.name.clone()).unwrap_or_default(),
        ),
        ("address", address),
        ("CNENregistry", or_empty(&f.cnen_registry)),
        (
            "practices",
            f.practices
                .iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        (
            "radioisotopes",
            f.radioisotopes
                .iter()
                .map(|r| format!("{} {} mCi/week", r.name, r.quantity))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        (
            "users",
            f.users.iter().map(user_line).collect::<Vec<_>>().join("\n"),
        ),
        ("version", f.version.to_string()),
        ("updatedAt", output::brasilia(&f.updated_at)),
    ];
    output::print_record(format, f, fields)?;
    Ok(())
}

const USER_COLUMNS: &[Column<FacilityUserView>] = &[
    ("_id", |u| u.id.clone()),
    ("name", |u| u.name.clone()),
    ("email", |u| u.email.clone()),
    ("responsabilities", |u| u.responsabilities.join(", ")),
    ("AN licence", |u| {
        join_licence(&u.licences.an_number, &u.licences.an_validity)
    }),
    ("FM licence", |u| {
        join_licence(&u.licences.fm_number, &u.licences.fm_validity)
    }),
    ("active", |u| output::yes_no(u.active)),
];

/// On a narrow terminal what a link is about comes first; the `_id` (users are named by e-mail
/// or name too) is the first left out.
const USER_RANK: &[&str] = &[
    "name",
    "responsabilities",
    "email",
    "active",
    "AN licence",
    "FM licence",
];

pub fn print_users(format: Format, users: &[FacilityUserView]) -> Result<(), Fail> {
    output::print_table_ranked(format, users, USER_COLUMNS, USER_RANK)?;
    Ok(())
}

fn join_licence(number: &Option<String>, validity: &Option<String>) -> String {
    match (number, validity) {
        (Some(n), Some(v)) => format!("{n} (until {v})"),
        (Some(n), None) => n.clone(),
        (None, Some(v)) => format!("until {v}"),
        (None, None) => String::new(),
    }
}

/// After a change of links: the users (table, CSV) or the whole facility (JSON).
pub fn show_or_users(format: Format, f: &Facility) -> Result<(), Fail> {
    match format {
        Format::Table | Format::Csv => print_users(format, &f.users),
        Format::Json => show(format, f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_linked_without_a_responsibility_has_no_colon() {
        let mut u: FacilityUserView = serde_json::from_value(serde_json::json!({
            "_id": "u1", "responsabilities": [], "name": "Ana Souza", "email": "ana@clinica.com.br"
        }))
        .unwrap();
        assert_eq!(user_line(&u), "Ana Souza <ana@clinica.com.br>");
        u.responsabilities = vec!["Titular".into(), "Substituto".into()];
        assert_eq!(
            user_line(&u),
            "Ana Souza <ana@clinica.com.br>: Titular, Substituto"
        );
        u.active = false;
        assert_eq!(
            user_line(&u),
            "Ana Souza <ana@clinica.com.br> (deactivated): Titular, Substituto"
        );
    }
    use registry_core::api::FacilityUserView;

    #[test]
    fn a_facilitys_users_at_80_columns_show_their_responsibilities_before_their_id() {
        let user: FacilityUserView = serde_json::from_value(serde_json::json!({
            "_id": "01a2163f-7238-7d2c-9eb7-e2c77463a94e",
            "name": "Ana Souza",
            "email": "ana@clinica.com.br",
            "responsabilities": ["Titular", "Responsável Técnico"],
            "ANLicenseNumber": "AN-1234",
        }))
        .unwrap();
        let text = output::table_at(80, &[user], USER_COLUMNS, USER_RANK);
        assert!(text.contains("Responsável"), "{text}");
        assert!(text.contains("ana@clinica.com.br"), "{text}");
        assert!(!text.contains("01a2163f"), "{text}");
    }
}
