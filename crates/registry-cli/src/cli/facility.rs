//! `registry facility …`: list, show, create, edit, archive, assign/unassign responsibilities,
//! linked users, history, import and export.

use super::output::{self, Format, Rows};
use super::{Ctx, Fail, import, prompt, user, wizard};
use clap::{Args, Subcommand};
use registry_client::facility_csv::{self, strip_cnpj_punctuation};
use registry_client::{ClientError, ListQuery};
use registry_core::api::{Facility, FacilityUserView};
use registry_core::facility::{Mode, read_facility};
use registry_core::{Department, FieldCode, FieldError, MainRole};
use serde_json::{Map, Value, json};
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum FacilityCommand {
    /// List facilities (one page, or all with --all).
    List(ListArgs),
    /// Show one facility (by _id, or by cnpj or exact name).
    Show { facility: String },
    /// Register a facility: by flags, --from-file, or a wizard at the terminal.
    Create(CreateArgs),
    /// Edit a facility: only the fields given change.
    Edit(EditArgs),
    /// Archive a facility (it leaves lists; the record and its history are kept).
    Archive {
        facility: String,
        /// Do not ask for confirmation.
        #[arg(long, short)]
        yes: bool,
    },
    /// Give a user a responsibility; for the four main roles the previous holder is replaced.
    Assign(AssignArgs),
    /// Take a responsibility (or, without --role, the whole link) away from a user.
    Unassign(UnassignArgs),
    /// The users linked to a facility, with their responsibilities and licences.
    Users { facility: String },
    /// The audit history of a facility (staff).
    History { facility: String },
    /// Register many facilities from a CSV or JSON file; a re-run skips those already registered.
    Import(import::ImportArgs),
    /// Every facility (all pages) as CSV (the import format) or JSON.
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Text in the name, company name, cnpj or city.
    #[arg(long)]
    q: Option<String>,
    #[arg(long, value_parser = parse_department)]
    department: Option<Department>,
    #[arg(long)]
    state: Option<String>,
    #[arg(long)]
    city: Option<String>,
    /// Group _id.
    #[arg(long)]
    group: Option<String>,
    /// e.g. "Tc(99m)".
    #[arg(long)]
    radioisotope: Option<String>,
    #[arg(long)]
    practice: Option<String>,
    /// Facilities a user (by _id or e-mail) is linked to.
    #[arg(long)]
    user: Option<String>,
    #[arg(long, default_value_t = 1)]
    page: u32,
    #[arg(long, default_value_t = 20)]
    page_size: u32,
    /// Every page.
    #[arg(long)]
    all: bool,
}

/// The facility fields as flags; any given flag overrides the same field of --from-file.
#[derive(Debug, Args, Default)]
pub struct FacilityFields {
    #[arg(long)]
    name: Option<String>,
    #[arg(long)]
    company_name: Option<String>,
    /// 14 characters; punctuation (12.345.678/0001-95) is removed before sending.
    #[arg(long)]
    cnpj: Option<String>,
    /// With the area code, e.g. "(11) 98765-4321".
    #[arg(long)]
    telephone: Option<String>,
    /// "Medicina Nuclear" or "Radiodiagnóstico".
    #[arg(long)]
    department: Option<String>,
    /// Group _id ("" clears it).
    #[arg(long)]
    group: Option<String>,
    #[arg(long)]
    street: Option<String>,
    #[arg(long)]
    city: Option<String>,
    #[arg(long)]
    state: Option<String>,
    #[arg(long)]
    complement: Option<String>,
    #[arg(long)]
    zip_code: Option<String>,
    #[arg(long = "cnen-registry")]
    cnen_registry: Option<String>,
    /// An authorised practice (repeat for several); replaces the stored set on edit.
    #[arg(long = "practice")]
    practices: Vec<String>,
    /// NAME=QUANTITY in mCi/week, e.g. "Tc(99m)=1500" (repeat); replaces the stored list on edit.
    #[arg(long = "isotope")]
    isotopes: Vec<String>,
    /// A JSON facility payload (the API's field names); "-" reads stdin.
    #[arg(long)]
    from_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    fields: FacilityFields,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    facility: String,
    #[command(flatten)]
    fields: FacilityFields,
}

