//! How a table's columns fit a terminal: a column of identifiers (`_id`, `cnpj`, an equipment's
//! `_id`, an e-mail address), dates or times is never split, so what is copied from it is whole; a column of text
//! is never narrower than [`MIN_TEXT`] (nor than its longest word, up to [`LONGEST_WORD`]); and
//! the columns that do not fit at those widths are left out, the least important first, with a
//! note on stderr naming them.

use comfy_table::{ColumnConstraint, Table, Width};
use dialoguer::console::measure_text_width;

/// The narrowest a column of text is made (unless its content is narrower).
const MIN_TEXT: usize = 10;

/// A word up to this long is never split (a department, `Radiodiagnóstico`); a longer one may be.
const LONGEST_WORD: usize = 16;

/// The width a column takes besides its content: a space each side and the border on its left.
const FRAME: usize = 3;

/// Headers whose columns hold identifiers whatever their content looks like (an e-mail address
/// names a user wherever a command takes one, so it is copied whole too).
const IDENTIFIER_HEADERS: [&str; 4] = ["_id", "cnpj", "code", "email"];

/// How wide a column must be to be readable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// Identifiers, dates, times: exactly as wide as the widest cell (never split).
    Whole(usize),
    /// Text, which wraps: at least this wide.
    AtLeast(usize),
}

impl Need {
    fn width(self) -> usize {
        match self {
            Need::Whole(w) | Need::AtLeast(w) => w,
        }
    }
}

/// Whether a cell is a thing copied whole: a record's `_id` (a UUID or a 24-digit hex id), a date
/// (`2026-11-25`), a time as the tables print it (`2026-11-25 09:00:00 -03:00`), an ISO week
/// (`2026-W48`).
fn is_atom(cell: &str) -> bool {
    let shape: String = cell
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    let hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
    let uuid = cell.len() == 36
        && cell.split('-').map(str::len).eq([8, 4, 4, 4, 12])
        && cell.split('-').all(hex);
    let object_id = cell.len() == 24 && hex(cell);
    uuid || object_id
        || matches!(
            shape.as_str(),
            "9999-99-99" | "9999-99-99 99:99:99 -99:99" | "9999-W99"
        )
}

/// `text` wrapped at spaces to lines of at most `width` columns, each line of it on its own:
/// a time as the tables print it (`2026-12-01 09:00:00 -03:00`) counts as one word, a word (an
/// `_id`, a hash, a URL) is never split — one wider than `width` is a line of its own, wider
/// than `width` — and a line that draws a table (inside a cell) is kept as it is.
pub fn wrap_words(text: &str, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if measure_text_width(line) <= width || line.contains(['│', '─', '┌', '└']) {
            out.push(line.to_owned());
            continue;
        }
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        let mut current = String::new();
        for word in words(line.trim_start()) {
            let wanted = measure_text_width(&current) + 1 + measure_text_width(&word);
            if current.is_empty() {
                current = format!("{indent}{word}");
            } else if wanted <= width {
                current.push(' ');
                current.push_str(&word);
            } else {
                out.push(std::mem::take(&mut current));
                current = format!("{indent}{word}");
            }
        }
        out.push(current);
    }
    out.join("\n")
}

/// The words of `line` split at spaces, a time as the tables print it kept as one.
fn words(line: &str) -> Vec<String> {
    let parts: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let time = parts.get(i..i + 3).map(|p| p.join(" "));
        match time {
            Some(t) if is_atom(t.trim_end_matches([',', '.', ';', ')'])) && t.contains(':') => {
                out.push(t);
                i += 3;
            }
            _ => {
                out.push(parts[i].to_owned());
                i += 1;
            }
        }
    }
    out
}

/// How wide the column of `header` over `cells` must be.
fn need(header: &str, cells: &[&str]) -> Need {
    let lines = || {
        std::iter::once(header)
            .chain(cells.iter().copied())
            .flat_map(str::lines)
    };
    let widest = lines().map(measure_text_width).max().unwrap_or_default();
    let filled: Vec<&str> = cells.iter().copied().filter(|c| !c.is_empty()).collect();
    let identifiers = IDENTIFIER_HEADERS.contains(&header)
        || (!filled.is_empty() && filled.iter().all(|c| is_atom(c)));
    if identifiers {
        return Need::Whole(widest);
    }
    let longest_word = lines()
        .flat_map(str::split_whitespace)
        .map(measure_text_width)
        .max()
        .unwrap_or_default();
    let header_word = header
        .split_whitespace()
        .map(measure_text_width)
        .max()
        .unwrap_or_default();
    Need::AtLeast(
        widest
            .min(MIN_TEXT)
            .max(longest_word.min(LONGEST_WORD))
            .max(header_word),
    )
}

