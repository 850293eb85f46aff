//! The CNPJ (Brazilian company tax id), numeric and the 2026 alphanumeric form.

use std::fmt;

/// A valid CNPJ: 14 characters, 12 of `0-9A-Z` then 2 numeric check digits, no punctuation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cnpj(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CnpjError {
    #[error("must be 14 characters without dots, dashes or slashes (got {0})")]
    Length(usize),
    #[error("must be written without punctuation or spaces: {bare}")]
    Punctuated { bare: String },
    #[error("may only contain digits and upper-case letters, with two digits at the end")]
    Characters,
    #[error("letters must be upper-case: {upper}")]
    LowerCase { upper: String },
    #[error("check digits do not match (expected {expected})")]
    CheckDigits { expected: String },
    #[error("is not a real CNPJ (all characters identical)")]
    Repeated,
}

const WEIGHTS_FIRST: [u32; 12] = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const WEIGHTS_SECOND: [u32; 13] = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

fn char_value(c: u8) -> u32 {
    u32::from(c) - 48
}

fn check_digit(chars: &[u8], weights: &[u32]) -> u8 {
    let sum: u32 = chars
        .iter()
        .zip(weights)
        .map(|(&c, &w)| char_value(c) * w)
        .sum();
    let r = sum % 11;
    if r < 2 { 0 } else { (11 - r) as u8 }
}

/// The two check digits for a 12-character base (`0-9A-Z`).
pub fn check_digits(base: &[u8; 12]) -> [u8; 2] {
    let first = check_digit(base, &WEIGHTS_FIRST);
    let mut with_first = [0u8; 13];
    with_first[..12].copy_from_slice(base);
    with_first[12] = b'0' + first;
    [first, check_digit(&with_first, &WEIGHTS_SECOND)]
}

impl Cnpj {
    pub fn parse(input: &str) -> Result<Self, CnpjError> {
        let bytes = input.as_bytes();
        if input
            .chars()
            .any(|c| matches!(c, '.' | '/' | '-') || c.is_whitespace())
        {
            let bare: String = input
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect();
            // The bare form is shown only when it is the valid CNPJ to send; else what is wrong
            // with it is.
            return Err(match Cnpj::parse(&bare) {
                Ok(_) => CnpjError::Punctuated { bare },
                Err(CnpjError::LowerCase { upper }) => CnpjError::Punctuated { bare: upper },
                Err(other) => other,
            });
        }
        let length = input.chars().count();
        if length != 14 {
            return Err(CnpjError::Length(length));
        }
        if !input.is_ascii() {
            return Err(CnpjError::Characters);
        }
        if input.bytes().any(|c| c.is_ascii_lowercase()) {
            let upper = input.to_ascii_uppercase();
            if Cnpj::parse(&upper).is_ok() {
                return Err(CnpjError::LowerCase { upper });
            }
        }
        let base_ok = bytes[..12]
            .iter()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase());
        let dv_ok = bytes[12..].iter().all(u8::is_ascii_digit);
        if !base_ok || !dv_ok {
            return Err(CnpjError::Characters);
        }
        if bytes.iter().all(|&c| c == bytes[0]) {
            return Err(CnpjError::Repeated);
        }
        let base: [u8; 12] = bytes[..12].try_into().expect("length checked");
        let [d1, d2] = check_digits(&base);
        if bytes[12] - b'0' != d1 || bytes[13] - b'0' != d2 {
            return Err(CnpjError::CheckDigits {
                expected: format!("{d1}{d2}"),
            });
        }
        Ok(Cnpj(input.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The conventional display form, `12.ABC.345/01DE-35`.
    pub fn formatted(&self) -> String {
        let s = &self.0;
        format!(
            "{}.{}.{}/{}-{}",
            &s[..2],
            &s[2..5],
            &s[5..8],
            &s[8..12],
            &s[12..]
        )
    }
}

/// The display form's shape: `X` an alphanumeric character, the rest its punctuation.
const MASK: &[u8; 18] = b"XX.XXX.XXX/XXXX-XX";

/// A search term that is a CNPJ written in its display form, whole or in part (`11.222.333`,
/// `345/01DE-35`): its characters without the punctuation, as CNPJs are stored and searched.
/// `None` for any other term. A term needs two punctuation marks in place and six characters
/// besides, so that what a name holds (`Av. 1.000`, `S/A`, `24/7`) is still searched as written.
pub fn search_form(term: &str) -> Option<String> {
    let term = term.trim().as_bytes();
    let marks = term.iter().filter(|c| b"./-".contains(c)).count();
    if term.len() > MASK.len() || marks < 2 || term.len() - marks < 6 {
        return None;
    }
    let fits = |at: usize| {
        term.iter().zip(&MASK[at..]).all(|(&c, &m)| match m {
            b'X' => c.is_ascii_alphanumeric(),
            mark => c == mark,
        })
    };
    (0..=MASK.len() - term.len()).any(fits).then(|| {
        term.iter()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|&c| char::from(c))
            .collect()
    })
}

impl fmt::Display for Cnpj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_punctuated_cnpj_is_searched_bare() {
        for (term, bare) in [
            ("11.222.333/0001-81", Some("11222333000181")),
            ("11.222.333", Some("11222333")),
            (" 222.333/0001 ", Some("2223330001")),
            ("12.ABC.345/01DE-35", Some("12ABC34501DE35")),
            ("345/01de-3", Some("34501de3")),
            ("345/01de", None),
            ("0001-81", None),
            ("S/A", None),
            ("24/7", None),
            ("/", None),
            ("1.2.3", None),
            ("Av. 1.000", None),
            ("1.000", None),
            ("S.A.", None),
            ("11.222.333/0001-810", None),
            ("11222333", None),
        ] {
            assert_eq!(search_form(term).as_deref(), bare, "{term:?}");
        }
    }

