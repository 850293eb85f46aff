//! `registry test …`: record QC tests, their history on one equipment, what falls due, edit and
//! delete a record. A test type with a `kind` is computed: the readings are asked for (or read
//! from a file), the figures and verdict shown before saving (docs/qc.md).

use super::output::{self, Format, Rows};
use super::{Ctx, Fail, equipment, facility, prompt, user};
use clap::{Args, Subcommand};
use registry_client::ListQuery;
use registry_core::equipment::{
    Conclusion, DueState, DueTest, QcTest, TestType, local_date, read_qc_test, read_qc_test_of,
};
use registry_core::qc::{self, TestKind};
use serde_json::{Map, Value, json};

#[derive(Debug, Subcommand)]
pub enum TestCommand {
    /// Record a QC test done on one equipment (picked from lists at the terminal).
    Record(RecordArgs),
    /// Show one QC test record (with the figures of a computed test).
    Show { test: String },
    /// Save the one-page PDF report of a test (to upload as its document and sign).
    Report {
        test: String,
        /// Where to write it (default qc-test-<id>.pdf; - for stdout).
        #[arg(long)]
        file: Option<std::path::PathBuf>,
        /// Overwrite the file if it exists.
        #[arg(long)]
        force: bool,
    },
    /// The records of one test type on one equipment, newest first.
    History(HistoryArgs),
    /// What falls due: every test type of one equipment (--equipment), or what needs attention
    /// across the facilities you can read.
    Due(DueArgs),
    /// Edit a record: only the fields given change.
    Edit(EditArgs),
    /// Delete a record (it leaves the history and the due dates; the audit log keeps it).
    Delete {
        test: String,
        #[arg(long, short)]
        yes: bool,
    },
}

/// The fields of a record that can be given on record and on edit.
#[derive(Debug, Args, Default)]
pub struct TestFields {
    /// The kind of the test type, once known (how a CSV of readings is read).
    #[arg(skip)]
    kind: Option<TestKind>,
    /// The day it was done, YYYY-MM-DD (default on record: today in Brasília).
    #[arg(long)]
    date: Option<String>,
    /// Satisfatório, "Satisfatório com observações" or Insatisfatório.
    #[arg(long, value_parser = parse_conclusion)]
    conclusion: Option<Conclusion>,
    /// Who did it: _id, e-mail or name (default: you).
    #[arg(long)]
    performed_by: Option<String>,
    /// The measurements as JSON, e.g. '{"uniformity": 2.1}'; for a computed test type, its
    /// readings (shape per kind: docs/qc.md).
    #[arg(long, conflicts_with = "readings")]
    measurements: Option<String>,
    /// A computed test's readings from a file: JSON (the `measurements` object) or CSV (columns
    /// per kind: docs/qc.md); `-` reads JSON from stdin.
    #[arg(long)]
    readings: Option<std::path::PathBuf>,
    /// Notes ("" clears them on edit).
    #[arg(long)]
    notes: Option<String>,
    /// The report document's _id ("" clears it on edit).
    #[arg(long)]
    document: Option<String>,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// Test type: _id or name (of the equipment's type).
    #[arg(long)]
    test_type: Option<String>,
    #[command(flatten)]
    fields: TestFields,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// Test type: _id or name.
    #[arg(long)]
    test_type: Option<String>,
    /// From this day (YYYY-MM-DD).
    #[arg(long)]
    from: Option<String>,
    /// Before this day (YYYY-MM-DD).
    #[arg(long)]
    to: Option<String>,
}

#[derive(Debug, Args)]
pub struct DueArgs {
    /// Every test type of this equipment (_id), in any state unless --state is given.
    #[arg(long)]
    equipment: Option<String>,
    /// ok, due_soon, overdue, never_done (repeat or comma-separate); across facilities the
    /// default is what needs attention (due_soon, overdue, never_done).
    #[arg(long, value_delimiter = ',', value_parser = parse_state)]
    state: Vec<DueState>,
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long, conflicts_with = "equipment")]
    facility: Option<String>,
    /// Only this equipment type (_id or name).
    #[arg(long = "type", conflicts_with = "equipment")]
    equipment_type: Option<String>,
    /// Only test types whose latest test is Insatisfatório (in any state unless --state is given).
    #[arg(long)]
    failing: bool,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    test: String,
    #[command(flatten)]
    fields: TestFields,
}