/// Which columns to show on a terminal `width` columns wide, given each one's need: the columns
/// named in `rank` first (most important first), then the others in the table's order, each
/// taken while it still fits.
fn chosen(headers: &[&str], needs: &[Need], rank: &[&str], width: usize) -> Vec<bool> {
    let mut order: Vec<usize> = rank
        .iter()
        .filter_map(|r| headers.iter().position(|h| h == r))
        .collect();
    let rest: Vec<usize> = (0..headers.len()).filter(|i| !order.contains(i)).collect();
    order.extend(rest);
    let mut shown = vec![false; headers.len()];
    let mut used = 1;
    for i in order {
        let wanted = needs[i].width() + FRAME;
        if used + wanted <= width {
            used += wanted;
            shown[i] = true;
        }
    }
    shown
}

/// Fits `table` (already given `headers` and the rows `cells`) to a terminal `width` columns
/// wide, as this module says; returns the headers of the columns left out.
pub fn fit(
    table: &mut Table,
    headers: &[&str],
    cells: &[Vec<String>],
    rank: &[&str],
    width: u16,
) -> Vec<String> {
    let needs: Vec<Need> = (0..headers.len())
        .map(|i| {
            let column: Vec<&str> = cells
                .iter()
                .map(|r| r.get(i).map_or("", String::as_str))
                .collect();
            need(headers[i], &column)
        })
        .collect();
    let shown = chosen(headers, &needs, rank, usize::from(width));
    let mut left_out = Vec::new();
    for (i, need) in needs.iter().enumerate() {
        let constraint = match (shown[i], need) {
            (false, _) => {
                left_out.push(headers[i].to_owned());
                ColumnConstraint::Hidden
            }
            (true, Need::Whole(_)) => ColumnConstraint::ContentWidth,
            (true, Need::AtLeast(w)) => {
                let w = u16::try_from(*w + 2).unwrap_or(u16::MAX);
                ColumnConstraint::LowerBoundary(Width::Fixed(w))
            }
        };
        if let Some(column) = table.column_mut(i) {
            column.set_constraint(constraint);
        }
    }
    left_out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_dates_and_times_are_atoms() {
        for atom in [
            "01a2158f-6f1f-7d2c-9eb7-e2c77463a94e",
            "65f1c2a9b8e4d3f2a1b0c9d8",
            "2026-11-25",
            "2026-11-25 09:00:00 -03:00",
            "2026-W48",
        ] {
            assert!(is_atom(atom), "{atom}");
        }
        for text in ["Clínica Boa Vista", "2026", "Radiodiagnóstico", "due_soon"] {
            assert!(!is_atom(text), "{text}");
        }
    }

    #[test]
    fn words_times_and_ids_are_never_split_when_wrapped() {
        let text = "pending, scheduled for 2026-12-01 09:00:00 -03:00 to fisica@clinica.com.br";
        let wrapped = wrap_words(text, 30);
        assert!(
            wrapped
                .lines()
                .any(|l| l.contains("2026-12-01 09:00:00 -03:00")),
            "{wrapped}"
        );
        let hash = "a".repeat(64);
        let wrapped = wrap_words(&format!("sha256 {hash}"), 40);
        assert_eq!(wrapped, format!("sha256\n{hash}"));
        assert_eq!(wrap_words("short", 40), "short");
    }

    #[test]
    fn a_column_of_text_is_as_wide_as_its_words_and_never_narrower_than_ten() {
        let name = need("name", &["Clínica Boa Vista Centro de Imagem e Medicina"]);
        assert_eq!(name, Need::AtLeast(MIN_TEXT));
        assert_eq!(need("state", &["PE"]), Need::AtLeast(5));
        assert_eq!(need("department", &["Radiodiagnóstico"]), Need::AtLeast(16));
        assert_eq!(
            need("Responsável Técnico", &["Ana"]),
            Need::AtLeast("Responsável".chars().count())
        );
        assert_eq!(need("cnpj", &["20000030000105"]), Need::Whole(14));
        assert_eq!(
            need("equipment", &["01a2158f-6f1f-7d2c-9eb7-e2c77463a94e", ""]),
            Need::Whole(36)
        );
    }

    #[test]
    fn the_columns_ranked_first_are_kept_and_the_rest_while_they_fit() {
        let headers = ["_id", "name", "cnpj", "state"];
        let needs = [
            Need::Whole(36),
            Need::AtLeast(10),
            Need::Whole(14),
            Need::AtLeast(5),
        ];
        // 1 + 13 + 17 + 8 = 39; the _id (39 more) does not fit in 60.
        assert_eq!(
            chosen(&headers, &needs, &["name", "cnpj"], 60),
            [false, true, true, true]
        );
        assert_eq!(chosen(&headers, &needs, &[], 80), [true, true, true, true]);
    }
}
