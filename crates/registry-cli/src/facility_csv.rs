//! The facility CSV format of `registry facility import|export`, and the CNPJ clean-up the CLI
//! offers before sending.
//!
//! Columns (header row required, any order, unknown columns ignored): `name`, `companyName`,
//! `cnpj`, `telephone`, `department`, `street`, `city`, `state`, `complement`, `zipCode`,
//! `CNENregistry`, `group` (export: the group's name; import: its name or `_id`, which the CLI
//! looks up on the server), `practices` (`;`-separated) and `radioisotopes`
//! (`Tc(99m)=1500;I(131)=200.5`, mCi per week). Empty cells are absent fields. Files Excel saves
//! in a Brazilian locale read as they are: `;` between fields, Windows-1252 text ([`delimiter`],
//! [`decode`]). Every CSV the CLI writes has a text a spreadsheet would run as a formula behind a
//! `'` ([`formula_safe`]), which the import takes off again ([`formula_restored`]).

use registry_core::api::Facility;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::HashMap;

pub const COLUMNS: &[&str] = &[
    "name",
    "companyName",
    "cnpj",
    "telephone",
    "department",
    "street",
    "city",
    "state",
    "complement",
    "zipCode",
    "CNENregistry",
    "group",
    "practices",
    "radioisotopes",
];

/// The first characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
const FORMULA_STARTS: &[char] = &['=', '+', '-', '@', '\t', '\r'];

/// Whether a spreadsheet would run `text` as a formula: it starts with one of
/// [`FORMULA_STARTS`] and is not a plain number (`-1.5`), or it starts with the `'` that
/// [`formula_safe`] adds before such a text (so that a text written that way reads back as it is).
fn needs_quote(text: &str) -> bool {
    match text.chars().next() {
        Some('\'') => needs_quote(&text[1..]),
        Some(c) if FORMULA_STARTS.contains(&c) => !text.parse::<f64>().is_ok_and(f64::is_finite),
        _ => false,
    }
}

/// A cell as a CSV file holds it: a text a spreadsheet would run as a formula (a name a user
/// chose, `=HYPERLINK(…)`) behind a `'`, which shows it as text; the rest as it is.
pub fn formula_safe(text: &str) -> Cow<'_, str> {
    match needs_quote(text) {
        true => Cow::Owned(format!("'{text}")),
        false => Cow::Borrowed(text),
    }
}

/// A cell read from a CSV file without the `'` [`formula_safe`] added, so that an export imports
/// back exactly.
pub fn formula_restored(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(text) if needs_quote(text) => text,
        _ => cell,
    }
}

/// Writes one record of `cells`, each [`formula_safe`].
pub fn write_safe_record<W: std::io::Write, S: AsRef<str>>(
    w: &mut csv::Writer<W>,
    cells: impl IntoIterator<Item = S>,
) -> csv::Result<()> {
    for cell in cells {
        w.write_field(formula_safe(cell.as_ref()).as_bytes())?;
    }
    w.write_record(None::<&[u8]>)
}

/// The text of an import file: UTF-8 or, when it is not valid UTF-8, Windows-1252 (a superset of
/// Latin-1), which is what Excel saves as "CSV" in a Brazilian locale. `true` when it was
/// converted.
pub fn decode(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), false),
        Err(_) => {
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
            (text.into_owned(), true)
        }
    }
}

/// The text of the import file at `path` (`-`: stdin), through [`decode`].
pub fn read(path: &std::path::Path) -> std::io::Result<(String, bool)> {
    let bytes = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        bytes
    } else {
        std::fs::read(path)?
    };
    Ok(decode(&bytes))
}

/// The field separator of a CSV text, read from its header row: `;` when the header has one and
/// no comma (Excel where the comma is the decimal separator, as in Brazil), else `,`.
pub fn delimiter(text: &str) -> u8 {
    let header = text.lines().next().unwrap_or_default();
    if header.contains(';') && !header.contains(',') {
        b';'
    } else {
        b','
    }
}