fn parse_conclusion(s: &str) -> Result<Conclusion, String> {
    Conclusion::parse(s).ok_or_else(|| format!("must be one of: {}", Conclusion::allowed()))
}

fn parse_state(s: &str) -> Result<DueState, String> {
    DueState::parse(s.trim()).ok_or_else(|| {
        let all: Vec<&str> = DueState::ALL.iter().map(|d| d.as_str()).collect();
        format!("must be one of: {}", all.join(", "))
    })
}

impl TestFields {
    async fn payload(&self, ctx: &Ctx, clear_empty: bool) -> Result<Map<String, Value>, Fail> {
        let mut obj = Map::new();
        if let Some(d) = &self.date {
            obj.insert("date".into(), json!(d));
        }
        if let Some(c) = self.conclusion {
            obj.insert("conclusion".into(), json!(c));
        }
        if let Some(u) = &self.performed_by {
            obj.insert("performedBy".into(), json!(user::resolve(ctx, u).await?.id));
        }
        if let Some(m) = &self.measurements {
            let v: Value = serde_json::from_str(m)
                .map_err(|e| Fail::Usage(format!("--measurements is not valid JSON: {e}")))?;
            obj.insert("measurements".into(), v);
        }
        if let Some(path) = &self.readings {
            obj.insert("measurements".into(), readings_file(path, self.kind)?);
        }
        for (key, value) in [("notes", &self.notes), ("document", &self.document)] {
            match value {
                Some(v) if v.is_empty() && clear_empty => {
                    obj.insert(key.into(), Value::Null);
                }
                Some(v) if !v.is_empty() => {
                    obj.insert(key.into(), json!(v));
                }
                _ => {}
            }
        }
        Ok(obj)
    }
}

pub async fn run(ctx: &Ctx, command: TestCommand) -> Result<(), Fail> {
    match command {
        TestCommand::Record(a) => record(ctx, a).await,
        TestCommand::Show { test } => show(ctx.format, &ctx.client.qc_test(&test).await?),
        TestCommand::Report { test, file, force } => report(ctx, &test, file, force).await,
        TestCommand::History(a) => history(ctx, a).await,
        TestCommand::Due(a) => due(ctx, a).await,
        TestCommand::Edit(mut a) => {
            if a.fields.readings.is_some() {
                let current = ctx.client.qc_test(&a.test).await?;
                a.fields.kind = ctx.client.test_type(&current.type_of_test.id).await?.kind;
            }
            let obj = a.fields.payload(ctx, true).await?;
            if obj.is_empty() {
                return Err(Fail::Usage(
                    "nothing to change: give fields as flags (see --help)".into(),
                ));
            }
            let payload = Value::Object(obj);
            let current = ctx.client.qc_test(&a.test).await?;
            let kind = ctx.client.test_type(&current.type_of_test.id).await?.kind;
            read_qc_test_of(&payload, false, today(), kind.is_some()).map_err(Fail::Invalid)?;
            let t = ctx.client.edit_test(&a.test, &payload).await?;
            output::note(format!("Saved {} of {}", t.type_of_test.name, t.date));
            show(ctx.format, &t)
        }
        TestCommand::Delete { test, yes } => {
            let t = ctx.client.qc_test(&test).await?;
            let question = format!(
                "Delete the {} of {} ({})?",
                t.type_of_test.name, t.date, t.conclusion
            );
            if !prompt::confirm(ctx.interactive, yes, &question)? {
                output::note("Not deleted.");
                return Ok(());
            }
            let m = ctx.client.delete_test(&t.id).await?;
            output::note(format!(
                "{} {} of {}",
                m.message, t.type_of_test.name, t.date
            ));
            Ok(())
        }
    }
}

/// The day QC tests are dated in (product.md §4: Brasília).
fn today() -> chrono::NaiveDate {
    local_date(chrono::Utc::now())
}

