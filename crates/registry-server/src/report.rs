//! The one-page PDF report of a QC test (`GET /api/test/:id/report`): facility, equipment,
//! readings, figures, verdict, who and when. Written with the PDF base-14 fonts (Helvetica for
//! text, Courier for the figures), so no font is embedded; text is WinAnsi-encoded.

use pdf_writer::{Content, Name, Pdf, Rect, Ref, Str};
use registry_core::equipment::{Equipment, QcTest};
use registry_core::qc::display_value;
use serde_json::Value;

const PAGE_WIDTH: f32 = 595.0;
const PAGE_HEIGHT: f32 = 842.0;
const MARGIN: f32 = 48.0;
const BODY_SIZE: f32 = 9.0;
const FIGURE_SIZE: f32 = 7.5;
/// Courier's advance is 0.6 em: the characters of a figure line across the text width.
const FIGURE_COLUMNS: usize = ((PAGE_WIDTH - 2.0 * MARGIN) / (0.6 * FIGURE_SIZE)) as usize;

/// What the report says, besides the record itself.
pub struct ReportContext<'a> {
    pub equipment: &'a Equipment,
    /// When the report was made (RFC 3339).
    pub generated_at: &'a str,
}

/// One line of the page.
enum Line {
    Title(String),
    Heading(String),
    Text(String),
    Figure(String),
    Gap,
}

/// Text in WinAnsiEncoding: Latin-1 maps onto it; a few common signs have their own codes or an
/// ASCII stand-in; anything else becomes `?`.
pub fn win_ansi(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{ff}' => out.push(c as u32 as u8),
            '–' => out.push(0x96),
            '—' => out.push(0x97),
            '…' => out.push(0x85),
            '•' => out.push(0x95),
            '‰' => out.push(0x89),
            '≤' => out.extend_from_slice(b"<="),
            '≥' => out.extend_from_slice(b">="),
            '−' => out.push(b'-'),
            _ => out.push(b'?'),
        }
    }
    out
}

