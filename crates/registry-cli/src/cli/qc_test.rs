//! `registry test …`: record QC tests, their history on one equipment, what falls due, edit and
//! delete a record.

use super::output::{self, Format, Rows};
use super::{Ctx, Fail, equipment, facility, prompt, user};
use clap::{Args, Subcommand};
use registry_client::ListQuery;
use registry_core::equipment::{Conclusion, DueState, DueTest, QcTest, local_date, read_qc_test};
use serde_json::{Map, Value, json};

#[derive(Debug, Subcommand)]
pub enum TestCommand {
    /// Record a QC test done on one equipment (picked from lists at the terminal).
    Record(RecordArgs),
    /// Show one QC test record.
    Show { test: String },
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
    /// The day it was done, YYYY-MM-DD (default on record: today in Brasília).
    #[arg(long)]
    date: Option<String>,
    /// Satisfatório, "Satisfatório com observações" or Insatisfatório.
    #[arg(long, value_parser = parse_conclusion)]
    conclusion: Option<Conclusion>,
    /// Who did it: _id, e-mail or name (default: you).
    #[arg(long)]
    performed_by: Option<String>,
    /// The measurements as JSON, e.g. '{"uniformity": 2.1}'.
    #[arg(long)]
    measurements: Option<String>,
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
        TestCommand::History(a) => history(ctx, a).await,
        TestCommand::Due(a) => due(ctx, a).await,
        TestCommand::Edit(a) => {
            let obj = a.fields.payload(ctx, true).await?;
            if obj.is_empty() {
                return Err(Fail::Usage(
                    "nothing to change: give fields as flags (see --help)".into(),
                ));
            }
            let payload = Value::Object(obj);
            read_qc_test(&payload, false, today()).map_err(Fail::Invalid)?;
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

async fn record(ctx: &Ctx, a: RecordArgs) -> Result<(), Fail> {
    let e = equipment::given_or_pick(ctx, a.equipment, "--equipment").await?;
    let t = equipment::test_type_or_pick(ctx, &e, a.test_type, "--test-type").await?;
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
            ],
            cells,
        },
    )?;
    Ok(())
}

fn show(format: Format, t: &QcTest) -> Result<(), Fail> {
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
    Ok(())
}
