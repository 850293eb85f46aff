//! `registry equipment …`: a facility's equipment, the equipment types and the QC test types; and
//! finding equipment and types by `_id` or name for the test and document commands.

use super::output::{self, Format, Rows};
use super::{Ctx, Fail, facility, prompt};
use clap::{Args, Subcommand};
use registry_client::{ClientError, ListQuery};
use registry_core::equipment::{Equipment, EquipmentType, TestType};
use serde_json::{Map, Value, json};

#[derive(Debug, Subcommand)]
pub enum EquipmentCommand {
    /// A facility's equipment (picked from a list at the terminal when --facility is missing).
    List(ListArgs),
    /// Show one piece of equipment by _id.
    Show { equipment: String },
    /// Register equipment at a facility.
    Create(CreateArgs),
    /// Edit equipment: only the fields given change.
    Edit(EditArgs),
    /// Archive equipment (it and its QC tests leave every list; the audit log keeps them).
    Archive {
        equipment: String,
        #[arg(long, short)]
        yes: bool,
    },
    /// The equipment types (Gama Câmara, PET/CT...).
    Types {
        /// Text in the name.
        #[arg(long)]
        q: Option<String>,
    },
    /// The QC test types and how often each falls due.
    TestTypes {
        /// Only those of this equipment type (_id or name).
        #[arg(long = "type")]
        equipment_type: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Equipment type: _id or name.
    #[arg(long = "type")]
    equipment_type: Option<String>,
    /// Only in service (true) or out of service (false).
    #[arg(long)]
    active: Option<bool>,
    /// Text in the manufacturer, model, serial or patrimonial number, or localization.
    #[arg(long)]
    q: Option<String>,
}

/// The equipment fields as flags; "" clears a text field on edit.
#[derive(Debug, Args, Default)]
pub struct EquipmentFields {
    #[arg(long)]
    manufacturer: Option<String>,
    #[arg(long)]
    model: Option<String>,
    #[arg(long)]
    serial_number: Option<String>,
    #[arg(long)]
    patrimonial_number: Option<String>,
    /// Where it stands, e.g. "Sala 2".
    #[arg(long)]
    localization: Option<String>,
    /// Type-specific data as KEY=VALUE (repeat); VALUE is read as JSON when it parses
    /// (numbers, true/false), else as text. Replaces the stored attributes on edit.
    #[arg(long = "attribute", value_parser = parse_attribute)]
    attributes: Vec<(String, Value)>,
    /// Type-specific data as one JSON object (merged under the --attribute flags).
    #[arg(long)]
    attributes_json: Option<String>,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The facility: _id, cnpj or exact name (picked from a list when missing).
    #[arg(long)]
    facility: Option<String>,
    /// Equipment type: _id or name (picked from a list when missing).
    #[arg(long = "type")]
    equipment_type: Option<String>,
    #[command(flatten)]
    fields: EquipmentFields,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    equipment: String,
    /// Equipment type: _id or name (refused once QC tests were recorded).
    #[arg(long = "type")]
    equipment_type: Option<String>,
    /// In service (true) or out of service (false; it leaves `test due`).
    #[arg(long)]
    active: Option<bool>,
    #[command(flatten)]
    fields: EquipmentFields,
}

fn parse_attribute(s: &str) -> Result<(String, Value), String> {
    let (key, value) = s
        .split_once('=')
        .ok_or("must be KEY=VALUE, e.g. detectors=2")?;
    let key = key.trim();
    if key.is_empty() {
        return Err("the KEY of KEY=VALUE is empty".into());
    }
    let value = serde_json::from_str(value).unwrap_or_else(|_| json!(value));
    Ok((key.to_owned(), value))
}

impl EquipmentFields {
    /// The payload of the fields given; `clear_empty` turns "" into null (edit).
    fn payload(&self, clear_empty: bool) -> Result<Map<String, Value>, Fail> {
        let mut obj = Map::new();
        for (key, value) in [
            ("manufacturer", &self.manufacturer),
            ("model", &self.model),
            ("serialNumber", &self.serial_number),
            ("patrimonialNumber", &self.patrimonial_number),
            ("localization", &self.localization),
        ] {
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
        let mut attributes = match &self.attributes_json {
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(o)) => o,
                _ => {
                    return Err(Fail::Usage(
                        "--attributes-json must be one JSON object, e.g. '{\"detectors\": 2}'"
                            .into(),
                    ));
                }
            },
            None => Map::new(),
        };
        for (k, v) in &self.attributes {
            attributes.insert(k.clone(), v.clone());
        }
        if self.attributes_json.is_some() || !self.attributes.is_empty() {
            obj.insert("attributes".into(), Value::Object(attributes));
        }
        Ok(obj)
    }
}

