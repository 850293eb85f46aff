//! Text as the registry searches it: accent- and case-free keys, and the Brazilian states, which
//! an address may name by abbreviation or in full (spec §2.2).

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Lower-case, accent-free text for searching (`São Paulo` matches `sao paulo`): the letters'
/// marks are taken off whether the text came composed (`ã`) or decomposed (`a` + U+0303).
/// Invisible characters ([`is_invisible`]) are left out too, so that `Grupo\u{200b} Z` is
/// `Grupo Z` to searches; and each run of white space (a non-breaking space pasted from a web page,
/// a tab, two spaces) is one space, so that `Clínica\u{a0}Sol` and `Clínica  Sol` are found by
/// `clinica sol`.
pub fn search_key(s: &str) -> String {
    let mut key = String::with_capacity(s.len());
    let mut in_space = false;
    for c in name_key(s).chars() {
        let space = c.is_whitespace();
        if !(space && in_space) {
            key.push(if space { ' ' } else { c });
        }
        in_space = space;
    }
    key
}

/// The key that keeps group and type names unique, and that their lists' `q` matches: as
/// [`search_key`] (case, accents and invisible characters do not count), with its white space as
/// written: the stored keys of names told apart before searches folded white space could not all
/// be folded now without making two names one (docs/decisions.md).
pub fn name_key(s: &str) -> String {
    s.to_lowercase()
        .nfd()
        .filter(|&c| !is_combining_mark(c) && !is_invisible(c))
        .collect()
}

/// `s` without the white space and the invisible format characters around it: a value of only
/// such characters (a zero-width space U+200B, a byte-order mark U+FEFF…) is as empty as one of
/// spaces, and a required field that holds only them is missing.
pub fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || is_invisible(c) || is_blank_format(c))
}

/// Characters that show nothing: zero-width spaces and joiners, direction marks, embeddings and
/// isolates, the word joiner and its invisible operators, the byte-order mark, the soft hyphen,
/// the combining grapheme joiner, the Mongolian vowel separator, the Hangul fillers, the blank
/// braille pattern and the tag characters. Keys leave them out, so this set stays as it is: the
/// keys stored with records were made with it (more are [`is_blank_format`]).
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// More format characters that show nothing (the Arabic letter mark, the interlinear annotation
/// marks, the shorthand and musical format controls): blank around a value, and a value of only
/// them is empty ([`trim`]), but they are not left out of the keys that records were stored with
/// before they were named here (a name holding one inside keeps it in its key).
fn is_blank_format(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{fff9}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}'
    )
}

/// `s` as a terminal may be given it: a control character (an escape sequence that would clear
/// the screen or recolour it, a lone carriage return that would write the rest of a line over
/// its start) and the direction overrides and isolates that would reorder what is shown are
/// written escaped (`\u{1b}`). A line break stays one (`\r\n` is `\n`), and so does a tab.
/// Text from a file or another person is shown so; the server refuses most of it, not a lone
/// `\r` in prose.
pub fn for_terminal(s: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t'))
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !s.contains(unsafe_char) {
        return s.into();
    }
    let mut shown = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            c if unsafe_char(c) => shown.extend(c.escape_unicode()),
            c => shown.push(c),
        }
    }
    shown.into()
}

/// What separates the parts of a record's search text (its name, company name, cities…): a
/// control character, which no search term can hold (a query value with one is refused), so a
/// term never matches across the end of one part and the start of the next.
pub const SEARCH_SEPARATOR: char = '\u{1f}';

/// The search text of a record made of `parts`: the [`search_key`] of each, joined by
/// [`SEARCH_SEPARATOR`].
pub fn search_text<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let keys: Vec<String> = parts.into_iter().map(search_key).collect();
    keys.join(&SEARCH_SEPARATOR.to_string())
}

/// The 26 states and the Federal District: abbreviation (UF) and name.
const STATES: [(&str, &str); 27] = [
    ("AC", "Acre"),
    ("AL", "Alagoas"),
    ("AP", "Amapá"),
    ("AM", "Amazonas"),
    ("BA", "Bahia"),
    ("CE", "Ceará"),
    ("DF", "Distrito Federal"),
    ("ES", "Espírito Santo"),
    ("GO", "Goiás"),
    ("MA", "Maranhão"),
    ("MT", "Mato Grosso"),
    ("MS", "Mato Grosso do Sul"),
    ("MG", "Minas Gerais"),
    ("PA", "Pará"),
    ("PB", "Paraíba"),
    ("PR", "Paraná"),
    ("PE", "Pernambuco"),
    ("PI", "Piauí"),
    ("RJ", "Rio de Janeiro"),
    ("RN", "Rio Grande do Norte"),
    ("RS", "Rio Grande do Sul"),
    ("RO", "Rondônia"),
    ("RR", "Roraima"),
    ("SC", "Santa Catarina"),
    ("SP", "São Paulo"),
    ("SE", "Sergipe"),
    ("TO", "Tocantins"),
];