async fn record(ctx: &Ctx, mut a: RecordArgs) -> Result<(), Fail> {
    let e = equipment::given_or_pick(ctx, a.equipment, "--equipment").await?;
    let t = equipment::test_type_or_pick(ctx, &e, a.test_type, "--test-type").await?;
    if t.kind.is_some() {
        a.fields.kind = t.kind;
        return record_computed(ctx, &e, &t, a.fields).await;
    }
    let mut obj = a.fields.payload(ctx, false).await?;
    if !obj.contains_key("conclusion") {
        if !ctx.interactive {
            return Err(prompt::missing("--conclusion"));
        }
        let labels: Vec<String> = Conclusion::ALL.iter().map(|c| c.to_string()).collect();
        let i = prompt::fuzzy_pick("Conclusion", &labels)?;
        obj.insert("conclusion".into(), json!(Conclusion::ALL[i]));
    }
    obj.entry("date")
        .or_insert_with(|| json!(today().to_string()));
    obj.insert("equipment".into(), json!(e.id));
    obj.insert("typeOfTest".into(), json!(t.id));
    let payload = Value::Object(obj);
    read_qc_test(&payload, true, today()).map_err(Fail::Invalid)?;
    let r = ctx.client.record_test(&payload).await?;
    output::note(format!(
        "Recorded {} on {} ({}): {}",
        t.name,
        equipment::label(&e),
        r.date,
        r.conclusion
    ));
    show(ctx.format, &r)
}

async fn history(ctx: &Ctx, a: HistoryArgs) -> Result<(), Fail> {
    let e = equipment::given_or_pick(ctx, a.equipment, "--equipment").await?;
    let t = equipment::test_type_or_pick(ctx, &e, a.test_type, "--test-type").await?;
    let mut query = ListQuery::default();
    if let Some(d) = a.from {
        query = query.filter("dateGte", d);
    }
    if let Some(d) = a.to {
        query = query.filter("dateLt", d);
    }
    let list = ctx.client.test_history(&e.id, &t.id, &query).await?;
    print_list(ctx.format, &list)
}

async fn due(ctx: &Ctx, a: DueArgs) -> Result<(), Fail> {
    let mut query = ListQuery::default();
    if !a.state.is_empty() {
        let states: Vec<&str> = a.state.iter().map(|s| s.as_str()).collect();
        query = query.filter("state", states.join(","));
    }
    if a.failing {
        query = query.filter("failing", "true");
    }
    let list = match a.equipment {
        Some(id) => ctx.client.equipment_due(&id, &query).await?,
        None => {
            if let Some(f) = a.facility {
                query = query.filter("facilityId", facility::resolve(ctx, &f).await?.id);
            }
            if let Some(t) = a.equipment_type {
                query = query.filter(
                    "typeOfEquipment",
                    equipment::resolve_type(ctx, &t).await?.id,
                );
            }
            ctx.client.tests_due(&query).await?
        }
    };
    print_due(ctx.format, &list)
}

