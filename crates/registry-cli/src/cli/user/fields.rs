//! The user fields of `create` and `edit` as flags, and as the API's user payload.

use crate::cli::context::Fail;
use crate::cli::flag_terms::FlagTerms;
use crate::cli::offered;
use clap::Args;
use registry_core::Role;
use registry_core::api::{Licences, UserInput};
use registry_core::user::read_user;
use serde_json::json;

#[derive(Debug, Args)]
pub struct UserFields {
    /// Full name.
    #[arg(long)]
    name: Option<String>,
    /// E-mail (the login; unique).
    #[arg(long)]
    email: Option<String>,
    /// Telephone with the area code, e.g. "(11) 98765-4321".
    #[arg(long)]
    telephone: Option<String>,
    /// CPF (optional; checked).
    #[arg(long)]
    cpf: Option<String>,
    /// A role (repeat for several): Administrator, Admin, Físico, Laudos, Cliente (another
    /// value: exit 4).
    #[arg(long = "role", value_parser = offered::roles(), hide_possible_values = true)]
    pub roles: Vec<String>,
    /// Number of the AN licence.
    #[arg(long = "an-license-number")]
    an_number: Option<String>,
    /// Validity of the AN licence, YYYY-MM-DD.
    #[arg(long = "an-license-validity")]
    an_validity: Option<String>,
    /// Number of the FM licence.
    #[arg(long = "fm-license-number")]
    fm_number: Option<String>,
    /// Validity of the FM licence, YYYY-MM-DD.
    #[arg(long = "fm-license-validity")]
    fm_validity: Option<String>,
}

/// The API's name of each field a flag gives, and the flag.
const FLAGS: &str = "name --name
    email --email
    telephone --telephone
    cpf --cpf
    ANLicenseNumber --an-license-number
    ANLicenseValidity --an-license-validity
    FMLicenseNumber --fm-license-number
    FMLicenseValidity --fm-license-validity";

impl UserFields {
    /// Whether any field was given as a flag.
    pub fn any_field(&self) -> bool {
        [
            &self.name,
            &self.email,
            &self.telephone,
            &self.cpf,
            &self.an_number,
            &self.an_validity,
            &self.fm_number,
            &self.fm_validity,
        ]
        .iter()
        .any(|f| f.is_some())
            || !self.roles.is_empty()
    }

    /// The user's fields in the terms of the flags that gave them (`ANLicenseValidity` →
    /// `--an-license-validity`, `roles[1]` → ``--role `Fisico` ``), for refusals.
    pub fn terms(&self) -> FlagTerms {
        let mut terms = FlagTerms::default();
        if let Ok(given) = serde_json::to_value(self.input_unchecked()) {
            terms.given_in_table(FLAGS, &given);
        }
        terms.each("roles", "--role", &self.roles);
        terms
    }

    /// The roles given, each checked by the server's own reader: an unknown one is refused
    /// (exit 4, naming the allowed values) before anything is asked or sent, together with
    /// every other field given that the reader refuses (`--email`, `--telephone`, `--cpf`, the
    /// licences' dates…), so one run names them all.
    pub fn roles(&self) -> Result<Vec<Role>, Fail> {
        read_user(&json!({ "roles": self.roles }), false)
            .map(|changes| changes.roles.unwrap_or_default())
            .map_err(|_| {
                let errors = read_user(&self.given(), false).err().unwrap_or_default();
                self.terms().apply(Fail::Invalid(errors))
            })
    }

    /// Whether every `--role` given is one of the roles.
    pub fn roles_known(&self) -> bool {
        read_user(&json!({ "roles": self.roles }), false).is_ok()
    }

    /// The fields given as the API names them, the roles as typed (unchecked), for a check by
    /// `read_user` that names every refused one at once.
    pub fn given(&self) -> serde_json::Value {
        let mut given = serde_json::to_value(self.input_unchecked()).unwrap_or_default();
        if !self.roles.is_empty() {
            given["roles"] = json!(self.roles);
        }
        given
    }

    /// The payload of the fields given (absent ones are left out); the roles checked by
    /// [`UserFields::roles`].
    pub fn input(&self) -> Result<UserInput, Fail> {
        let roles = self.roles()?;
        Ok(UserInput {
            roles: Some(roles).filter(|r| !r.is_empty()),
            ..self.input_unchecked()
        })
    }

    /// The fields given, the roles left out.
    fn input_unchecked(&self) -> UserInput {
        UserInput {
            name: self.name.clone(),
            email: self.email.clone(),
            telephone: self.telephone.clone(),
            cpf: self.cpf.clone(),
            licences: Licences {
                an_number: self.an_number.clone(),
                an_validity: self.an_validity.clone(),
                fm_number: self.fm_number.clone(),
                fm_validity: self.fm_validity.clone(),
            },
            ..UserInput::default()
        }
    }
}