/// A CNPJ written with the usual punctuation (`12.345.678/0001-95`) or with spaces around it
/// (` 11222333000181`, a trailing tab) becomes its bare form, which is the only one the API
/// accepts. Returns the bare form when something was removed ([`cnpj_stripped_of`] says what).
pub fn strip_cnpj_punctuation(cnpj: &str) -> Option<String> {
    let written = |c: char| matches!(c, '.' | '/' | '-') || c.is_whitespace();
    cnpj.contains(written)
        .then(|| cnpj.chars().filter(char::is_ascii_alphanumeric).collect())
}

/// What [`strip_cnpj_punctuation`] took out of `raw` to give `bare`, for the note that says so:
/// `punctuation`, `the spaces around it`, or both.
pub fn cnpj_stripped_of(raw: &str, bare: &str) -> &'static str {
    match (raw.trim() != bare, raw.trim() != raw) {
        (true, true) => "punctuation and the spaces around it",
        (false, true) => "the spaces around it",
        _ => "punctuation",
    }
}

/// A facility payload from one CSV record keyed by column name, and what could not be read into
/// it (a radioisotope without its quantity). Values are not validated here: the payload goes
/// through the same core rules as on the server, so that a row's problems are told all at once.
pub fn payload_from_row(row: &HashMap<String, String>) -> (Value, Vec<String>) {
    let cell = |k: &str| {
        let text = row.get(k).map(|v| formula_restored(v.trim()));
        text.filter(|v| !v.is_empty())
    };
    let mut obj = Map::new();
    // The cnpj as written, spaces around it included: they are taken out with its punctuation,
    // and the import says so (docs/decisions.md).
    if let Some(raw) = row.get("cnpj").filter(|c| !c.trim().is_empty()) {
        let restored = formula_restored(raw.trim());
        let cnpj = if restored == raw.trim() {
            raw.as_str()
        } else {
            restored
        };
        obj.insert("cnpj".into(), json!(cnpj));
    }
    for key in [
        "name",
        "companyName",
        "telephone",
        "department",
        "CNENregistry",
        "group",
    ] {
        if let Some(v) = cell(key) {
            obj.insert(key.into(), json!(v));
        }
    }
    let mut address = Map::new();
    for key in ["street", "city", "state", "complement", "zipCode"] {
        if let Some(v) = cell(key) {
            address.insert(key.into(), json!(v));
        }
    }
    if !address.is_empty() {
        obj.insert("address".into(), json!([address]));
    }
    if let Some(p) = cell("practices") {
        let list: Vec<&str> = p
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        obj.insert("practices".into(), json!(list));
    }
    let mut problems = Vec::new();
    if let Some(r) = cell("radioisotopes") {
        let (list, unread) = read_radioisotopes(r);
        obj.insert("radioisotopes".into(), Value::Array(list));
        problems = unread;
    }
    (Value::Object(obj), problems)
}

/// `Tc(99m)=1500;I(131)=200.5` → `[{"name": "Tc(99m)", "quantity": "1500"}, ...]`. Quantities
/// stay text so that the API's own rule (dot decimals, no commas) judges them.
pub fn parse_radioisotopes(text: &str) -> Result<Value, String> {
    match read_radioisotopes(text) {
        (list, problems) if problems.is_empty() => Ok(Value::Array(list)),
        (_, problems) => Err(problems.join("; ")),
    }
}

/// The entries of [`parse_radioisotopes`] that read, and the problem of each that does not.
fn read_radioisotopes(text: &str) -> (Vec<Value>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, qty)) = item.split_once('=') else {
            problems.push(format!(
                "radioisotopes: `{item}` must be NAME=QUANTITY, e.g. Tc(99m)=1500"
            ));
            continue;
        };
        // The nuclide's spelling (`Tc-99m`) is taken for the spec's (`Tc(99m)`), as elsewhere.
        let name =
            registry_core::material::radioisotope(&json!(name)).map_or(name.trim(), |r| r.as_str());
        out.push(json!({"name": name, "quantity": qty.trim()}));
    }
    (out, problems)
}

