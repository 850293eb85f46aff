//! The facility fields of `create` and `edit` as flags and as a payload, the checks run before
//! sending; the user links as the API takes them are in `links`.

use crate::cli::context::{Ctx, Fail};
use crate::cli::flag_terms::FlagTerms;
use crate::cli::offered;
use crate::cli::payload::insert_given;
use crate::cli::{output, resolve};
use clap::Args;
use registry_client::facility_csv::{self, cnpj_stripped_of, strip_cnpj_punctuation};
use registry_core::facility::{Mode, References, UserState, read_facility_partial};
use registry_core::{FieldCode, FieldError};
use serde_json::{Map, Value, json};
use std::io::Read;
use std::path::PathBuf;

mod links;

pub use links::{linked_facility, links, save_links_of};

/// The facility fields as flags; any given flag overrides the same field of --from-file. Their
/// help says what they do on `create`; `edit` adds what they do there (`EDIT_HELP`).
#[derive(Debug, Args, Default, Clone)]
pub struct FacilityFields {
    /// The facility's name.
    #[arg(long)]
    name: Option<String>,
    /// The legal name of the company.
    #[arg(long)]
    company_name: Option<String>,
    /// 14 characters; punctuation (12.345.678/0001-95) is removed before sending.
    #[arg(long)]
    cnpj: Option<String>,
    /// With the area code, e.g. "(11) 98765-4321".
    #[arg(long)]
    telephone: Option<String>,
    /// "Medicina Nuclear" or "Radiodiagnóstico".
    #[arg(long, value_parser = offered::departments(), hide_possible_values = true)]
    department: Option<String>,
    /// The group: _id or exact name.
    #[arg(long)]
    group: Option<String>,
    /// Street and number of the (first) address.
    #[arg(long)]
    street: Option<String>,
    /// City of the address.
    #[arg(long)]
    city: Option<String>,
    /// State of the address, e.g. PE.
    #[arg(long, value_parser = offered::states(), hide_possible_values = true)]
    state: Option<String>,
    /// Complement of the address, e.g. "Sala 3".
    #[arg(long)]
    complement: Option<String>,
    /// Postal code (CEP) of the address.
    #[arg(long)]
    zip_code: Option<String>,
    /// The CNEN registry number.
    #[arg(long = "cnen-registry")]
    cnen_registry: Option<String>,
    /// An authorised practice (repeat for several).
    #[arg(long = "practice", value_parser = offered::practices(), hide_possible_values = true)]
    practices: Vec<String>,
    /// NAME=QUANTITY in mCi/week, e.g. "Tc(99m)=1500" (repeat).
    #[arg(long = "isotope")]
    isotopes: Vec<String>,
    /// A JSON facility payload (the API's field names); "-" reads stdin.
    #[arg(long)]
    pub from_file: Option<PathBuf>,
}

/// The API's path of each field a flag gives, and the flag.
const FLAGS: &str = "name --name
    companyName --company-name
    cnpj --cnpj
    telephone --telephone
    department --department
    group --group
    CNENregistry --cnen-registry
    address[0].street --street
    address[0].city --city
    address[0].state --state
    address[0].complement --complement
    address[0].zipCode --zip-code";

fn read_json_file(path: &PathBuf) -> Result<Value, Fail> {
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| Fail::Usage(format!("cannot read {}: {e}", path.display())))?
    };
    let source = match path.as_os_str() == "-" {
        true => "standard input".to_owned(),
        false => path.display().to_string(),
    };
    // What the file holds is refused as any content is (exit 4), not the command line.
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Fail::Rejected(format!("{source} is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(Fail::Rejected(format!(
            "{source} must hold one JSON object (a facility payload)"
        )));
    }
    Ok(value)
}

