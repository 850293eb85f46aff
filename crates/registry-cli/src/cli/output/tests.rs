//! Tables at the terminal's width (identifiers and dates whole, piped output as wide as it is) and
//! times in Brasília.

use super::*;

fn widest_line(table: &Table) -> usize {
    widest_line_of(&table.to_string())
}

fn widest_line_of(text: &str) -> usize {
    text.lines()
        .map(dialoguer::console::measure_text_width)
        .max()
        .unwrap_or_default()
}

#[test]
fn a_table_fits_the_terminal_and_stays_whole_when_piped() {
    let long = "Hospital São João — Diagnóstico Ação — Radiodiagnóstico";
    let filled = || {
        let mut table = styled_table();
        table.set_header(["_id", "name", "companyName", "department"]);
        table.add_row([
            "01a2132b-0131-7394-982d-747d5465801a",
            long,
            "Hospital São João Ltda",
            "Medicina Nuclear",
        ]);
        table
    };
    let mut at_terminal = filled();
    fit(&mut at_terminal, Some(60));
    assert!(widest_line(&at_terminal) <= 60, "{at_terminal}");
    let mut piped = filled();
    fit(&mut piped, None);
    assert!(widest_line(&piped) > 100, "{piped}");
    assert!(piped.to_string().contains(long));
}

#[test]
fn times_read_in_brasilia_to_the_second() {
    assert_eq!(
        brasilia("2026-12-01T12:00:00.000000Z"),
        "2026-12-01 09:00:00 -03:00"
    );
    assert_eq!(
        brasilia("2026-11-23T03:00:00.000000Z"),
        "2026-11-23 00:00:00 -03:00"
    );
    assert_eq!(brasilia("2026-11-20"), "2026-11-20");
    assert_eq!(brasilia_opt(&None), "");
}

/// A line of `table` holding `text` whole.
fn shows_whole(table: &str, text: &str) -> bool {
    table.lines().any(|l| l.contains(text))
}

#[test]
fn a_facility_list_is_readable_at_80_columns() {
    let id = "01a2138f-d92f-732d-9eb7-e2c77463a94e";
    let rt = "Responsável Técnico";
    let headers = ["_id", "name", "cnpj", "department", "city", "state", rt];
    let row = |name: &str, department: &str| {
        [
            id,
            name,
            "20000030000105",
            department,
            "Florianópolis",
            "SC",
            "Ana Souza",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let cells = vec![
        row(
            "Clínica Boa Vista — Diagnóstico por Imagem",
            "Radiodiagnóstico",
        ),
        row("Hospital São João", "Medicina Nuclear"),
    ];
    let rank = ["name", "cnpj", "department", rt];
    let text = list_table(&headers, &rank, &cells, Some(80)).to_string();
    assert!(widest_line_of(&text) <= 80, "{text}");
    for whole in [
        "20000030000105",
        "Clínica",
        "Radiodiagnóstico",
        "Responsável",
        "Técnico",
    ] {
        assert!(shows_whole(&text, whole), "{whole} split:\n{text}");
    }
    // The _id does not fit beside them: left out, not split.
    assert!(!text.contains("01a2138f"), "{text}");
    // Wide enough, every column shows, the _id whole.
    let text = list_table(&headers, &rank, &cells, Some(160)).to_string();
    assert!(shows_whole(&text, id) && shows_whole(&text, "SC"), "{text}");
}

#[test]
fn identifiers_and_dates_of_a_due_list_are_never_split() {
    let id = "01a2158f-6f1f-7d2c-9eb7-e2c77463a94e";
    let headers = [
        "facility",
        "equipment",
        "description",
        "typeOfTest",
        "lastDate",
        "nextDue",
        "state",
        "lastConclusion",
    ];
    let cells = vec![
        [
            "Clínica Boa Vista",
            id,
            "Gama Câmara Siemens Symbia (SN SN-1)",
            "Uniformidade",
            "2025-11-25",
            "2026-11-25",
            "due_soon",
            "Satisfatório",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for width in [80, 100, 120] {
        let text = list_table(&headers, &[], &cells, Some(width)).to_string();
        assert!(widest_line_of(&text) <= usize::from(width), "{text}");
        for atom in [id, "2025-11-25", "2026-11-25"] {
            assert!(
                shows_whole(&text, atom) || !text.contains(&atom[..4]),
                "{atom} split at {width}:\n{text}"
            );
        }
    }
    let text = list_table(&headers, &[], &cells, Some(100)).to_string();
    assert!(shows_whole(&text, id), "{text}");
}

#[test]
fn a_piped_list_is_as_wide_as_its_content() {
    let cells = vec![vec!["x".repeat(120), "2026-11-25".to_owned()]];
    let text = list_table(&["name", "date"], &[], &cells, None).to_string();
    assert!(shows_whole(&text, &"x".repeat(120)), "{text}");
}
