//! The user fields of `create` and `edit` as flags, and as the API's user payload.

use clap::Args;
use registry_core::Role;
use registry_core::api::{Licences, UserInput};

#[derive(Debug, Args)]
pub struct UserFields {
    #[arg(long)]
    name: Option<String>,
    #[arg(long)]
    email: Option<String>,
    #[arg(long)]
    telephone: Option<String>,
    #[arg(long)]
    cpf: Option<String>,
    /// A role (repeat for several): Administrator, Admin, Físico, Laudos, Cliente.
    #[arg(long = "role", value_parser = parse_role)]
    roles: Vec<Role>,
    #[arg(long = "an-license-number")]
    an_number: Option<String>,
    #[arg(long = "an-license-validity")]
    an_validity: Option<String>,
    #[arg(long = "fm-license-number")]
    fm_number: Option<String>,
    #[arg(long = "fm-license-validity")]
    fm_validity: Option<String>,
}

pub fn parse_role(s: &str) -> Result<Role, String> {
    Role::parse(s).ok_or_else(|| format!("must be one of: {}", Role::allowed()))
}

impl UserFields {
    /// The payload of the fields given (absent ones are left out).
    pub fn input(&self) -> UserInput {
        UserInput {
            name: self.name.clone(),
            email: self.email.clone(),
            telephone: self.telephone.clone(),
            cpf: self.cpf.clone(),
            roles: Some(self.roles.clone()).filter(|r| !r.is_empty()),
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