/// A facility as one CSV record, in [`COLUMNS`] order (the first address only), so that an export
/// can be imported again.
pub fn row_from_facility(f: &Facility) -> Vec<String> {
    let address = f.address.first();
    let a = |get: fn(&registry_core::facility::Address) -> Option<&str>| {
        address.and_then(get).unwrap_or_default().to_owned()
    };
    vec![
        f.name.clone(),
        f.company_name.clone(),
        f.cnpj.clone(),
        f.telephone.clone(),
        f.department.to_string(),
        a(|x| Some(&x.street)),
        a(|x| Some(&x.city)),
        a(|x| Some(&x.state)),
        a(|x| x.complement.as_deref()),
        a(|x| x.zip_code.as_deref()),
        f.cnen_registry.clone().unwrap_or_default(),
        // By name: an `_id` means nothing to another server (import takes either).
        f.group.as_ref().map(|g| g.name.clone()).unwrap_or_default(),
        f.practices
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(";"),
        f.radioisotopes
            .iter()
            .map(|r| format!("{}={}", r.name, r.quantity))
            .collect::<Vec<_>>()
            .join(";"),
    ]
}

/// What a CSV row cannot carry of `f` (it holds the first address only and no linked users),
/// e.g. `1 more address, 2 linked users`; `None` when nothing is lost.
pub fn left_out_of_csv(f: &Facility) -> Option<String> {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut lost = Vec::new();
    if f.address.len() > 1 {
        lost.push(plural(
            f.address.len() - 1,
            "more address",
            "more addresses",
        ));
    }
    if !f.users.is_empty() {
        lost.push(plural(f.users.len(), "linked user", "linked users"));
    }
    (!lost.is_empty()).then(|| lost.join(", "))
}