#[derive(Debug, Args)]
pub struct AssignArgs {
    facility: String,
    /// The user: _id, e-mail or part of the name (prompted when missing).
    #[arg(long)]
    user: Option<String>,
    /// Titular, "Responsável Técnico", Substituto, Supervisor, or a custom value of the server.
    #[arg(long)]
    role: Option<String>,
}

#[derive(Debug, Args)]
pub struct UnassignArgs {
    facility: String,
    #[arg(long)]
    user: String,
    /// Only this responsibility; without it the user is unlinked.
    #[arg(long)]
    role: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[arg(long, value_enum, default_value = "csv")]
    format: ExportFormat,
    /// Write here instead of stdout.
    #[arg(long)]
    file: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
    Json,
}

fn parse_department(s: &str) -> Result<Department, String> {
    Department::parse(s).ok_or_else(|| format!("must be one of: {}", Department::allowed()))
}

pub async fn run(ctx: &Ctx, command: FacilityCommand) -> Result<(), Fail> {
    match command {
        FacilityCommand::List(args) => list(ctx, args).await,
        FacilityCommand::Show { facility } => {
            let f = resolve(ctx, &facility).await?;
            show(ctx.format, &f)
        }
        FacilityCommand::Create(args) => create(ctx, args.fields).await,
        FacilityCommand::Edit(args) => edit(ctx, args).await,
        FacilityCommand::Archive { facility, yes } => archive(ctx, &facility, yes).await,
        FacilityCommand::Assign(args) => assign(ctx, args).await,
        FacilityCommand::Unassign(args) => unassign(ctx, args).await,
        FacilityCommand::Users { facility } => {
            let f = resolve(ctx, &facility).await?;
            print_users(ctx.format, &f.users)
        }
        FacilityCommand::History { facility } => history(ctx, &facility).await,
        FacilityCommand::Import(args) => import::run(ctx, args).await,
        FacilityCommand::Export(args) => export(ctx, args).await,
    }
}

async fn list(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let mut q = ListQuery {
        page_num: Some(a.page),
        page_size: Some(a.page_size),
        filters: Vec::new(),
    };
    for (key, value) in [
        ("q", a.q),
        ("department", a.department.map(|d| d.to_string())),
        ("state", a.state),
        ("city", a.city),
        ("group", a.group),
        ("radioisotope", a.radioisotope),
        ("practice", a.practice),
    ] {
        if let Some(v) = value {
            q = q.filter(key, v);
        }
    }
    if let Some(u) = a.user {
        q = q.filter("userId", user::resolve(ctx, &u).await?.id);
    }
    let facilities = if a.all {
        ctx.client.all_pages("/facilities", &q).await?
    } else {
        let page = ctx.client.facilities(&q).await?;
        if ctx.format == Format::Table && page.paging.total > page.list.len() as i64 {
            output::note(format!(
                "page {} of {} facilities ({} per page); --all lists every page",
                page.paging.page_num, page.paging.total, page.paging.page_size
            ));
        }
        page.list
    };
    print_list(ctx.format, &facilities)
}

fn holder<'a>(f: &'a Facility, role: &str) -> Option<&'a FacilityUserView> {
    f.users
        .iter()
        .find(|u| u.responsabilities.iter().any(|r| r == role))
}