impl FacilityFields {
    pub fn any_field(&self) -> bool {
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

    /// The payload's fields in the terms of the flags that gave them (`address[0].street` →
    /// `--street`, `radioisotopes[1]` → ``--isotope `Xx(1)=1,5` ``), for refusals.
    pub fn terms(&self) -> FlagTerms {
        let mut terms = FlagTerms::default();
        let flags_only = FacilityFields {
            from_file: None,
            ..self.clone()
        };
        if let Ok(given) = flags_only.payload(&[]) {
            terms.given_in_table(FLAGS, &Value::Object(given));
        }
        // As `payload` splits them: a flag may hold several `;`-separated items.
        let isotopes = self
            .isotopes
            .iter()
            .flat_map(|i| i.split(';'))
            .map(str::trim)
            .filter(|i| !i.is_empty());
        terms.each("practices", "--practice", &self.practices).each(
            "radioisotopes",
            "--isotope",
            isotopes,
        );
        terms
    }

    /// The payload of --from-file with the flags laid over it. The address flags change the first
    /// address of the file's list or, when it has none, of `stored` (the facility's addresses, on
    /// edit), and every other address is kept: `--city` alone keeps the street and the second
    /// address.
    pub fn payload(&self, stored: &[Value]) -> Result<Map<String, Value>, Fail> {
        let mut obj = match &self.from_file {
            Some(path) => match read_json_file(path)? {
                Value::Object(o) => o,
                _ => unreachable!("read_json_file checks for an object"),
            },
            None => Map::new(),
        };
        insert_given(
            &mut obj,
            [
                ("name", self.name.as_deref()),
                ("companyName", self.company_name.as_deref()),
                ("cnpj", self.cnpj.as_deref()),
                ("telephone", self.telephone.as_deref()),
                ("department", self.department.as_deref()),
                ("group", self.group.as_deref()),
                ("CNENregistry", self.cnen_registry.as_deref()),
            ],
        );
        let address_flags = [
            ("street", &self.street),
            ("city", &self.city),
            ("state", &self.state),
            ("complement", &self.complement),
            ("zipCode", &self.zip_code),
        ];
        if address_flags.iter().any(|(_, v)| v.is_some()) {
            let mut addresses = match obj.get("address") {
                Some(Value::Array(list)) if !list.is_empty() => list.clone(),
                Some(one @ Value::Object(_)) => vec![one.clone()],
                _ => stored.to_vec(),
            };
            if addresses.is_empty() {
                addresses.push(json!({}));
            }
            if !addresses[0].is_object() {
                addresses[0] = json!({});
            }
            for (key, value) in address_flags {
                if let Some(v) = value {
                    addresses[0][key] = json!(v);
                }
            }
            obj.insert("address".into(), Value::Array(addresses));
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

/// The API's path of the field `flag` gives (`--street` → `address[0].street`).
pub fn path_of(flag: &str) -> &'static str {
    FLAGS
        .lines()
        .filter_map(|l| l.trim().split_once(' '))
        .find(|(_, f)| *f == flag)
        .map_or("", |(path, _)| path)
}

/// The flags of the required fields a new facility's payload lacks (none given and none in the
/// address built from the flags), in the order `--help` lists them.
pub fn missing_required_flags(obj: &Map<String, Value>) -> Vec<&'static str> {
    let mut missing: Vec<&'static str> = [
        ("name", "--name"),
        ("companyName", "--company-name"),
        ("cnpj", "--cnpj"),
        ("telephone", "--telephone"),
        ("department", "--department"),
    ]
    .into_iter()
    .filter(|(key, _)| !obj.contains_key(*key))
    .map(|(_, flag)| flag)
    .collect();
    let address = obj
        .get("address")
        .and_then(|a| a.get(0).or(Some(a)))
        .filter(|a| a.is_object());
    for (key, flag) in [
        ("street", "--street"),
        ("city", "--city"),
        ("state", "--state"),
    ] {
        if address.and_then(|a| a.get(key)).is_none() {
            missing.push(flag);
        }
    }
    missing
}

/// The group a payload names by `_id` or exact name (`--group`, a file's `group`) as its `_id`,
/// which is what the API takes; "" and null (no group) stay as they are. A group this server
/// does not have is taken out of `obj` and returned as the refusal of `group`, to be reported
/// with the payload's others ([`refusal`]).
pub async fn group_to_id(
    ctx: &Ctx,
    obj: &mut Map<String, Value>,
) -> Result<Option<FieldError>, Fail> {
    if let Some(Value::String(g)) = obj.get("group")
        && !g.trim().is_empty()
    {
        match resolve::group(ctx, g).await {
            Ok(group) => {
                obj.insert("group".into(), json!(group.id));
            }
            Err(Fail::NotFound(message)) => {
                obj.remove("group");
                let error = FieldError::new("group", FieldCode::GroupNotFound, message);
                return Ok(Some(error));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// The API accepts only the bare CNPJ; one written with punctuation or spaces around it is
/// cleaned, and the person told so ("read", not "sent": the cleaned value may still be refused
/// by the local check, and then nothing is sent).
pub fn clean_cnpj(obj: &mut Map<String, Value>) {
    if let Some(Value::String(c)) = obj.get("cnpj")
        && let Some(bare) = strip_cnpj_punctuation(c)
    {
        output::note(format!(
            "note: cnpj read without {} as {bare} (the API accepts only the bare form)",
            cnpj_stripped_of(c, &bare)
        ));
        obj.insert("cnpj".into(), json!(bare));
    }
}

/// The server's own rules, run before sending: the payload read as the server reads it and, for a
/// new facility, the rules of its creation (`FacilityChanges::into_new`: one holder per main
/// role, the group and each linked user existing and active) with `refs` what this server holds
/// of them — `None` takes every one as there and active, for the rules the payload alone
/// decides. An edit's links are judged against the stored ones, by the server. Custom
/// responsibilities are the server's to judge.
pub fn local_field_errors(
    payload: &Value,
    mode: Mode,
    refs: Option<&References>,
) -> Result<(), Vec<FieldError>> {
    let (changes, errors) = read_facility_partial(payload, mode, &[]);
    let errors = match mode {
        Mode::Edit => errors.into_vec(),
        Mode::Create => {
            let all_there = || References {
                group_exists: true,
                users: (changes.linked_user_ids().unwrap_or_default().into_iter())
                    .map(|id| (id.to_owned(), UserState::Active))
                    .collect(),
                linked_to_records: false,
            };
            let refs = refs.cloned().unwrap_or_else(all_there);
            changes.into_new(&refs, errors).err().unwrap_or_default()
        }
    };
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

/// At a terminal, before the wizard's first question: the fields given as flags that the local
/// check refuses are taken out of `obj` (each refusal noted), so the wizard asks for them, with
/// the value given as the text to correct. Returns the fields taken out.
pub fn take_refused(obj: &mut Map<String, Value>, terms: &FlagTerms) -> Map<String, Value> {
    let mut refused = Map::new();
    let errors = local_field_errors(&Value::Object(obj.clone()), Mode::Create, None).err();
    for e in errors.unwrap_or_default() {
        let key = e.field.split(['[', '.']).next().unwrap_or_default();
        if let Some(value) = obj.remove(key) {
            refused.insert(key.to_owned(), value);
        }
        if refused.contains_key(key) {
            // Named as the person gave it: by its flag.
            let name = terms.label(&e.field).unwrap_or(&e.field);
            output::note(format!("{name}: {}", e.message));
        }
    }
    refused
}

/// An edit's payload checked before sending ([`local_field_errors`]), with a group not found
/// (`unknown_group`) among the refusals ([`refusal`]).
pub fn check_locally(payload: &Value, unknown_group: Option<FieldError>) -> Result<(), Fail> {
    let errors = local_field_errors(payload, Mode::Edit, None).err();
    refusal(errors.unwrap_or_default(), unknown_group)
}

/// A new facility's payload checked before sending ([`local_field_errors`]), with a group not
/// found (`unknown_group`) among the refusals ([`refusal`]). Once refused, its group and linked
/// users are read from the server too, so that the refusal names everything the server would (a
/// user not found or deactivated) and one pass fixes the file; a payload that passes leaves them
/// to the server, whose answer lists every field it refuses.
pub async fn check_new(
    ctx: &Ctx,
    payload: &Value,
    unknown_group: Option<FieldError>,
) -> Result<(), Fail> {
    if local_field_errors(payload, Mode::Create, None).is_ok() {
        return refusal(Vec::new(), unknown_group);
    }
    let (changes, _) = read_facility_partial(payload, Mode::Create, &[]);
    let mut refs = References::default();
    if let Some(group) = changes.named_group() {
        refs.group_exists = resolve::by_id(ctx.client.group(group).await)?.is_some();
    }
    for id in changes.linked_user_ids().unwrap_or_default() {
        if let Some(user) = resolve::by_id(ctx.client.user(id).await)? {
            refs.users.insert(id.to_owned(), UserState::of(user.active));
        }
    }
    let errors = local_field_errors(payload, Mode::Create, Some(&refs)).err();
    refusal(errors.unwrap_or_default(), unknown_group)
}

/// The refusals of a payload as the command's failure, a group not found (`group_to_id`) among
/// them: alone, it is not found (exit 5), as a `--group` naming no group always was; with other
/// refusals it is one of them (exit 4), so that one pass fixes them all.
fn refusal(mut errors: Vec<FieldError>, unknown_group: Option<FieldError>) -> Result<(), Fail> {
    match unknown_group {
        None if errors.is_empty() => Ok(()),
        Some(group) if errors.is_empty() => Err(Fail::NotFound(group.message)),
        group => {
            errors.extend(group);
            Err(Fail::Invalid(errors))
        }
    }
}
