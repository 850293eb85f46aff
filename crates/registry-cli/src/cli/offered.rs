//! Flags whose values come from a fixed set (practices, radioisotopes, roles, states…) offer that
//! set to shell completion (`registry completions`) without clap refusing other values: the
//! command itself checks the value and names the allowed ones (exit 4, docs/cli.md), as for the
//! values typed at a prompt.

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use registry_core::document::DocumentStatus;
use registry_core::equipment::DueState;
use registry_core::notice::NoticeKind;
use registry_core::{Department, MainRole, Practice, Radioisotope, Role};
use std::ffi::OsStr;

/// A value parser that takes any text and offers `values` to completion.
#[derive(Clone, Copy)]
pub struct Offered(fn() -> Vec<&'static str>);

impl TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter().map(PossibleValue::new)))
    }
}

/// The wire strings of a spec enum's values.
macro_rules! offered {
    ($(#[$meta:meta])* $name:ident, $values:expr) => {
        $(#[$meta])*
        pub fn $name() -> Offered {
            Offered(|| $values.iter().map(|v| v.as_str()).collect())
        }
    };
}

offered!(departments, Department::ALL);
offered!(practices, Practice::ALL);
offered!(radioisotopes, Radioisotope::ALL);
offered!(roles, Role::ALL);
offered!(responsibilities, MainRole::ALL);
offered!(document_statuses, DocumentStatus::ALL);
offered!(due_states, DueState::ALL);
offered!(notice_kinds, NoticeKind::ALL);

/// The states' abbreviations (a full name is accepted too).
pub fn states() -> Offered {
    Offered(|| registry_core::text::state_abbreviations().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Probe {
        #[arg(long, value_parser = practices(), hide_possible_values = true)]
        practice: Option<String>,
    }

    #[test]
    fn offers_the_set_to_completion_and_leaves_other_values_to_the_command() {
        let offered: Vec<String> = Probe::command()
            .get_arguments()
            .find(|a| a.get_id() == "practice")
            .unwrap()
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_owned())
            .collect();
        assert_eq!(
            offered,
            [
                "Terapia com Internação",
                "Terapia Ambulatorial",
                "Diagnóstico"
            ]
        );
        let probe = Probe::try_parse_from(["probe", "--practice", "Cirurgia"]).unwrap();
        assert_eq!(probe.practice.as_deref(), Some("Cirurgia"));
    }

    #[test]
    fn states_are_the_27_abbreviations() {
        let Offered(values) = states();
        let values = values();
        assert_eq!(values.len(), 27);
        assert!(values.contains(&"DF") && values.contains(&"SP"));
    }
}
