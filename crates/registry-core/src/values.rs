//! Field values of the registry that are valid by construction: enums with the spec's exact
//! strings, and newtypes whose only constructor is a `parse` that checks the rule. Those that
//! name and reach a person (telephone, e-mail, CPF, the password policy) are in `contact`.

use serde::{Deserialize, Serialize};

mod contact;

pub use contact::{Cpf, Email, Telephone, password_problem};

/// Declares an enum whose wire form is the spec's exact (Portuguese) string.
macro_rules! spec_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name { $(#[serde(rename = $text)] $variant),+ }

        // Written by hand: `#[derive(ToSchema)]` does not see a `serde(rename)` whose value comes
        // from a macro argument, and documented the Rust variant names instead of the wire values.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(s: &str) -> Option<Self> {
                // Text fields are trimmed (docs/decisions.md), these values too.
                match s.trim() { $($text => Some($name::$variant),)+ _ => None }
            }

            /// As [`Self::parse`], in any case, with or without accents and with any run of
            /// white space as one space (`medicina  nuclear`): how the lists read their filters.
            pub fn parse_loosely(s: &str) -> Option<Self> {
                let wanted = $crate::text::search_key(s.trim());
                Self::ALL.iter().copied().find(|v| $crate::text::search_key(v.as_str()) == wanted)
            }

            /// The allowed values, for error messages and prompts.
            pub fn allowed() -> String {
                $crate::values::names_of(Self::ALL, Self::as_str)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result { f.write_str(self.as_str()) }
        }
    };
}
pub(crate) use spec_enum;

