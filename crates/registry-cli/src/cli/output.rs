//! How results and errors are printed: tables on a terminal, JSON with the API's field names, CSV;
//! the paging flags of long lists; and the progress bars of long commands. Results go to stdout
//! only through [`stdout`] (or [`async_stdout`]), never `println!`, so that a reader that went
//! away (`registry … | head -1`) ends the command quietly instead of a panic ([`stdout_closed`]).

use super::columns;
use clap::{Args, ValueEnum};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use dialoguer::console::{Term, measure_text_width};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use registry_client::{ListQuery, MAX_PAGE_SIZE, facility_csv};
use registry_core::text::for_terminal;
use serde::Serialize;
use std::io::{self, IsTerminal, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

/// Standard output, where results are printed. Its writes return errors where `println!` would
/// panic, and one that finds the reader gone (a broken pipe) is remembered for
/// [`stdout_closed`].
pub struct Stdout<W>(W);

/// The (locked) standard output.
pub fn stdout() -> Stdout<io::StdoutLock<'static>> {
    Stdout(io::stdout().lock())
}

/// The standard output for async writers (`document download --file -`).
pub fn async_stdout() -> Stdout<tokio::io::Stdout> {
    Stdout(tokio::io::stdout())
}

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether a write to stdout found its reader gone. `cli::run` then ends with exit 0 and says
/// nothing: the reader has all it wanted, as with any Unix tool in a pipe.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

static STDOUT_WRITTEN: AtomicBool = AtomicBool::new(false);

/// Whether the command wrote anything to stdout. A command that printed its outcome (a verdict,
/// an import's summary) before failing has given the machine-readable form already, so
/// `cli::run` prints no error envelope after it.
pub fn stdout_written() -> bool {
    STDOUT_WRITTEN.load(Ordering::Relaxed)
}

fn watch<T>(result: io::Result<T>) -> io::Result<T> {
    if let Err(e) = &result
        && e.kind() == io::ErrorKind::BrokenPipe
    {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
    result
}

/// [`watch`] for a write of some bytes, noting that stdout was written to.
fn watch_write(result: io::Result<usize>) -> io::Result<usize> {
    if matches!(result, Ok(n) if n > 0) {
        STDOUT_WRITTEN.store(true, Ordering::Relaxed);
    }
    watch(result)
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        watch_write(self.0.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        watch(self.0.flush())
    }
}

impl<W: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Stdout<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf).map(watch_write)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx).map(watch)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx).map(watch)
    }
}