pub async fn run(ctx: &Ctx, command: EquipmentCommand) -> Result<(), Fail> {
    match command {
        EquipmentCommand::List(a) => list(ctx, a).await,
        EquipmentCommand::Show { equipment } => {
            show(ctx.format, &ctx.client.equipment(&equipment).await?)
        }
        EquipmentCommand::Create(a) => create(ctx, a).await,
        EquipmentCommand::Edit(a) => edit(ctx, a).await,
        EquipmentCommand::Archive { equipment, yes } => {
            let e = ctx.client.equipment(&equipment).await?;
            if !prompt::confirm(ctx.interactive, yes, &format!("Archive {}?", label(&e)))? {
                output::note("Not archived.");
                return Ok(());
            }
            let m = ctx.client.archive_equipment(&e.id).await?;
            output::note(format!("{} {}", m.message, label(&e)));
            Ok(())
        }
        EquipmentCommand::Types { q } => {
            let query = match q {
                Some(q) => ListQuery::default().filter("q", q),
                None => ListQuery::default(),
            };
            let types = ctx.client.equipment_types(&query).await?;
            let cells = types
                .iter()
                .map(|t| {
                    vec![
                        t.id.clone(),
                        t.name.clone(),
                        t.description.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            output::print_rows(
                ctx.format,
                Rows {
                    records: &types,
                    headers: &["_id", "name", "description"],
                    cells,
                },
            )?;
            Ok(())
        }
        EquipmentCommand::TestTypes { equipment_type } => {
            let type_id = match equipment_type {
                Some(t) => Some(resolve_type(ctx, &t).await?.id),
                None => None,
            };
            let list = ctx.client.test_types(type_id.as_deref()).await?;
            let cells = list
                .iter()
                .map(|t| {
                    vec![
                        t.id.clone(),
                        t.name.clone(),
                        t.type_of_equipment.name.clone(),
                        t.expiration_in_days.to_string(),
                        t.description.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            output::print_rows(
                ctx.format,
                Rows {
                    records: &list,
                    headers: &[
                        "_id",
                        "name",
                        "typeOfEquipment",
                        "expirationInDays",
                        "description",
                    ],
                    cells,
                },
            )?;
            Ok(())
        }
    }
}

async fn list(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let f = facility::given_or_pick(ctx, a.facility, "--facility").await?;
    let mut query = ListQuery::default();
    if let Some(t) = a.equipment_type {
        query = query.filter("typeOfEquipment", resolve_type(ctx, &t).await?.id);
    }
    if let Some(active) = a.active {
        query = query.filter("active", active.to_string());
    }
    if let Some(q) = a.q {
        query = query.filter("q", q);
    }
    let list: Vec<Equipment> = ctx
        .client
        .all_pages(&format!("/facility/{}/equipments", f.id), &query)
        .await?;
    print_list(ctx.format, &list)
}

async fn create(ctx: &Ctx, a: CreateArgs) -> Result<(), Fail> {
    let f = facility::given_or_pick(ctx, a.facility, "--facility").await?;
    let t = given_or_pick_type(ctx, a.equipment_type).await?;
    let mut obj = a.fields.payload(false)?;
    if ctx.interactive {
        for (key, label) in [
            ("manufacturer", "Manufacturer"),
            ("model", "Model"),
            ("serialNumber", "Serial number"),
        ] {
            if !obj.contains_key(key) {
                let v = prompt::optional_text(&format!("{label} (empty to skip)"))?;
                if !v.is_empty() {
                    obj.insert(key.into(), json!(v));
                }
            }
        }
    }
    obj.insert("facility".into(), json!(f.id));
    obj.insert("typeOfEquipment".into(), json!(t.id));
    let e = ctx.client.register_equipment(&Value::Object(obj)).await?;
    output::note(format!("Registered {} at {} ({})", label(&e), f.name, e.id));
    show(ctx.format, &e)
}

async fn edit(ctx: &Ctx, a: EditArgs) -> Result<(), Fail> {
    let mut obj = a.fields.payload(true)?;
    if let Some(t) = a.equipment_type {
        obj.insert(
            "typeOfEquipment".into(),
            json!(resolve_type(ctx, &t).await?.id),
        );
    }
    if let Some(active) = a.active {
        obj.insert("active".into(), json!(active));
    }
    if obj.is_empty() {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help)".into(),
        ));
    }
    obj.insert("_id".into(), json!(a.equipment));
    let e = ctx.client.edit_equipment(&Value::Object(obj)).await?;
    output::note(format!("Saved {}", label(&e)));
    show(ctx.format, &e)
}

/// "Gama Câmara Siemens Symbia (SN 123)": how a person recognises a piece of equipment.
pub fn label(e: &Equipment) -> String {
    let mut parts = vec![e.type_of_equipment.name.clone()];
    parts.extend(e.manufacturer.clone());
    parts.extend(e.model.clone());
    let mut text = parts.join(" ");
    if let Some(sn) = &e.serial_number {
        text.push_str(&format!(" (SN {sn})"));
    }
    text
}

pub fn print_list(format: Format, list: &[Equipment]) -> Result<(), Fail> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let cells = list
        .iter()
        .map(|e| {
            vec![
                e.id.clone(),
                e.facility.name.clone(),
                e.type_of_equipment.name.clone(),
                opt(&e.manufacturer),
                opt(&e.model),
                opt(&e.serial_number),
                opt(&e.localization),
                if e.active { "yes" } else { "no" }.into(),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: list,
            headers: &[
                "_id",
                "facility",
                "typeOfEquipment",
                "manufacturer",
                "model",
                "serialNumber",
                "localization",
                "active",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn show(format: Format, e: &Equipment) -> Result<(), Fail> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    output::print_record(
        format,
        e,
        vec![
            ("_id", e.id.clone()),
            (
                "facility",
                format!("{} ({})", e.facility.name, e.facility.id),
            ),
            ("typeOfEquipment", e.type_of_equipment.name.clone()),
            ("manufacturer", opt(&e.manufacturer)),
            ("model", opt(&e.model)),
            ("serialNumber", opt(&e.serial_number)),
            ("patrimonialNumber", opt(&e.patrimonial_number)),
            ("localization", opt(&e.localization)),
            ("attributes", e.attributes.to_string()),
            ("active", e.active.to_string()),
        ],
    )?;
    Ok(())
}

/// Finds one among `items` by `_id`, exact name (ignoring case), or the one name containing
/// `text`; `what` names the kind of record in errors.
fn find_by_name<T: Clone>(
    items: &[T],
    text: &str,
    what: &str,
    id: impl Fn(&T) -> &str,
    name: impl Fn(&T) -> &str,
) -> Result<T, Fail> {
    let t = text.trim();
    if let Some(x) = items
        .iter()
        .find(|x| id(x) == t || name(x).to_lowercase() == t.to_lowercase())
    {
        return Ok(x.clone());
    }
    let partial: Vec<&T> = items
        .iter()
        .filter(|x| name(x).to_lowercase().contains(&t.to_lowercase()))
        .collect();
    match partial.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(Fail::NotFound(format!(
            "no {what} with _id or name `{text}`; one of: {}",
            items.iter().map(&name).collect::<Vec<_>>().join(", ")
        ))),
        many => Err(Fail::NotFound(format!(
            "`{text}` matches {} {what}s ({}); give the exact name or _id",
            many.len(),
            many.iter().map(|x| name(x)).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// An equipment type by `_id` or name.
pub async fn resolve_type(ctx: &Ctx, text: &str) -> Result<EquipmentType, Fail> {
    let types = ctx.client.equipment_types(&ListQuery::default()).await?;
    find_by_name(&types, text, "equipment type", |t| &t.id, |t| &t.name)
}

async fn given_or_pick_type(ctx: &Ctx, given: Option<String>) -> Result<EquipmentType, Fail> {
    match given {
        Some(t) => resolve_type(ctx, &t).await,
        None if ctx.interactive => {
            let types = ctx.client.equipment_types(&ListQuery::default()).await?;
            let labels: Vec<String> = types.iter().map(|t| t.name.clone()).collect();
            let i = prompt::fuzzy_pick("Equipment type", &labels)?;
            Ok(types.into_iter().nth(i).expect("picked from the list"))
        }
        None => Err(prompt::missing("--type")),
    }
}

/// A test type of `equipment`'s type by `_id` or name, else picked at the terminal.
pub async fn test_type_or_pick(
    ctx: &Ctx,
    equipment: &Equipment,
    given: Option<String>,
    flag: &str,
) -> Result<TestType, Fail> {
    let types = ctx
        .client
        .test_types(Some(&equipment.type_of_equipment.id))
        .await?;
    match given {
        Some(text) => find_by_name(
            &types,
            &text,
            &format!("test type of {}", equipment.type_of_equipment.name),
            |t| &t.id,
            |t| &t.name,
        ),
        None if ctx.interactive => {
            if types.is_empty() {
                return Err(Fail::NotFound(format!(
                    "{} has no test types",
                    equipment.type_of_equipment.name
                )));
            }
            let labels: Vec<String> = types
                .iter()
                .map(|t| format!("{} (every {} days)", t.name, t.expiration_in_days))
                .collect();
            let i = prompt::fuzzy_pick("Test type", &labels)?;
            Ok(types.into_iter().nth(i).expect("picked from the list"))
        }
        None => Err(prompt::missing(flag)),
    }
}

/// The equipment a flag names (by `_id`), else a facility and then its equipment picked at the
/// terminal, else a usage error naming `flag`.
pub async fn given_or_pick(
    ctx: &Ctx,
    given: Option<String>,
    flag: &str,
) -> Result<Equipment, Fail> {
    match given {
        Some(id) => match ctx.client.equipment(&id).await {
            Ok(e) => Ok(e),
            Err(ClientError::NotFound(_)) => Err(Fail::NotFound(format!(
                "no equipment with _id `{id}` ({flag})"
            ))),
            Err(e) => Err(e.into()),
        },
        None if ctx.interactive => {
            let f = facility::given_or_pick(ctx, None, "--facility").await?;
            let list: Vec<Equipment> = ctx
                .client
                .all_pages(
                    &format!("/facility/{}/equipments", f.id),
                    &ListQuery::default(),
                )
                .await?;
            if list.is_empty() {
                return Err(Fail::NotFound(format!("{} has no equipment", f.name)));
            }
            let labels: Vec<String> = list.iter().map(label).collect();
            let i = prompt::fuzzy_pick("Equipment", &labels)?;
            Ok(list.into_iter().nth(i).expect("picked from the list"))
        }
        None => Err(prompt::missing(flag)),
    }
}