fn print_list(format: Format, list: &[QcTest]) -> Result<(), Fail> {
    let cells = list
        .iter()
        .map(|t| {
            vec![
                t.id.clone(),
                t.date.clone(),
                t.type_of_test.name.clone(),
                t.conclusion.to_string(),
                t.performed_by.name.clone(),
                t.document.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id",
                "date",
                "typeOfTest",
                "conclusion",
                "performedBy",
                "document",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn print_due(format: Format, list: &[DueTest]) -> Result<(), Fail> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let cells = list
        .iter()
        .map(|d| {
            let e = &d.equipment;
            let mut equipment = [&e.manufacturer, &e.model]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(sn) = &e.serial_number {
                equipment.push_str(&format!(" (SN {sn})"));
            }
            vec![
                d.facility.name.clone(),
                e.id.clone(),
                format!("{} {}", d.type_of_equipment.name, equipment.trim())
                    .trim()
                    .to_owned(),
                d.type_of_test.name.clone(),
                opt(&d.last_date),
                opt(&d.next_due),
                d.state.as_str().to_owned(),
                d.last_conclusion.map(|c| c.to_string()).unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "facility",
                "equipment",
                "description",
                "typeOfTest",
                "lastDate",
                "nextDue",
                "state",
                "lastConclusion",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn show(format: Format, t: &QcTest) -> Result<(), Fail> {
    let figures = t.figures.as_ref().filter(|_| format == Format::Table);
    output::print_record(
        format,
        t,
        vec![
            ("_id", t.id.clone()),
            ("equipment", t.equipment.clone()),
            ("facility", t.facility.name.clone()),
            ("typeOfTest", t.type_of_test.name.clone()),
            ("date", t.date.clone()),
            ("conclusion", t.conclusion.to_string()),
            ("performedBy", t.performed_by.name.clone()),
            (
                "measurements",
                t.measurements
                    .as_ref()
                    .map(Value::to_string)
                    .unwrap_or_default(),
            ),
            ("notes", t.notes.clone().unwrap_or_default()),
            ("document", t.document.clone().unwrap_or_default()),
        ],
    )?;
    if let Some(f) = figures {
        println!("{}", figures_text(f));
    }
    Ok(())
}

async fn report(
    ctx: &Ctx,
    test: &str,
    file: Option<std::path::PathBuf>,
    force: bool,
) -> Result<(), Fail> {
    let target = file.unwrap_or_else(|| format!("qc-test-{test}.pdf").into());
    let to_stdout = target.as_os_str() == "-";
    if !to_stdout && !force && target.exists() {
        return Err(Fail::Usage(format!(
            "{} exists: pass --force to overwrite it, or --file PATH",
            target.display()
        )));
    }
    let mut download = ctx.client.qc_test_report(test).await?;
    // A one-page report: small enough to hold whole.
    let mut pdf = Vec::new();
    while let Some(chunk) = download.chunk().await? {
        pdf.extend_from_slice(&chunk);
    }
    if to_stdout {
        use std::io::Write;
        std::io::stdout().lock().write_all(&pdf)?;
    } else {
        std::fs::write(&target, &pdf)?;
        output::note(format!(
            "Saved the report to {} ({} bytes)",
            target.display(),
            pdf.len()
        ));
    }
    Ok(())
}

/// Records a computed test: readings from the flags, a file or prompts; the figures and verdict
/// computed here (the server computes them again and is the authority) and shown before saving.
async fn record_computed(
    ctx: &Ctx,
    e: &registry_core::equipment::Equipment,
    t: &TestType,
    fields: TestFields,
) -> Result<(), Fail> {
    let kind = t.kind.expect("a computed test type");
    let tolerances = t
        .tolerances
        .clone()
        .or_else(|| kind.default_tolerances())
        .unwrap_or_default();
    if fields.conclusion.is_some() {
        return Err(Fail::Usage(format!(
            "--conclusion cannot be given: {} is computed from its readings",
            t.name
        )));
    }
    let mut obj = fields.payload(ctx, false).await?;
    if !obj.contains_key("measurements") {
        if !ctx.interactive {
            return Err(prompt::missing("--readings"));
        }
        obj.insert("measurements".into(), ask_readings(kind, &tolerances)?);
    }
    obj.entry("date")
        .or_insert_with(|| json!(today().to_string()));
    obj.insert("equipment".into(), json!(e.id));
    obj.insert("typeOfTest".into(), json!(t.id));
    let payload = Value::Object(obj);
    read_qc_test_of(&payload, true, today(), true).map_err(Fail::Invalid)?;
    let computed =
        qc::evaluate(kind, &tolerances, payload.get("measurements")).map_err(Fail::Invalid)?;
    output::note(figures_text(&computed.figures));
    output::note(format!("Verdict: {}", computed.conclusion));
    if ctx.interactive && !prompt::confirm(true, false, "Save this test?")? {
        output::note("Not saved.");
        return Ok(());
    }
    let r = ctx.client.record_test(&payload).await?;
    output::note(format!(
        "Recorded {} on {} ({}): {}",
        t.name,
        equipment::label(e),
        r.date,
        r.conclusion
    ));
    show(ctx.format, &r)
}

/// The figures as text: a table per list (sources, points, geometries, values), then the
/// figures of the whole test.
pub fn figures_text(figures: &Value) -> String {
    use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
    let Some(obj) = figures.as_object() else {
        return qc::display_value(figures);
    };
    let mut out = Vec::new();
    let mut summary = Table::new();
    summary.load_preset(UTF8_FULL_CONDENSED);
    for (key, value) in obj {
        match value {
            Value::Array(rows) if rows.first().is_some_and(Value::is_object) => {
                let headers: Vec<String> = rows[0]
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                let mut table = Table::new();
                table.load_preset(UTF8_FULL_CONDENSED);
                table.set_header(&headers);
                for row in rows {
                    table.add_row(headers.iter().map(|h| qc::display_value(&row[h.as_str()])));
                }
                out.push(format!("{key}:\n{table}"));
            }
            _ => {
                summary.add_row(vec![key.clone(), qc::display_value(value)]);
            }
        }
    }
    out.push(summary.to_string());
    out.join("\n")
}

/// Reads a file of readings: JSON as the `measurements` object, CSV by the kind's columns.
fn readings_file(path: &std::path::Path, kind: Option<TestKind>) -> Result<Value, Fail> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| Fail::Usage(format!("--readings {}: {e}", path.display())))?
    };
    let is_csv = path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("csv"));
    if !is_csv {
        return serde_json::from_str(&text)
            .map_err(|e| Fail::Usage(format!("--readings is not valid JSON: {e}")));
    }
    let kind =
        kind.ok_or_else(|| Fail::Usage("--readings as CSV needs a test type with a kind".into()))?;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| Fail::Usage(format!("--readings: {e}")))?
        .clone();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| Fail::Usage(format!("--readings: {e}")))?;
        let row: Map<String, Value> = headers
            .iter()
            .zip(record.iter())
            .filter(|(_, v)| !v.is_empty())
            .map(|(h, v)| (h.to_owned(), cell(v)))
            .collect();
        rows.push(row);
    }
    Ok(measurements_from_rows(kind, &rows))
}

