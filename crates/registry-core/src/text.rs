//! Text as the registry searches it: accent- and case-free keys, and the Brazilian states, which
//! an address may name by abbreviation or in full (spec §2.2).

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Lower-case, accent-free text for searching (`São Paulo` matches `sao paulo`): the letters'
/// marks are taken off whether the text came composed (`ã`) or decomposed (`a` + U+0303).
pub fn search_key(s: &str) -> String {
    s.to_lowercase()
        .nfd()
        .filter(|&c| !is_combining_mark(c))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

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