pub fn print_list(format: Format, facilities: &[Facility]) -> Result<(), Fail> {
    let rt = MainRole::TechnicalResponsible.as_str();
    let cells = facilities
        .iter()
        .map(|f| {
            let a = f.address.first();
            vec![
                f.id.clone(),
                f.name.clone(),
                f.cnpj.clone(),
                f.department.to_string(),
                a.map(|a| a.city.clone()).unwrap_or_default(),
                a.map(|a| a.state.clone()).unwrap_or_default(),
                holder(f, rt).map(|u| u.name.clone()).unwrap_or_default(),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: facilities,
            headers: &["_id", "name", "cnpj", "department", "city", "state", rt],
            cells,
        },
    )?;
    Ok(())
}

fn user_line(u: &FacilityUserView) -> String {
    format!(
        "{} <{}>: {}",
        u.name,
        u.email,
        u.responsabilities.join(", ")
    )
}

pub fn show(format: Format, f: &Facility) -> Result<(), Fail> {
    let address = f
        .address
        .iter()
        .map(|a| {
            let mut s = format!("{}, {} - {}", a.street, a.city, a.state);
            if let Some(c) = &a.complement {
                s = format!("{s} ({c})");
            }
            if let Some(z) = &a.zip_code {
                s = format!("{s} {z}");
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n");
    let fields = vec![
        ("_id", f.id.clone()),
        ("name", f.name.clone()),
        ("companyName", f.company_name.clone()),
        ("cnpj", f.cnpj.clone()),
        ("telephone", f.telephone.clone()),
        ("department", f.department.to_string()),
        (
            "group",
            f.group.as_ref().map(|g| g.name.clone()).unwrap_or_default(),
        ),
        ("address", address),
        ("CNENregistry", f.cnen_registry.clone().unwrap_or_default()),
        (
            "practices",
            f.practices
                .iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        (
            "radioisotopes",
            f.radioisotopes
                .iter()
                .map(|r| format!("{} {} mCi/week", r.name, r.quantity))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        (
            "users",
            f.users.iter().map(user_line).collect::<Vec<_>>().join("\n"),
        ),
        ("version", f.version.to_string()),
        ("updatedAt", f.updated_at.clone()),
    ];
    output::print_record(format, f, fields)?;
    Ok(())
}

fn print_users(format: Format, users: &[FacilityUserView]) -> Result<(), Fail> {
    let cells = users
        .iter()
        .map(|u| {
            let l = &u.licences;
            vec![
                u.id.clone(),
                u.name.clone(),
                u.email.clone(),
                u.responsabilities.join(", "),
                join_licence(&l.an_number, &l.an_validity),
                join_licence(&l.fm_number, &l.fm_validity),
            ]
        })
        .collect();
    output::print_rows(
        format,
        Rows {
            records: users,
            headers: &[
                "_id",
                "name",
                "email",
                "responsabilities",
                "AN licence",
                "FM licence",
            ],
            cells,
        },
    )?;
    Ok(())
}

fn join_licence(number: &Option<String>, validity: &Option<String>) -> String {
    match (number, validity) {
        (Some(n), Some(v)) => format!("{n} (until {v})"),
        (Some(n), None) => n.clone(),
        (None, Some(v)) => format!("until {v}"),
        (None, None) => String::new(),
    }
}

/// A facility by `_id`, else by exact cnpj or name among the search results.
pub async fn resolve(ctx: &Ctx, text: &str) -> Result<Facility, Fail> {
    match ctx.client.facility(text).await {
        Ok(f) => return Ok(f),
        Err(ClientError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let bare = strip_cnpj_punctuation(text).unwrap_or_else(|| text.to_owned());
    let found = ctx
        .client
        .facilities(&ListQuery::default().filter("q", bare.clone()))
        .await?
        .list;
    let exact: Vec<Facility> = found
        .into_iter()
        .filter(|f| f.cnpj == bare || f.name.eq_ignore_ascii_case(text))
        .collect();
    match exact.len() {
        0 => Err(Fail::NotFound(format!(
            "no facility with _id, cnpj or name `{text}`"
        ))),
        1 => Ok(exact.into_iter().next().expect("one")),
        _ if ctx.interactive => {
            let labels: Vec<String> = exact
                .iter()
                .map(|f| format!("{} — {} ({})", f.name, f.department, f.id))
                .collect();
            let i = prompt::fuzzy_pick("Which facility?", &labels)?;
            Ok(exact.into_iter().nth(i).expect("picked from the list"))
        }
        _ => Err(Fail::NotFound(format!(
            "`{text}` matches {} facilities ({}); give the _id",
            exact.len(),
            exact
                .iter()
                .map(|f| format!("{} {}", f.id, f.department))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn read_json_file(path: &PathBuf) -> Result<Value, Fail> {
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| Fail::Usage(format!("cannot read {}: {e}", path.display())))?
    };
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Fail::Usage(format!("{} is not valid JSON: {e}", path.display())))?;
    if !value.is_object() {
        return Err(Fail::Usage(format!(
            "{} must hold one JSON object (a facility payload)",
            path.display()
        )));
    }
    Ok(value)
}

impl FacilityFields {
    fn any_field(&self) -> bool {
        self.name.is_some()
            || self.company_name.is_some()
            || self.cnpj.is_some()
            || self.telephone.is_some()
            || self.department.is_some()
            || self.group.is_some()
            || self.street.is_some()
            || self.city.is_some()
            || self.state.is_some()
            || self.complement.is_some()
            || self.zip_code.is_some()
            || self.cnen_registry.is_some()
            || !self.practices.is_empty()
            || !self.isotopes.is_empty()
    }

    /// The payload of --from-file with the flags laid over it. `current_address` is the stored
    /// first address on edit, so that `--city` alone keeps the street.
    fn payload(&self, current_address: Option<Value>) -> Result<Map<String, Value>, Fail> {
        let mut obj = match &self.from_file {
            Some(path) => match read_json_file(path)? {
                Value::Object(o) => o,
                _ => unreachable!("read_json_file checks for an object"),
            },
            None => Map::new(),
        };
        for (key, value) in [
            ("name", &self.name),
            ("companyName", &self.company_name),
            ("cnpj", &self.cnpj),
            ("telephone", &self.telephone),
            ("department", &self.department),
            ("group", &self.group),
            ("CNENregistry", &self.cnen_registry),
        ] {
            if let Some(v) = value {
                obj.insert(key.into(), json!(v));
            }
        }
        let address_flags = [
            ("street", &self.street),
            ("city", &self.city),
            ("state", &self.state),
            ("complement", &self.complement),
            ("zipCode", &self.zip_code),
        ];
        if address_flags.iter().any(|(_, v)| v.is_some()) {
            let mut address = obj
                .get("address")
                .and_then(|a| a.get(0).or(Some(a)).cloned())
                .filter(Value::is_object)
                .or(current_address)
                .unwrap_or_else(|| json!({}));
            for (key, value) in address_flags {
                if let Some(v) = value {
                    address[key] = json!(v);
                }
            }
            obj.insert("address".into(), json!([address]));
        }
        if !self.practices.is_empty() {
            obj.insert("practices".into(), json!(self.practices));
        }
        if !self.isotopes.is_empty() {
            let joined = self.isotopes.join(";");
            obj.insert(
                "radioisotopes".into(),
                facility_csv::parse_radioisotopes(&joined).map_err(Fail::Usage)?,
            );
        }
        Ok(obj)
    }
}

/// The API accepts only the bare CNPJ; a punctuated one is cleaned, and the person told so.
pub fn clean_cnpj(obj: &mut Map<String, Value>) {
    if let Some(Value::String(c)) = obj.get("cnpj")
        && let Some(bare) = strip_cnpj_punctuation(c)
    {
        output::note(format!(
            "note: cnpj sent without punctuation as {bare} (the API accepts only the bare form)"
        ));
        obj.insert("cnpj".into(), json!(bare));
    }
}

/// The server's own rules, run before sending. Custom responsibilities are the server's to judge.
pub fn local_field_errors(payload: &Value, mode: Mode) -> Result<(), Vec<FieldError>> {
    match read_facility(payload, mode, &[]) {
        Ok(_) => Ok(()),
        Err(errors) => {
            let errors: Vec<_> = errors
                .into_iter()
                .filter(|e| e.code != FieldCode::InvalidResponsibility)
                .collect();
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors)
            }
        }
    }
}

fn check_locally(payload: &Value, mode: Mode) -> Result<(), Fail> {
    local_field_errors(payload, mode).map_err(Fail::Invalid)
}

async fn create(ctx: &Ctx, fields: FacilityFields) -> Result<(), Fail> {
    let mut obj = fields.payload(None)?;
    clean_cnpj(&mut obj);
    if ctx.interactive && fields.from_file.is_none() {
        wizard::fill_create(ctx, &mut obj).await?;
    }
    let payload = Value::Object(obj);
    check_locally(&payload, Mode::Create)?;
    let f = ctx.client.register_facility(&payload).await?;
    output::note(format!("Registered facility {} ({})", f.name, f.id));
    show(ctx.format, &f)
}

async fn edit(ctx: &Ctx, args: EditArgs) -> Result<(), Fail> {
    let current = resolve(ctx, &args.facility).await?;
    let mut obj = if ctx.interactive && !args.fields.any_field() && args.fields.from_file.is_none()
    {
        wizard::edit(ctx, &current).await?
    } else {
        let address = current
            .address
            .first()
            .map(|a| serde_json::to_value(a).expect("addresses serialise"));
        args.fields.payload(address)?
    };
    if obj.is_empty() {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help) or --from-file".into(),
        ));
    }
    clean_cnpj(&mut obj);
    let payload = Value::Object(obj);
    check_locally(&payload, Mode::Edit)?;
    let f = ctx
        .client
        .edit_facility(&current.id, &payload, Some(current.version))
        .await?;
    if f.version == current.version {
        output::note("Nothing changed.");
    } else {
        output::note(format!("Saved {} (version {})", f.name, f.version));
    }
    show(ctx.format, &f)
}

async fn archive(ctx: &Ctx, text: &str, yes: bool) -> Result<(), Fail> {
    let f = resolve(ctx, text).await?;
    if !prompt::confirm(
        ctx.interactive,
        yes,
        &format!("Archive {} ({}, {})?", f.name, f.cnpj, f.department),
    )? {
        output::note("Not archived.");
        return Ok(());
    }
    let m = ctx.client.archive_facility(&f.id).await?;
    output::note(format!("{} {} ({})", m.message, f.name, f.id));
    if ctx.format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(anyhow::Error::from)?
        );
    }
    Ok(())
}

/// The links as the API takes them: `[{_id, responsabilities}]`.
fn links(users: &[FacilityUserView]) -> Vec<Value> {
    users
        .iter()
        .map(|u| json!({"_id": u.id, "responsabilities": u.responsabilities}))
        .collect()
}

fn pick_role(ctx: &Ctx, role: Option<String>) -> Result<String, Fail> {
    match role {
        Some(r) => Ok(r),
        None if ctx.interactive => {
            let items: Vec<&str> = MainRole::ALL.iter().map(|r| r.as_str()).collect();
            let i = dialoguer::Select::with_theme(&prompt::theme())
                .with_prompt("Responsibility")
                .items(&items)
                .default(0)
                .interact()?;
            Ok(items[i].to_owned())
        }
        None => Err(prompt::missing("--role")),
    }
}

async fn assign(ctx: &Ctx, a: AssignArgs) -> Result<(), Fail> {
    let before = resolve(ctx, &a.facility).await?;
    let target = match a.user {
        Some(u) => user::resolve(ctx, &u).await?,
        None if ctx.interactive => user::pick(ctx, "User to assign").await?,
        None => return Err(prompt::missing("--user")),
    };
    let role = pick_role(ctx, a.role)?;
    let previous = holder(&before, &role).cloned();
    if previous.as_ref().is_some_and(|p| p.id == target.id) {
        output::note(format!(
            "{} already holds {role} at {}; nothing changed.",
            target.name, before.name
        ));
        return show_or_users(ctx.format, &before);
    }
    let mut users = links(&before.users);
    match users.iter_mut().find(|u| u["_id"] == target.id.as_str()) {
        Some(link) => link["responsabilities"]
            .as_array_mut()
            .expect("built as an array")
            .push(json!(role)),
        None => users.push(json!({"_id": target.id, "responsabilities": [role]})),
    }
    let after = ctx
        .client
        .edit_facility_users(&before.id, &Value::Array(users))
        .await?;
    let mut message = format!(
        "{role} of {}: {} <{}>",
        after.name, target.name, target.email
    );
    if MainRole::parse(&role).is_some() {
        match &previous {
            Some(p) => {
                let still = after.users.iter().find(|u| u.id == p.id);
                let rest = match still {
                    Some(u) if !u.responsabilities.is_empty() => {
                        format!("still linked as {}", u.responsabilities.join(", "))
                    }
                    Some(_) => "still linked, with no responsibility".into(),
                    None => "no longer linked".into(),
                };
                message.push_str(&format!(
                    "\n  replaced {} <{}> as {role} ({rest})",
                    p.name, p.email
                ));
            }
            None => message.push_str(&format!("\n  (nobody held {role} before)")),
        }
    }
    if ctx.format == Format::Table {
        println!("{message}");
        Ok(())
    } else {
        output::note(message);
        show_or_users(ctx.format, &after)
    }
}

fn show_or_users(format: Format, f: &Facility) -> Result<(), Fail> {
    match format {
        Format::Table | Format::Csv => print_users(format, &f.users),
        Format::Json => show(format, f),
    }
}

async fn unassign(ctx: &Ctx, a: UnassignArgs) -> Result<(), Fail> {
    let before = resolve(ctx, &a.facility).await?;
    let target = user::resolve(ctx, &a.user).await?;
    let Some(link) = before.users.iter().find(|u| u.id == target.id) else {
        return Err(Fail::NotFound(format!(
            "{} is not linked to {}",
            target.name, before.name
        )));
    };
    let users: Vec<Value> = match &a.role {
        Some(role) => {
            if !link.responsabilities.iter().any(|r| r == role) {
                return Err(Fail::NotFound(format!(
                    "{} does not hold {role} at {}",
                    target.name, before.name
                )));
            }
            links(&before.users)
                .into_iter()
                .map(|mut u| {
                    if u["_id"] == target.id.as_str() {
                        u["responsabilities"]
                            .as_array_mut()
                            .expect("built as an array")
                            .retain(|r| r != role.as_str());
                    }
                    u
                })
                .collect()
        }
        None => links(&before.users)
            .into_iter()
            .filter(|u| u["_id"] != target.id.as_str())
            .collect(),
    };
    let after = ctx
        .client
        .edit_facility_users(&before.id, &Value::Array(users))
        .await?;
    output::note(match &a.role {
        Some(role) => format!("{} no longer holds {role} at {}", target.name, after.name),
        None => format!("{} unlinked from {}", target.name, after.name),
    });
    show_or_users(ctx.format, &after)
}

async fn history(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve(ctx, text).await?;
    let events = ctx.client.facility_history(&f.id).await?;
    let cells = events
        .iter()
        .map(|e| {
            vec![
                e.at.clone(),
                e.action.clone(),
                e.actor.as_ref().map(|a| a.name.clone()).unwrap_or_default(),
                e.role_changes
                    .iter()
                    .map(|c| serde_json::to_string(c).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: &events,
            headers: &["at", "action", "by", "roleChanges"],
            cells,
        },
    )?;
    Ok(())
}

async fn export(ctx: &Ctx, a: ExportArgs) -> Result<(), Fail> {
    let bar = import::progress_bar(0, "pages");
    let mut all: Vec<Facility> = Vec::new();
    let mut page = 1;
    loop {
        let q = ListQuery {
            page_num: Some(page),
            page_size: Some(registry_client::MAX_PAGE_SIZE),
            filters: Vec::new(),
        };
        let env = ctx.client.facilities(&q).await?;
        bar.set_length(env.paging.total as u64);
        let got = env.list.len();
        all.extend(env.list);
        bar.set_position(all.len() as u64);
        if got == 0 || all.len() as i64 >= env.paging.total {
            break;
        }
        page += 1;
    }
    bar.finish_and_clear();
    let out: Box<dyn std::io::Write> = match &a.file {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(std::io::stdout().lock()),
    };
    match a.format {
        ExportFormat::Json => {
            let mut out = out;
            serde_json::to_writer_pretty(&mut out, &all).map_err(anyhow::Error::from)?;
            writeln!(out)?;
        }
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header = vec!["_id"];
            header.extend_from_slice(facility_csv::COLUMNS);
            w.write_record(&header).map_err(anyhow::Error::from)?;
            for f in &all {
                let mut row = vec![f.id.clone()];
                row.extend(facility_csv::row_from_facility(f));
                w.write_record(&row).map_err(anyhow::Error::from)?;
            }
            w.flush()?;
        }
    }
    output::note(format!("Exported {} facilities.", all.len()));
    Ok(())
}

/// The facility a flag names, else one picked from the list at the terminal, else a usage error
/// naming `flag`.
pub async fn given_or_pick(ctx: &Ctx, given: Option<String>, flag: &str) -> Result<Facility, Fail> {
    match given {
        Some(text) => resolve(ctx, &text).await,
        None if ctx.interactive => {
            let all: Vec<Facility> = ctx
                .client
                .all_pages("/facilities", &ListQuery::default())
                .await?;
            if all.is_empty() {
                return Err(Fail::NotFound("there are no facilities to pick".into()));
            }
            let labels: Vec<String> = all
                .iter()
                .map(|f| format!("{} — {} ({})", f.name, f.department, f.cnpj))
                .collect();
            let i = prompt::fuzzy_pick("Facility", &labels)?;
            Ok(all.into_iter().nth(i).expect("picked from the list"))
        }
        None => Err(prompt::missing(flag)),
    }
}