/// A CSV cell: a number when it reads as one (decimal comma accepted), else the text.
fn cell(v: &str) -> Value {
    v.replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|x| json!(x))
        .unwrap_or_else(|| json!(v))
}

/// Builds `measurements` from CSV rows (docs/qc.md): the test's single values (unit, measuredAt,
/// nuclide, referenceReading) from the first row that has them, the readings row by row.
pub fn measurements_from_rows(kind: TestKind, rows: &[Map<String, Value>]) -> Value {
    let first = |key: &str| rows.iter().find_map(|r| r.get(key).cloned());
    let mut m = Map::new();
    for key in ["unit", "measuredAt", "nuclide", "referenceReading"] {
        let applies = match key {
            "measuredAt" => matches!(kind, TestKind::Accuracy | TestKind::Constancy),
            "nuclide" => matches!(kind, TestKind::Linearity | TestKind::Geometry),
            "referenceReading" => kind == TestKind::Reproducibility,
            _ => kind != TestKind::Recorded,
        };
        if applies && let Some(v) = first(key) {
            m.insert(key.into(), v);
        }
    }
    let col = |r: &Map<String, Value>, key: &str| r.get(key).cloned().unwrap_or(Value::Null);
    match kind {
        TestKind::Constancy | TestKind::Accuracy | TestKind::Precision => {
            let mut sources: Vec<Map<String, Value>> = Vec::new();
            for r in rows {
                let key = ["nuclide", "certificateActivity", "certificateDate"].map(|k| col(r, k));
                let same = sources.iter_mut().find(|s| {
                    ["nuclide", "certificateActivity", "certificateDate"]
                        .iter()
                        .zip(&key)
                        .all(|(k, v)| s.get(*k).unwrap_or(&Value::Null) == v)
                });
                let source = match same {
                    Some(s) => s,
                    None => {
                        let mut s = Map::new();
                        for (k, v) in ["nuclide", "certificateActivity", "certificateDate"]
                            .iter()
                            .zip(key)
                        {
                            if !v.is_null() {
                                s.insert((*k).into(), v);
                            }
                        }
                        s.insert("readings".into(), json!([]));
                        sources.push(s);
                        sources.last_mut().expect("just pushed")
                    }
                };
                if let Some(Value::Array(readings)) = source.get_mut("readings") {
                    readings.push(col(r, "reading"));
                }
            }
            m.insert("sources".into(), json!(sources));
        }
        TestKind::Linearity => {
            let readings: Vec<Value> = rows
                .iter()
                .map(|r| json!({"at": col(r, "at"), "activity": col(r, "activity")}))
                .collect();
            m.insert("readings".into(), json!(readings));
        }
        TestKind::Geometry => {
            let mut geometries: Vec<Value> = rows
                .iter()
                .map(|r| json!({"label": col(r, "label"), "reading": col(r, "reading")}))
                .collect();
            if !geometries.is_empty() {
                m.insert("reference".into(), geometries.remove(0));
            }
            m.insert("geometries".into(), json!(geometries));
        }
        TestKind::Reproducibility => {
            let readings: Vec<Value> = rows.iter().map(|r| col(r, "reading")).collect();
            m.insert("readings".into(), json!(readings));
        }
        TestKind::Recorded => {
            let values: Map<String, Value> = rows
                .iter()
                .filter_map(|r| match r.get("name") {
                    Some(Value::String(n)) => Some((n.clone(), col(r, "value"))),
                    _ => None,
                })
                .collect();
            m.insert("values".into(), Value::Object(values));
        }
    }
    Value::Object(m)
}

