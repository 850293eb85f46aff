//! The values that name and reach a person: telephone numbers, e-mail addresses, CPFs, and the
//! password policy.

use serde::Serialize;

/// A telephone number that includes the area code: after removing spaces, `()` and `-`, 10–11
/// digits, optionally preceded by `+55`. Stored as given, trimmed. A space is any white space
/// (the non-breaking one of a number copied from a web page, a tab) and a `-` any hyphen or dash
/// (U+2010–U+2015, the minus sign), as a word processor writes them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Telephone(String);

impl Telephone {
    pub fn parse(s: &str) -> Option<Self> {
        let trimmed = crate::text::trim(s);
        let compact: String = trimmed
            .chars()
            .filter(|&c| {
                !(c.is_whitespace()
                    || matches!(c, '(' | ')' | '-' | '\u{2010}'..='\u{2015}' | '\u{2212}'))
            })
            .collect();
        let digits = compact.strip_prefix("+55").unwrap_or(&compact);
        let ok = (10..=11).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
        ok.then(|| Telephone(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An e-mail address, stored lower-case: a dot-atom local part (letters, digits and
/// ``!#$%&'*+/=?^_`{|}~-``, dots between them) and a domain of dot-separated labels (letters,
/// digits, inner hyphens) — what a mail server takes, so that an address accepted here is one the
/// e-mail worker can send to (quoted local parts and address literals are refused).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Email(String);

impl Email {
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim().to_lowercase();
        let (local, domain) = s.split_once('@')?;
        let atom = |part: &str, ok: fn(char) -> bool| {
            !part.is_empty() && part.split('.').all(|p| !p.is_empty() && p.chars().all(ok))
        };
        let local_char = |c: char| c.is_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c);
        let label_char = |c: char| c.is_alphanumeric() || c == '-';
        let ok = s.len() <= 254
            && atom(local, local_char)
            && atom(domain, label_char)
            && domain.contains('.')
            && domain
                .split('.')
                .all(|label| !label.starts_with('-') && !label.ends_with('-'));
        ok.then_some(Email(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The password policy: at least 8 characters, at most 256, not only spaces.
pub fn password_problem(p: &str) -> Option<&'static str> {
    let n = p.chars().count();
    if n < 8 {
        Some("must have at least 8 characters")
    } else if n > crate::payload::MAX_PASSWORD {
        Some("must have at most 256 characters")
    } else if p.trim().is_empty() {
        Some("must not be only spaces")
    } else {
        None
    }
}

/// A CPF (individual tax id): 11 digits with two check digits. Punctuation (`123.456.789-09`) is
/// accepted and removed; the stored form is digits only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cpf(String);

impl Cpf {
    pub fn parse(s: &str) -> Option<Self> {
        let digits: String = s
            .trim()
            .chars()
            .filter(|c| !matches!(c, '.' | '-' | ' '))
            .collect();
        let d: Vec<u32> = digits
            .chars()
            .map(|c| c.to_digit(10))
            .collect::<Option<_>>()?;
        if d.len() != 11 || d.iter().all(|&x| x == d[0]) {
            return None;
        }
        let dv = |n: usize| {
            let sum: u32 = d[..n]
                .iter()
                .enumerate()
                .map(|(i, &x)| x * (n as u32 + 1 - i as u32))
                .sum();
            let r = (sum * 10) % 11;
            if r == 10 { 0 } else { r }
        };
        (dv(9) == d[9] && dv(10) == d[10]).then_some(Cpf(digits))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that `parse` accepts every one of `good` and refuses every one of `bad`.
    #[track_caller]
    fn assert_parses<T>(parse: impl Fn(&str) -> Option<T>, good: &[&str], bad: &[&str]) {
        for ok in good {
            assert!(parse(ok).is_some(), "{ok}");
        }
        for bad in bad {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn telephones() {
        assert_parses(
            Telephone::parse,
            &[
                "(11) 98765-4321",
                "(21) 3456-7890",
                "11987654321",
                "+55 (11) 98765-4321",
                "  (61) 3333-4444 ",
                // Copied from a web page or a word processor.
                "(11)\u{a0}3456-7890",
                "(11) 3456\u{2011}7890",
                "(11)\t3456\u{2013}7890",
                "+55\u{202f}11\u{a0}3456\u{2212}7890",
            ],
            &[
                "98765-4321",
                "(11) 98765-43210",
                "+1 (11) 98765-4321",
                "phone",
                "",
                "(11) 9876a-4321",
                // Invisible characters inside are not spaces: hidden text is not a number.
                "(11)\u{200b}3456-7890",
                "(11)\u{e0041}3456-7890",
            ],
        );
        assert_eq!(
            Telephone::parse("  (61) 3333-4444 ").unwrap().as_str(),
            "(61) 3333-4444"
        );
    }

    #[test]
    fn emails_and_passwords() {
        assert_eq!(
            Email::parse(" Ana.Souza@Clinica.COM.br ").unwrap().as_str(),
            "ana.souza@clinica.com.br"
        );
        assert_parses(
            Email::parse,
            &[
                "o'brien+tag@example.com",
                "joão.silva@clínica.com.br",
                "a_b-c@sub-domain.example.org",
            ],
            &[
                "ana",
                "ana@",
                "@x.com",
                "ana@x",
                "a b@x.com",
                "a@x..com",
                "a@@x.com",
                // What a mail server refuses (audit of stop 36: accepted, then never sent).
                "a\"b@c.com",
                "joao..silva@example.com",
                "maria.@example.com",
                ".a@example.com",
                "a@[127.0.0.1]",
                "a@-x.com",
                "a@x-.com",
                "a<b>@x.com",
                "a,b@x.com",
            ],
        );
        assert!(password_problem("short").is_some());
        assert!(password_problem("        ").is_some());
        assert!(password_problem("long enough").is_none());
    }

    #[test]
    fn cpfs() {
        assert_eq!(
            Cpf::parse("529.982.247-25").unwrap().as_str(),
            "52998224725"
        );
        assert_parses(
            Cpf::parse,
            &["52998224725"],
            &["52998224724", "11111111111", "5299822472"],
        );
    }
}
