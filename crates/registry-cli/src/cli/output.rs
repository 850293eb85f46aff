//! How results and errors are printed: tables on a terminal, JSON with the API's field names, CSV;
//! and the progress bars of long commands.

use clap::ValueEnum;
use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

/// Rows for a table or CSV, with the same records kept for JSON.
pub struct Rows<'a, T: Serialize> {
    pub records: &'a [T],
    pub headers: &'a [&'a str],
    pub cells: Vec<Vec<String>>,
}

pub fn print_rows<T: Serialize>(format: Format, rows: Rows<'_, T>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, rows.records)?;
            writeln!(out)?;
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record(rows.headers)?;
            for r in &rows.cells {
                w.write_record(r)?;
            }
            w.flush()?;
        }
        Format::Table => {
            let mut table = Table::new();
            table.load_preset(UTF8_FULL_CONDENSED);
            table.set_header(rows.headers.iter().copied());
            for r in rows.cells {
                table.add_row(r);
            }
            writeln!(out, "{table}")?;
        }
    }
    Ok(())
}

/// One record: JSON as the API gives it, or a two-column table (CSV: a header row and one row).
pub fn print_record<T: Serialize>(
    format: Format,
    record: &T,
    fields: Vec<(&str, String)>,
) -> anyhow::Result<()> {
    match format {
        Format::Table => {
            let mut table = Table::new();
            table.load_preset(UTF8_FULL_CONDENSED);
            for (k, v) in fields {
                table.add_row(vec![k.to_owned(), v]);
            }
            println!("{table}");
            Ok(())
        }
        Format::Json => {
            println!("{}", serde_json::to_string_pretty(record)?);
            Ok(())
        }
        Format::Csv => {
            let headers: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
            let cells = vec![fields.iter().map(|(_, v)| v.clone()).collect()];
            print_rows(
                Format::Csv,
                Rows {
                    records: std::slice::from_ref(record),
                    headers: &headers,
                    cells,
                },
            )
        }
    }
}

/// A sentence for the person at the terminal; on stderr, so stdout stays parseable.
pub fn note(text: impl std::fmt::Display) {
    eprintln!("{text}");
}

/// A progress bar on stderr, drawn only on a terminal, of `len` items named `unit`.
pub fn progress_bar(len: u64, unit: &str) -> ProgressBar {
    bar(
        Some(len),
        &format!("{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit} ({{eta}})"),
    )
}

/// A byte-count progress bar on stderr, drawn only on a terminal.
pub fn byte_bar(len: Option<u64>) -> ProgressBar {
    bar(
        len,
        "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    )
}

fn bar(len: Option<u64>, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
    bar
}