    #[test]
    fn published_examples_are_valid() {
        for ok in [
            "12ABC34501DE35",
            "AA345678000A29",
            "11222333000181",
            "00000000000191",
            "33000167000101",
        ] {
            assert!(Cnpj::parse(ok).is_ok(), "{ok} should be valid");
        }
    }

    #[test]
    fn traps_are_rejected() {
        let punctuated = |bare: &str| CnpjError::Punctuated { bare: bare.into() };
        let expected = |digits: &str| CnpjError::CheckDigits {
            expected: digits.into(),
        };
        for (cnpj, error) in [
            ("00000000000000", CnpjError::Repeated),
            ("A1B2C3D41A2B99", expected("62")),
            ("12.ABC.345/01DE-35", punctuated("12ABC34501DE35")),
            ("12abc34501de36", CnpjError::Characters),
            // Full-width digits are 14 characters, none of them allowed.
            ("１１２２２３３３０００１８１", CnpjError::Characters),
            (" 60701190000104\t", punctuated("60701190000104")),
            ("1122233300018", CnpjError::Length(13)),
            // Punctuation is named with the bare form only when that one is valid (upper-cased
            // when only its case is wrong); else what is wrong with it is.
            ("12.abc.345/01de-35", punctuated("12ABC34501DE35")),
            ("12.ABC.345/01DE-36", expected("35")),
            ("11.222.333/0001-8", CnpjError::Length(13)),
            ("112223330001AB", CnpjError::Characters),
        ] {
            assert_eq!(Cnpj::parse(cnpj), Err(error), "{cnpj:?}");
        }
        for (cnpj, message) in [
            (
                "11.222.333/0001-81",
                "must be written without punctuation or spaces: 11222333000181",
            ),
            // Lower-case letters are refused; the message shows the upper-case form when that one
            // is a valid CNPJ.
            (
                "12abc34501de35",
                "letters must be upper-case: 12ABC34501DE35",
            ),
        ] {
            assert_eq!(Cnpj::parse(cnpj).unwrap_err().to_string(), message);
        }
        assert!(matches!(
            Cnpj::parse("11222333000182"),
            Err(CnpjError::CheckDigits { .. })
        ));
    }

    #[test]
    fn formats_with_punctuation_for_display() {
        assert_eq!(
            Cnpj::parse("12ABC34501DE35").unwrap().formatted(),
            "12.ABC.345/01DE-35"
        );
    }

    fn base_strategy() -> impl Strategy<Value = [u8; 12]> {
        proptest::array::uniform12(prop_oneof![b'0'..=b'9', b'A'..=b'Z'])
    }

    proptest! {
        #[test]
        fn computed_check_digits_always_validate(base in base_strategy()) {
            let [d1, d2] = check_digits(&base);
            let s = format!("{}{d1}{d2}", std::str::from_utf8(&base).unwrap());
            let all_same = s.bytes().all(|c| c == s.as_bytes()[0]);
            prop_assert_eq!(Cnpj::parse(&s).is_ok(), !all_same);
        }

        #[test]
        fn any_wrong_check_digit_is_rejected(base in base_strategy(), wrong in 0u8..10, which in 0usize..2) {
            let mut dv = check_digits(&base);
            prop_assume!(dv[which] != wrong);
            dv[which] = wrong;
            let s = format!("{}{}{}", std::str::from_utf8(&base).unwrap(), dv[0], dv[1]);
            let rejected = matches!(Cnpj::parse(&s), Err(CnpjError::CheckDigits { .. }) | Err(CnpjError::Repeated));
            prop_assert!(rejected);
        }
    }
}