/// The abbreviations (UF) of the 26 states and the Federal District, e.g. for completion.
pub fn state_abbreviations() -> impl Iterator<Item = &'static str> {
    STATES.iter().map(|&(uf, _)| uf)
}

/// The search keys a state filter matches: the key of `state` as given and, when it names a
/// Brazilian state by abbreviation or by name, the key of the other form (`PE` and `Pernambuco`
/// find each other).
pub fn state_keys(state: &str) -> Vec<String> {
    let key = search_key(state.trim());
    let other = STATES.iter().find_map(|&(uf, name)| {
        if key == search_key(uf) {
            Some(name)
        } else if key == search_key(name) {
            Some(uf)
        } else {
            None
        }
    });
    std::iter::once(key).chain(other.map(search_key)).collect()
}

/// A count and what it counts, in the singular after a 1: `count(1, "facility", "facilities")`
/// is `1 facility`, `count(2, …)` is `2 facilities`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_one_is_singular() {
        assert_eq!(count(1, "facility", "facilities"), "1 facility");
        assert_eq!(count(0, "facility", "facilities"), "0 facilities");
        assert_eq!(count(11, "second", "seconds"), "11 seconds");
    }

    #[test]
    fn keys_fold_case_and_accents() {
        assert_eq!(search_key("São Paulo"), "sao paulo");
        assert_eq!(search_key("CEARÁ"), "ceara");
        // Decomposed accents (as macOS and PDFs give them) fold the same.
        assert_eq!(
            search_key("Goia\u{302}nia Ac\u{327}a\u{303}o"),
            "goiania acao"
        );
        assert_eq!(search_key("ÇÃÕÑÜ àèìòù"), "caonu aeiou");
        // Letters without a mark stay as they are.
        assert_eq!(search_key("Ø ß 🏥 12.345"), "ø ß 🏥 12.345");
    }

    #[test]
    fn a_run_of_white_space_is_one_space() {
        assert_eq!(search_key("Raio\u{a0}X"), "raio x");
        assert_eq!(search_key("Raio  X"), "raio x");
        assert_eq!(name_key("Raio\u{a0}X  Ç"), "raio\u{a0}x  c");
        assert_eq!(search_key("Raio\t\u{202f} \u{3000}X\n"), "raio x ");
        assert_eq!(
            search_text(["Clínica\u{a0} Sol", "Recife"]),
            "clinica sol\u{1f}recife"
        );
    }

    #[test]
    fn trimming_takes_invisible_characters_too() {
        assert_eq!(trim("\u{200b}"), "");
        assert_eq!(trim("\u{feff} \u{a0}\u{2060}"), "");
        assert_eq!(trim("\u{200b}Clínica\u{200d} "), "Clínica");
        for blank in [
            "\u{200e}",
            "\u{202a}\u{2066}",
            "\u{3164}",
            "\u{2800}",
            "\u{e0020}",
            "\u{34f}",
            "\u{61c}",
            "\u{fffb}",
            "\u{1bca0}",
            "\u{1d173}",
        ] {
            assert_eq!(trim(blank), "", "{blank:?}");
        }
        // To searches and uniqueness, invisible characters inside a name are not there.
        assert_eq!(search_key("Grupo\u{200b} Z\u{2060}"), "grupo z");
        assert_eq!(search_key("Grupo \u{200b} Z"), "grupo z");
        // Inside the text they stay (a joiner is part of some emoji).
        assert_eq!(trim("👩\u{200d}⚕️ Ana"), "👩\u{200d}⚕️ Ana");
    }

    #[test]
    fn a_terminal_is_given_no_control_sequence() {
        assert_eq!(for_terminal("Clínica\tSol\nRua 1"), "Clínica\tSol\nRua 1");
        assert!(matches!(
            for_terminal("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            for_terminal("Imp\u{1b}[2J\u{1b}[32mOK"),
            "Imp\\u{1b}[2J\\u{1b}[32mOK"
        );
        assert_eq!(
            for_terminal("Reprovado\rAprovado  \r\nfim"),
            "Reprovado\\u{d}Aprovado  \nfim"
        );
        assert_eq!(for_terminal("a\u{9b}b\u{7f}"), "a\\u{9b}b\\u{7f}");
        assert_eq!(for_terminal("abc\u{202e}fed"), "abc\\u{202e}fed");
        // Shown once, it is shown as it is.
        let once = for_terminal("x\u{1b}\r").into_owned();
        assert_eq!(for_terminal(&once), once);
    }

    #[test]
    fn a_state_finds_its_other_form() {
        assert_eq!(state_keys("PE"), ["pe", "pernambuco"]);
        assert_eq!(state_keys(" pernambuco "), ["pernambuco", "pe"]);
        assert_eq!(state_keys("Sao Paulo"), ["sao paulo", "sp"]);
        assert_eq!(state_keys("rio grande do sul"), ["rio grande do sul", "rs"]);
        // Anything else is matched as given.
        assert_eq!(state_keys("Buenos Aires"), ["buenos aires"]);
        assert_eq!(state_keys("XX"), ["xx"]);
    }
}