/// A line of text for the person at the terminal on stdout: `println!` that returns its error,
/// with what would steer the terminal escaped ([`for_terminal`]).
pub fn print_line(text: impl std::fmt::Display) -> io::Result<()> {
    writeln!(stdout(), "{}", for_terminal(&text.to_string()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

/// Which page of a long list to print (`--page`, `--page-size`), or every page (`--all`). A 0 is
/// a usage error naming the flag (exit 2).
#[derive(Debug, Args)]
pub struct Paging {
    /// The page to show, from 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub page: u32,
    /// Records per page, 1 to 200.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=MAX_PAGE_SIZE as i64), allow_negative_numbers = true)]
    pub page_size: u32,
    /// Every page.
    #[arg(long)]
    pub all: bool,
}

impl Paging {
    /// `filters` asking for the page of `--page` and `--page-size` (which clap keeps to 200).
    pub fn query(&self, filters: ListQuery) -> ListQuery {
        ListQuery {
            page_num: Some(self.page),
            page_size: Some(self.page_size.min(MAX_PAGE_SIZE)),
            ..filters
        }
    }

    /// After one page of `what` (`facilities`, `documents`) was read: a note on stderr, in every
    /// output format, when the list holds more than that page.
    /// A page past the last one (`--page 9` of 2) says so, with the pages there are.
    pub fn note_more(&self, paging: &registry_core::api::Paging, shown: usize, what: &str) {
        let size = paging.page_size.max(1);
        let pages = (paging.total + size - 1) / size;
        if shown == 0 && self.page > 1 {
            let last = match pages {
                0 => "there are none".to_owned(),
                1 => "the only page is --page 1".to_owned(),
                n => format!("the last page is --page {n}"),
            };
            note(format!(
                "note: page {} is past the end: {} {what}, {size} per page; {last}",
                self.page, paging.total
            ));
            return;
        }
        if paging.total <= shown as i64 {
            return;
        }
        let next = if i64::from(self.page) < pages {
            format!("next: --page {}, or --all", self.page + 1)
        } else {
            "--all lists every page".to_owned()
        };
        note(format!(
            "page {} of {pages} ({} {what}, {size} per page); {next}",
            self.page, paging.total
        ));
    }
}

/// A list of records: JSON as the API gives them, or a table or CSV under `headers` with one row
/// per record, its cells from `row`.
pub fn print_list<T: Serialize>(
    format: Format,
    records: &[T],
    headers: &[&str],
    row: impl Fn(&T) -> Vec<String>,
) -> anyhow::Result<()> {
    print_list_ranked(format, records, headers, &[], row)
}

/// [`print_list`] whose table, on a terminal too narrow for every column, keeps the columns of
/// `rank` first (most important first; the others follow in the table's order) and leaves out
/// those that do not fit ([`columns`]).
pub fn print_list_ranked<T: Serialize>(
    format: Format,
    records: &[T],
    headers: &[&str],
    rank: &[&str],
    row: impl Fn(&T) -> Vec<String>,
) -> anyhow::Result<()> {
    let cells = records.iter().map(row).collect();
    print_rows(format, records, headers, rank, cells)
}

/// A column of a table: its header, and how a record gives its cell.
pub type Column<T> = (&'static str, fn(&T) -> String);

/// [`print_list`] with each header given together with its cells.
pub fn print_table<T: Serialize>(
    format: Format,
    records: &[T],
    columns: &[Column<T>],
) -> anyhow::Result<()> {
    print_table_ranked(format, records, columns, &[])
}

/// [`print_table`] keeping the columns of `rank` first on a narrow terminal, as
/// [`print_list_ranked`].
pub fn print_table_ranked<T: Serialize>(
    format: Format,
    records: &[T],
    columns: &[Column<T>],
    rank: &[&str],
) -> anyhow::Result<()> {
    let (headers, cells) = headers_and_cells(records, columns);
    print_rows(format, records, &headers, rank, cells)
}

/// The headers of `columns` and each record's cells under them.
fn headers_and_cells<T>(
    records: &[T],
    columns: &[Column<T>],
) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let headers = columns.iter().map(|(header, _)| *header).collect();
    let cells = records
        .iter()
        .map(|r| columns.iter().map(|(_, cell)| cell(r)).collect())
        .collect();
    (headers, cells)
}

fn print_rows<T: Serialize>(
    format: Format,
    records: &[T],
    headers: &[&str],
    rank: &[&str],
    cells: Vec<Vec<String>>,
) -> anyhow::Result<()> {
    let mut out = stdout();
    match format {
        Format::Json => print_json(&records)?,
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record(headers)?;
            for r in &cells {
                facility_csv::write_safe_record(&mut w, r)?;
            }
            w.flush()?;
        }
        Format::Table => {
            let width = terminal_width();
            let cells: Vec<Vec<String>> = cells
                .iter()
                .map(|row| row.iter().map(|c| for_terminal(c).into_owned()).collect())
                .collect();
            let table = list_table(headers, rank, &cells, width);
            writeln!(out, "{table}")?;
            if cells.is_empty() {
                // The header alone could read as a listing that went wrong.
                note("note: no records");
            }
        }
    }
    Ok(())
}

/// The table [`print_table_ranked`] prints on a terminal `width` columns wide (for tests).
#[cfg(test)]
pub fn table_at<T>(width: u16, records: &[T], columns: &[Column<T>], rank: &[&str]) -> String {
    let (headers, cells) = headers_and_cells(records, columns);
    list_table(&headers, rank, &cells, Some(width)).to_string()
}

/// The table of a list under `headers`: on a terminal `width` columns wide, fitted to it
/// ([`columns::fit`]: identifiers, dates and times never split, the columns that do not fit
/// left out, which a note on stderr names); without one, as wide as its content.
fn list_table(headers: &[&str], rank: &[&str], cells: &[Vec<String>], width: Option<u16>) -> Table {
    let mut table = styled_table();
    table.set_header(headers.iter().copied());
    for r in cells {
        table.add_row(r);
    }
    fit(&mut table, width);
    if let Some(width) = width {
        let left_out = columns::fit(&mut table, headers, cells, rank, width);
        if !left_out.is_empty() {
            note(format!(
                "note: left out to fit {width} columns: {} (-o csv, -o json or a wider terminal shows every column)",
                left_out.join(", ")
            ));
        }
    }
    table
}

/// A table in the CLI's style, as wide as its content (for a table inside another's cell).
pub fn styled_table() -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table
}

/// The terminal's width when stdout is one.
pub fn terminal_width() -> Option<u16> {
    io::stdout().is_terminal().then(|| Term::stdout().size().1)
}

/// The terminal's width when stderr is one (for what [`note`] writes).
pub fn stderr_width() -> Option<u16> {
    io::stderr().is_terminal().then(|| Term::stderr().size().1)
}

/// The width of `text`'s widest line, as a terminal shows it.
pub fn text_width(text: &str) -> usize {
    text.lines()
        .map(measure_text_width)
        .max()
        .unwrap_or_default()
}

/// `table` fitted to a terminal `width` columns wide; unchanged without one.
fn fit(table: &mut Table, width: Option<u16>) {
    if let Some(width) = width {
        table.set_content_arrangement(ContentArrangement::Dynamic);
        table.set_width(width);
    }
}

/// One record: JSON as the API gives it, or a two-column table (CSV: a header row and one row).
pub fn print_record<T: Serialize>(
    format: Format,
    record: &T,
    fields: Vec<(&str, String)>,
) -> anyhow::Result<()> {
    match format {
        Format::Table => {
            print_line(record_table(&fields, terminal_width()))?;
            Ok(())
        }
        Format::Json => print_json(record),
        Format::Csv => {
            let headers: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
            let cells = vec![fields.iter().map(|(_, v)| v.clone()).collect()];
            print_rows(
                Format::Csv,
                std::slice::from_ref(record),
                &headers,
                &[],
                cells,
            )
        }
    }
}

/// The two-column table of a record. On a terminal `width` columns wide the values are wrapped
/// here, at spaces, to what the terminal leaves the value column, but an identifier, hash, time
/// or any other word is never split: a word longer than that column gets a line of its own
/// and the table grows past the terminal's width for it, so what is copied from it is whole.
/// Piped, as wide as its content.
pub fn record_table(fields: &[(&str, String)], width: Option<u16>) -> Table {
    let mut table = styled_table();
    let key_width = fields
        .iter()
        .map(|(k, _)| measure_text_width(k))
        .max()
        .unwrap_or_default();
    // `│ key │ value │`: 7 columns of frame.
    let room = width.map(|w| usize::from(w).saturating_sub(key_width + 7).max(10));
    for (k, v) in fields {
        let v = for_terminal(v);
        let value = match room {
            Some(room) => columns::wrap_words(&v, room),
            None => v.into_owned(),
        };
        table.add_row(vec![(*k).to_owned(), value]);
    }
    table
}

/// An RFC 3339 time as read in Brasília (UTC−03:00: Brazil has had no daylight saving since
/// 2019), to the second: `2026-12-01T12:00:00.000000Z` → `2026-12-01 09:00:00 -03:00`. Anything
/// else (a date, a text) as it is. For tables, CSV and messages; JSON keeps the API's UTC.
pub fn brasilia(time: &str) -> String {
    let offset = chrono::FixedOffset::west_opt(3 * 3600).expect("a valid offset");
    match chrono::DateTime::parse_from_rfc3339(time.trim()) {
        Ok(t) => t
            .with_timezone(&offset)
            .format("%Y-%m-%d %H:%M:%S -03:00")
            .to_string(),
        Err(_) => time.to_owned(),
    }
}

/// [`brasilia`] of an optional time (empty when absent).
pub fn brasilia_opt(time: &Option<String>) -> String {
    time.as_deref().map(brasilia).unwrap_or_default()
}

/// A value as pretty JSON on stdout.
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = stdout();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// A cell that says `word` when `on`, else is empty.
pub fn mark(on: bool, word: &str) -> String {
    if on { word.to_owned() } else { String::new() }
}

/// A yes/no cell.
pub fn yes_no(on: bool) -> String {
    if on { "yes" } else { "no" }.to_owned()
}

/// An optional text as a field or cell: empty when absent.
pub fn or_empty(text: &Option<String>) -> String {
    text.clone().unwrap_or_default()
}

/// A sentence for the person at the terminal; on stderr, so stdout stays parseable. What it
/// quotes from a file or the server is shown escaped where it would steer the terminal
/// ([`for_terminal`]).
pub fn note(text: impl std::fmt::Display) {
    eprintln!("{}", for_terminal(&text.to_string()));
}

/// The server's sentence on stderr and, with `-o json`, its answer on stdout for a script.
pub fn message(format: Format, m: &registry_core::api::Message) -> anyhow::Result<()> {
    note(&m.message);
    if format == Format::Json {
        print_json(m)?;
    }
    Ok(())
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

#[cfg(test)]
mod tests;