fn ask(label: &str) -> Result<String, Fail> {
    Ok(dialoguer::Input::<String>::with_theme(&prompt::theme())
        .with_prompt(label)
        .interact_text()?)
}

/// Numbers separated by spaces or semicolons (a decimal comma is accepted).
fn ask_numbers(label: &str) -> Result<Value, Fail> {
    let text = ask(label)?;
    Ok(json!(
        text.split([' ', ';'])
            .filter(|s| !s.is_empty())
            .map(cell)
            .collect::<Vec<_>>()
    ))
}

/// `{first: text, second: number}` objects, asked for until the first answer is left empty.
fn ask_pairs(first: (&str, &str), second: (&str, &str)) -> Result<Vec<Value>, Fail> {
    let mut out = Vec::new();
    loop {
        let text = prompt::optional_text(first.1)?;
        if text.trim().is_empty() {
            return Ok(out);
        }
        let mut pair = Map::new();
        pair.insert(first.0.into(), json!(text.trim()));
        pair.insert(second.0.into(), cell(&ask(second.1)?));
        out.push(Value::Object(pair));
    }
}

/// Asks for the readings of a test of `kind`, one prompt per figure the physicist reads.
fn ask_readings(kind: TestKind, tolerances: &qc::Tolerances) -> Result<Value, Fail> {
    let mut m = Map::new();
    let unit = |m: &mut Map<String, Value>| -> Result<(), Fail> {
        let units = [String::from("MBq"), String::from("mCi")];
        let i = prompt::fuzzy_pick("Unit", &units)?;
        m.insert("unit".into(), json!(units[i]));
        Ok(())
    };
    match kind {
        TestKind::Constancy | TestKind::Accuracy | TestKind::Precision => {
            unit(&mut m)?;
            let certified = kind != TestKind::Precision;
            if certified {
                m.insert(
                    "measuredAt".into(),
                    json!(ask("Measured at (YYYY-MM-DD HH:MM, Brasília)")?),
                );
            }
            let mut sources = Vec::new();
            loop {
                let mut s = Map::new();
                s.insert(
                    "nuclide".into(),
                    json!(ask("Source nuclide (e.g. Cs-137)")?),
                );
                if certified {
                    s.insert(
                        "certificateActivity".into(),
                        cell(&ask("Certificate activity")?),
                    );
                    s.insert(
                        "certificateDate".into(),
                        json!(ask("Certificate date (YYYY-MM-DD[ HH:MM])")?),
                    );
                }
                s.insert(
                    "readings".into(),
                    ask_numbers("Readings (separated by spaces)")?,
                );
                sources.push(Value::Object(s));
                if !prompt::confirm(true, false, "Another source?")? {
                    break;
                }
            }
            m.insert("sources".into(), json!(sources));
        }
        TestKind::Linearity => {
            unit(&mut m)?;
            m.insert("nuclide".into(), json!(ask("Nuclide (e.g. Tc-99m)")?));
            let readings = ask_pairs(
                ("at", "Reading time (YYYY-MM-DD HH:MM; empty when done)"),
                ("activity", "Activity"),
            )?;
            m.insert("readings".into(), json!(readings));
        }
        TestKind::Geometry => {
            unit(&mut m)?;
            m.insert(
                "reference".into(),
                json!({"label": ask("Reference geometry")?, "reading": cell(&ask("Its reading")?)}),
            );
            let geometries = ask_pairs(
                ("label", "Geometry (empty when done)"),
                ("reading", "Its reading"),
            )?;
            m.insert("geometries".into(), json!(geometries));
        }
        TestKind::Reproducibility => {
            m.insert("unit".into(), json!(ask("Unit (e.g. µSv/h)")?));
            m.insert(
                "referenceReading".into(),
                cell(&ask("Reference reading of the check source")?),
            );
            m.insert(
                "readings".into(),
                ask_numbers("Readings (separated by spaces)")?,
            );
        }
        TestKind::Recorded => {
            let mut values = Map::new();
            for q in &tolerances.quantities {
                values.insert(
                    q.name.clone(),
                    cell(&ask(&format!("{} ({})", q.label, q.unit))?),
                );
            }
            m.insert("values".into(), Value::Object(values));
        }
    }
    Ok(Value::Object(m))
}