/// The names of `all`, comma-separated: the allowed values, for error messages and prompts.
pub fn names_of<T: Copy, S: std::fmt::Display>(all: &[T], name: impl Fn(T) -> S) -> String {
    all.iter()
        .map(|&v| name(v).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

spec_enum!(
    /// The two departments a facility belongs to.
    Department { NuclearMedicine => "Medicina Nuclear", Radiodiagnosis => "Radiodiagnóstico" }
);

spec_enum!(
    /// Practices a facility may be authorised for (spec §2.5).
    Practice {
        InpatientTherapy => "Terapia com Internação",
        OutpatientTherapy => "Terapia Ambulatorial",
        Diagnosis => "Diagnóstico",
    }
);

spec_enum!(
    /// Radioisotopes a facility may be authorised for (spec §2.4). `Ra(233)` is kept exactly as the
    /// spec writes it; the therapeutic isotope in use is Ra-223 and the spec's value is most likely a typo.
    Radioisotope {
        C11 => "C(11)", Cr51 => "Cr(51)", F18 => "F(18)", Ga67 => "Ga(67)", Ga68 => "Ga(68)",
        I123 => "I(123)", I125 => "I(125)", I131 => "I(131)", In111 => "In(111)", Lu177 => "Lu(177)",
        Ra233 => "Ra(233)", Sm153 => "Sm(153)", Tc99m => "Tc(99m)", Tl201 => "Tl(201)", Y90 => "Y(90)",
    }
);

spec_enum!(
    /// The four main responsibilities; each has at most one holder per facility.
    MainRole {
        Titular => "Titular",
        TechnicalResponsible => "Responsável Técnico",
        Substitute => "Substituto",
        Supervisor => "Supervisor",
    }
);

spec_enum!(
    /// User roles: four staff roles and the facility-side `Cliente`.
    Role { Administrator => "Administrator", Admin => "Admin", Physicist => "Físico", Reports => "Laudos", Client => "Cliente" }
);

impl Role {
    pub fn is_staff(self) -> bool {
        self != Role::Client
    }
}

/// A responsibility a user holds at a facility: one of the four main roles, or a custom value
/// configured by the deployer (`REGISTRY_EXTRA_RESPONSIBILITIES`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Responsibility {
    Main(MainRole),
    Custom(String),
}

impl Responsibility {
    /// Accepts the four main roles and any of `extra` (exact match).
    pub fn parse(s: &str, extra: &[String]) -> Option<Self> {
        MainRole::parse(s).map(Responsibility::Main).or_else(|| {
            extra
                .iter()
                .any(|e| e == s)
                .then(|| Responsibility::Custom(s.to_owned()))
        })
    }

    pub fn as_str(&self) -> &str {
        match self {
            Responsibility::Main(r) => r.as_str(),
            Responsibility::Custom(s) => s,
        }
    }

    pub fn main(&self) -> Option<MainRole> {
        match self {
            Responsibility::Main(r) => Some(*r),
            Responsibility::Custom(_) => None,
        }
    }
}

impl Serialize for Responsibility {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Authorised weekly activity in mCi: a finite number greater than zero.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
pub struct WeeklyQuantity(f64);

impl WeeklyQuantity {
    /// What a refused quantity is told, wherever it is typed (a body, a flag, a prompt).
    pub const RULE: &'static str = "must be a positive number of mCi per week from 0.001 to 1000000, with a dot as decimal separator (e.g. 12.5)";

    /// From a JSON value: a number, or a string of digits with an optional dot decimal part.
    /// Commas, exponents in strings, signs and any other characters are refused.
    pub fn from_json(v: &serde_json::Value) -> Option<Self> {
        decimal_from_json(v).and_then(Self::new)
    }

    /// The smallest authorised weekly quantity accepted: 0.001 mCi (37 kBq). Smaller positive
    /// numbers (down to subnormal floats such as 1e-320) are typing errors, not authorisations.
    pub const MIN_MCI: f64 = 0.001;
    /// The largest: 1,000,000 mCi (1,000 Ci) a week, far above any licence.
    pub const MAX_MCI: f64 = 1_000_000.0;

    pub fn new(n: f64) -> Option<Self> {
        (Self::MIN_MCI..=Self::MAX_MCI)
            .contains(&n)
            .then_some(WeeklyQuantity(n))
    }

    /// A quantity read back from storage: any positive number is kept as it was stored (one saved
    /// before the bounds of [`WeeklyQuantity::new`] existed must not make its facility unreadable).
    pub fn stored(n: f64) -> Option<Self> {
        (n.is_finite() && n > 0.0).then_some(WeeklyQuantity(n))
    }

    pub fn mci(self) -> f64 {
        self.0
    }

    /// The same activity in MBq (1 mCi = 37 MBq exactly).
    pub fn mbq(self) -> f64 {
        self.0 * 37.0
    }
}

/// How every instant is written in the API and stored: RFC 3339 in UTC, to the microsecond.
pub fn timestamp(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A number from JSON the way quantities are written: a JSON number, or a string of digits with an
/// optional dot decimal part (commas, exponents in strings, signs and other characters refused).
fn decimal_from_json(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => {
            let (int, frac) = match s.split_once('.') {
                Some((i, f)) => (i, Some(f)),
                None => (s.as_str(), None),
            };
            let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            if !digits(int) || frac.is_some_and(|f| !digits(f)) {
                return None;
            }
            s.parse().ok()
        }
        _ => None,
    }
}

/// A positive measured amount (an activity in mCi, a mass in kg), written as quantities are,
/// from 10⁻⁹ to 10⁹: wide enough for any real measurement, narrow enough to refuse typing errors
/// such as `1e300` or subnormal numbers. (Authorised weekly quantities have their own, narrower
/// bounds: [`WeeklyQuantity`].)
pub fn positive_amount(v: &serde_json::Value) -> Option<f64> {
    decimal_from_json(v).filter(|n| (1e-9..=1e9).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn enums_use_the_spec_strings() {
        assert_eq!(
            serde_json::to_value(Department::Radiodiagnosis).unwrap(),
            json!("Radiodiagnóstico")
        );
        assert_eq!(
            Department::parse("Medicina Nuclear"),
            Some(Department::NuclearMedicine)
        );
        assert_eq!(Department::parse("medicina nuclear"), None);
        assert_eq!(Radioisotope::ALL.len(), 15);
        assert_eq!(Radioisotope::parse("Tc(99m)"), Some(Radioisotope::Tc99m));
        assert_eq!(Radioisotope::parse("Ra(233)"), Some(Radioisotope::Ra233));
        assert_eq!(Radioisotope::parse("Tc-99m"), None);
        assert_eq!(
            Practice::parse("Terapia com Internação"),
            Some(Practice::InpatientTherapy)
        );
        assert_eq!(Role::parse("Físico"), Some(Role::Physicist));
        assert!(!Role::Client.is_staff() && Role::Reports.is_staff());
    }

    #[test]
    fn filters_read_a_value_in_any_case_accents_and_white_space() {
        assert_eq!(
            Department::parse_loosely(" MEDICINA\u{a0}\u{a0}nuclear "),
            Some(Department::NuclearMedicine)
        );
        assert_eq!(
            Practice::parse_loosely("terapia com internacao"),
            Some(Practice::InpatientTherapy)
        );
        assert_eq!(Role::parse_loosely("fisico"), Some(Role::Physicist));
        assert_eq!(Role::parse_loosely("Fisica"), None);
        assert_eq!(Practice::parse_loosely("Terapia"), None);
    }

    #[test]
    fn responsibilities_accept_configured_custom_values_only() {
        let extra = vec!["Físico Médico".to_owned()];
        assert_eq!(
            Responsibility::parse("Responsável Técnico", &[]),
            Some(Responsibility::Main(MainRole::TechnicalResponsible))
        );
        assert_eq!(
            Responsibility::parse("Físico Médico", &extra),
            Some(Responsibility::Custom("Físico Médico".into()))
        );
        assert_eq!(Responsibility::parse("Físico Médico", &[]), None);
        assert_eq!(Responsibility::parse("titular", &[]), None);
    }

    #[test]
    fn quantities() {
        let q = |v: serde_json::Value| WeeklyQuantity::from_json(&v).map(WeeklyQuantity::mci);
        assert_eq!(q(json!(10)), Some(10.0));
        assert_eq!(q(json!(0.5)), Some(0.5));
        assert_eq!(q(json!("12.75")), Some(12.75));
        assert_eq!(q(json!("3")), Some(3.0));
        for bad in [
            json!("12,5"),
            json!(0),
            json!(-1),
            json!("-1"),
            json!("abc"),
            json!("NaN"),
            json!(""),
            json!("1e3"),
            json!(" 5"),
            json!("5."),
            json!(".5"),
            json!(null),
            json!(true),
            json!("0.0"),
        ] {
            assert_eq!(q(bad.clone()), None, "{bad} must be refused");
        }
        assert_eq!(WeeklyQuantity::new(2.0).unwrap().mbq(), 74.0);
        // Bounds: 0.001 to 1,000,000 mCi a week.
        for bad in [
            0.0,
            -1.0,
            1e-320,
            0.000_999,
            1e300,
            1_000_000.5,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert!(WeeklyQuantity::new(bad).is_none(), "{bad} accepted");
        }
        for good in [0.001, 1.0, 1_000_000.0] {
            assert!(WeeklyQuantity::new(good).is_some(), "{good} refused");
        }
        // Measured amounts are wider, but still bounded.
        assert_eq!(positive_amount(&json!(0.000_001)), Some(0.000_001));
        assert_eq!(positive_amount(&json!("2.5")), Some(2.5));
        for bad in [
            json!(0),
            json!(-1),
            json!(1e-320),
            json!(1e300),
            json!("1,5"),
            json!("1e3"),
        ] {
            assert_eq!(positive_amount(&bad), None, "{bad} accepted");
        }
    }

    proptest! {
        #[test]
        fn decimal_strings_round_trip(int in 0u32..100_000, frac in 0u32..10_000) {
            let s = format!("{int}.{frac:04}");
            let expected: f64 = s.parse().unwrap();
            let got = WeeklyQuantity::from_json(&serde_json::Value::String(s.clone()));
            prop_assert_eq!(got.map(WeeklyQuantity::mci), (expected >= WeeklyQuantity::MIN_MCI).then_some(expected));
        }

        #[test]
        fn a_comma_is_never_accepted(int in 0u32..100_000, frac in 0u32..10_000) {
            let s = format!("{int},{frac}");
            prop_assert!(WeeklyQuantity::from_json(&serde_json::Value::String(s)).is_none());
        }

        #[test]
        fn positive_numbers_are_accepted(n in WeeklyQuantity::MIN_MCI..=WeeklyQuantity::MAX_MCI) {
            prop_assert_eq!(WeeklyQuantity::from_json(&serde_json::json!(n)).map(WeeklyQuantity::mci), Some(n));
        }
    }
}