/// Splits `text` into lines of at most `width` characters, at spaces where possible.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word = word.to_owned();
        while word.chars().count() > width {
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(head);
        }
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `key: value; key: value` of an object's figures.
fn pairs(obj: &serde_json::Map<String, Value>) -> String {
    obj.iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| format!("{k}: {}", display_value(v)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The lines of a JSON object: one paragraph per item of each list (`sources[0] …`), then the
/// object's own values.
fn object_lines(value: &Value, lines: &mut Vec<Line>) {
    let Some(obj) = value.as_object() else {
        lines.extend(
            wrap(&display_value(value), FIGURE_COLUMNS)
                .into_iter()
                .map(Line::Figure),
        );
        return;
    };
    let mut own = serde_json::Map::new();
    for (key, v) in obj {
        match v {
            Value::Array(items) if items.iter().any(Value::is_object) => {
                for (i, item) in items.iter().enumerate() {
                    let text = match item.as_object() {
                        Some(o) => format!("{key}[{i}]  {}", pairs(o)),
                        None => format!("{key}[{i}]  {}", display_value(item)),
                    };
                    lines.extend(wrap(&text, FIGURE_COLUMNS).into_iter().map(Line::Figure));
                }
            }
            Value::Object(o) => {
                let text = format!("{key}  {}", pairs(o));
                lines.extend(wrap(&text, FIGURE_COLUMNS).into_iter().map(Line::Figure));
            }
            _ => {
                own.insert(key.clone(), v.clone());
            }
        }
    }
    if !own.is_empty() {
        lines.extend(
            wrap(&pairs(&own), FIGURE_COLUMNS)
                .into_iter()
                .map(Line::Figure),
        );
    }
}

fn lines_of(test: &QcTest, ctx: &ReportContext<'_>) -> Vec<Line> {
    let e = ctx.equipment;
    let equipment = [
        Some(e.type_of_equipment.name.as_str()),
        e.manufacturer.as_deref(),
        e.model.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let mut lines = vec![
        Line::Title("Relatório de controle de qualidade".into()),
        Line::Gap,
        Line::Text(format!("Instalação: {}", test.facility.name)),
        Line::Text(format!(
            "Equipamento: {equipment}{}{}",
            e.serial_number
                .as_deref()
                .map(|s| format!(" — nº de série {s}"))
                .unwrap_or_default(),
            e.localization
                .as_deref()
                .map(|s| format!(" — {s}"))
                .unwrap_or_default(),
        )),
        Line::Text(format!("Teste: {}", test.type_of_test.name)),
        Line::Text(format!("Data do teste: {}", test.date)),
        Line::Text(format!("Realizado por: {}", test.performed_by.name)),
        Line::Gap,
        Line::Heading("Leituras".into()),
    ];
    match &test.measurements {
        Some(m) => object_lines(m, &mut lines),
        None => lines.push(Line::Text("(nenhuma)".into())),
    }
    if let Some(f) = &test.figures {
        lines.push(Line::Gap);
        lines.push(Line::Heading("Resultados calculados".into()));
        object_lines(f, &mut lines);
    }
    if let Some(notes) = &test.notes {
        lines.push(Line::Gap);
        lines.push(Line::Heading("Observações".into()));
        lines.extend(wrap(notes, 100).into_iter().map(Line::Text));
    }
    lines.push(Line::Gap);
    lines.push(Line::Heading(format!("Conclusão: {}", test.conclusion)));
    lines.push(Line::Gap);
    lines.push(Line::Text(format!(
        "Registro {} — emitido em {}",
        test.id, ctx.generated_at
    )));
    lines
}

/// The report as PDF bytes: one A4 page; what does not fit ends in a line saying so.
pub fn qc_test_pdf(test: &QcTest, ctx: &ReportContext<'_>) -> Vec<u8> {
    let catalog = Ref::new(1);
    let tree = Ref::new(2);
    let page = Ref::new(3);
    let contents = Ref::new(4);
    let fonts = [
        (Name(b"F1"), Ref::new(5), Name(b"Helvetica")),
        (Name(b"F2"), Ref::new(6), Name(b"Helvetica-Bold")),
        (Name(b"F3"), Ref::new(7), Name(b"Courier")),
    ];
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(tree);
    pdf.pages(tree).kids([page]).count(1);
    {
        let mut p = pdf.page(page);
        p.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT));
        p.parent(tree);
        p.contents(contents);
        let mut resources = p.resources();
        let mut font_dict = resources.fonts();
        for (name, id, _) in fonts {
            font_dict.pair(name, id);
        }
    }
    for (_, id, base) in fonts {
        pdf.type1_font(id)
            .base_font(base)
            .encoding_predefined(Name(b"WinAnsiEncoding"));
    }

    let mut content = Content::new();
    let mut y = PAGE_HEIGHT - MARGIN;
    let all = lines_of(test, ctx);
    let total = all.len();
    for (i, line) in all.into_iter().enumerate() {
        let (font, size, text) = match line {
            Line::Title(t) => (fonts[1].0, 15.0, t),
            Line::Heading(t) => (fonts[1].0, 10.5, t),
            Line::Text(t) => (fonts[0].0, BODY_SIZE, t),
            Line::Figure(t) => (fonts[2].0, FIGURE_SIZE, t),
            Line::Gap => {
                y -= 6.0;
                continue;
            }
        };
        let leading = size * 1.35;
        if y - leading < MARGIN + 12.0 && i + 1 < total {
            content
                .begin_text()
                .set_font(fonts[0].0, BODY_SIZE)
                .next_line(MARGIN, y - leading)
                .show(Str(&win_ansi(
                    "(continua: o registro completo está em GET /api/test/:id)",
                )))
                .end_text();
            break;
        }
        y -= leading;
        content
            .begin_text()
            .set_font(font, size)
            .next_line(MARGIN, y)
            .show(Str(&win_ansi(&text)))
            .end_text();
    }
    let content = content.finish();
    pdf.stream(contents, &content);
    pdf.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win_ansi_keeps_portuguese_and_stands_in_for_the_rest() {
        assert_eq!(win_ansi("Satisfatório"), b"Satisfat\xf3rio");
        assert_eq!(win_ansi("≤ 10 % – µSv/h"), b"<= 10 % \x96 \xb5Sv/h");
        assert_eq!(win_ansi("→"), b"?");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_long_words() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert!(wrap("", 10).is_empty());
    }
}
