//! The facility registry's domain: values valid by construction, the facility rules, the API's
//! shared request/response types and its error envelope. No IO.

pub mod api;
pub mod audit;
pub mod cnpj;
pub mod document;
pub mod equipment;
pub mod error;
pub mod facility;
pub mod group;
pub mod inputs;
pub mod json;
pub mod material;
pub mod notice;
pub mod nuclide;
pub mod payload;
pub mod qc;
pub mod text;
pub mod time;
pub mod user;
pub mod values;
pub mod waste;

pub use cnpj::{Cnpj, CnpjError};
pub use error::{ErrorBody, FieldCode, FieldError, FieldErrors};
pub use nuclide::Nuclide;
pub use values::{Department, MainRole, Practice, Radioisotope, Responsibility, Role};