/// The warning of a CSV export that lost something ([`left_out_of_csv`]), naming at most
/// `shown` facilities and counting the rest; `None` when every facility fits its row.
pub fn csv_loss_warning(facilities: &[Facility], shown: usize) -> Option<String> {
    let lost: Vec<String> = facilities
        .iter()
        .filter_map(|f| left_out_of_csv(f).map(|what| format!("  {} ({}): {what}", f.name, f.cnpj)))
        .collect();
    if lost.is_empty() {
        return None;
    }
    let n = lost.len();
    let mut text = format!(
        "warning: CSV holds one address per facility and no linked users; {n} {} lost some:\n",
        if n == 1 { "facility" } else { "facilities" }
    );
    for line in lost.iter().take(shown) {
        text.push_str(line);
        text.push('\n');
    }
    if n > shown {
        text.push_str(&format!("  … and {} more\n", n - shown));
    }
    text.push_str("hint: export with --format json to keep every address and linked user");
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_payloads() {
        let row: HashMap<String, String> = [
            ("name", "Clínica A"),
            ("cnpj", "11222333000181"),
            ("department", "Medicina Nuclear"),
            ("street", "Rua 1"),
            ("city", "Recife"),
            ("state", "PE"),
            ("practices", "Diagnóstico; Terapia Ambulatorial"),
            ("radioisotopes", "Tc(99m)=1500;I(131)=200.5"),
            ("CNENregistry", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let (p, problems) = payload_from_row(&row);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(p["address"][0]["city"], "Recife");
        assert_eq!(p["practices"][1], "Terapia Ambulatorial");
        assert_eq!(p["radioisotopes"][1]["quantity"], "200.5");
        assert!(p.get("CNENregistry").is_none());
        assert!(parse_radioisotopes("Tc(99m)").is_err());
    }

    #[test]
    fn what_csv_cannot_carry_is_named() {
        let facility = |name: &str, addresses: usize, users: usize| -> Facility {
            let address = json!({"street": "Rua 1", "city": "Recife", "state": "PE"});
            let user = json!({"_id": "u", "responsabilities": ["Titular"]});
            serde_json::from_value(json!({
                "_id": "f", "name": name, "companyName": "C", "cnpj": "11222333000181",
                "telephone": "(81) 3333-4444", "department": "Medicina Nuclear", "group": null,
                "address": vec![address; addresses], "CNENregistry": null, "practices": [],
                "radioisotopes": [], "users": vec![user; users], "logo": null,
                "backgroundImage": null, "version": 1, "createdAt": "", "updatedAt": ""
            }))
            .unwrap()
        };
        assert_eq!(left_out_of_csv(&facility("A", 1, 0)), None);
        assert_eq!(
            left_out_of_csv(&facility("A", 3, 1)).as_deref(),
            Some("2 more addresses, 1 linked user")
        );
        let all = [
            facility("A", 1, 0),
            facility("B", 2, 0),
            facility("C", 1, 2),
        ];
        let warning = csv_loss_warning(&all, 1).unwrap();
        assert!(warning.contains("2 facilities lost some"), "{warning}");
        assert!(
            warning.contains("B (11222333000181): 1 more address"),
            "{warning}"
        );
        assert!(warning.contains("… and 1 more") && warning.contains("--format json"));
        assert_eq!(csv_loss_warning(&all[..1], 10), None);
    }

    #[test]
    fn radioisotopes_take_either_spelling() {
        assert_eq!(
            parse_radioisotopes("Tc-99m=10; I(131)=2.5;Xx-1=3").unwrap(),
            json!([
                {"name": "Tc(99m)", "quantity": "10"},
                {"name": "I(131)", "quantity": "2.5"},
                {"name": "Xx-1", "quantity": "3"}
            ])
        );
    }

    #[test]
    fn formulas_are_written_as_text_and_read_back_as_they_were() {
        for (text, written) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+55 81 3333-4444", "'+55 81 3333-4444"),
            ("-Sala 3", "'-Sala 3"),
            ("@Empresa", "'@Empresa"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
            ("-inf", "'-inf"),
            ("'=1", "''=1"),
            ("-1.5", "-1.5"),
            ("+2", "+2"),
            ("'-1.5", "'-1.5"),
            ("Clínica = boa", "Clínica = boa"),
            ("'quoted'", "'quoted'"),
            ("", ""),
        ] {
            assert_eq!(formula_safe(text), written, "{text:?}");
            assert_eq!(formula_restored(written), text, "{written:?}");
        }
    }

    #[test]
    fn punctuated_cnpjs_are_stripped() {
        assert_eq!(
            strip_cnpj_punctuation("11.222.333/0001-81").as_deref(),
            Some("11222333000181")
        );
        assert_eq!(strip_cnpj_punctuation("11222333000181"), None);
        assert_eq!(
            strip_cnpj_punctuation(" 11222333000181\t").as_deref(),
            Some("11222333000181")
        );
        assert_eq!(
            cnpj_stripped_of(" 11222333000181\t", "11222333000181"),
            "the spaces around it"
        );
        assert_eq!(
            cnpj_stripped_of("11.222.333/0001-81 ", "11222333000181"),
            "punctuation and the spaces around it"
        );
    }

    #[test]
    fn excel_files_from_brazil_are_read() {
        assert_eq!(decode("São".as_bytes()), ("São".into(), false));
        assert_eq!(decode(b"S\xe3o Jos\xe9"), ("São José".into(), true));
        assert_eq!(delimiter("name;cnpj;city\nA;1;B"), b';');
        assert_eq!(
            delimiter("name,cnpj,practices\nA,1,Diagnóstico;Terapia"),
            b','
        );
        assert_eq!(delimiter(""), b',');
    }
}
