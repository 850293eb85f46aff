//! The facility wizards: prompts for what flags did not give, each answer checked by the same core
//! types the server uses, with the allowed values to pick from.

use super::fields;
use crate::cli::changes::Changes;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output;
use crate::cli::prompt::{self, edit_text as text, optional_text};
use crate::cli::resolve;
use crate::cli::rules::not_empty;
use registry_client::ListQuery;
use registry_client::facility_csv::{cnpj_stripped_of, strip_cnpj_punctuation};
use registry_core::api::{Facility, FacilityUserInput, Group};
use registry_core::values::{Telephone, WeeklyQuantity};
use registry_core::{Cnpj, Department, MainRole, Practice, Radioisotope};
use serde_json::{Map, Value, json};

fn cnpj_rule(s: &str) -> Result<(), String> {
    let bare = strip_cnpj_punctuation(s).unwrap_or_else(|| s.to_owned());
    Cnpj::parse(&bare)
        .map(|_| ())
        .map_err(|e| format!("cnpj {e}"))
}

fn telephone_rule(s: &str) -> Result<(), String> {
    Telephone::parse(s)
        .map(|_| ())
        .ok_or_else(|| "must include the area code, e.g. (11) 98765-4321".into())
}

fn quantity_rule(s: &str) -> Result<(), String> {
    WeeklyQuantity::from_json(&json!(s))
        .map(|_| ())
        .ok_or_else(|| WeeklyQuantity::RULE.into())
}

fn cnpj(initial: &str) -> Result<String, Fail> {
    let raw = text("CNPJ (14 characters)", initial, &cnpj_rule)?;
    Ok(match strip_cnpj_punctuation(&raw) {
        Some(bare) => {
            output::note(format!(
                "note: cnpj read without {} as {bare}",
                cnpj_stripped_of(&raw, &bare)
            ));
            bare
        }
        None => raw,
    })
}

fn department(current: Option<Department>) -> Result<Department, Fail> {
    let items: Vec<&str> = Department::ALL.iter().map(|d| d.as_str()).collect();
    let current = current.and_then(|c| Department::ALL.iter().position(|d| *d == c));
    let i = prompt::select("Department", &items, current.unwrap_or(0))?;
    Ok(Department::ALL[i])
}

fn practices(current: &[Practice]) -> Result<Vec<&'static str>, Fail> {
    let items: Vec<&str> = Practice::ALL.iter().map(|p| p.as_str()).collect();
    let marked: Vec<bool> = Practice::ALL.iter().map(|p| current.contains(p)).collect();
    let chosen = prompt::multi_select("Authorised practices", &items, &marked)?;
    Ok(chosen.into_iter().map(|i| items[i]).collect())
}

fn radioisotopes(current: &[(Radioisotope, f64)]) -> Result<Value, Fail> {
    let items: Vec<&str> = Radioisotope::ALL.iter().map(|r| r.as_str()).collect();
    let marked: Vec<bool> = Radioisotope::ALL
        .iter()
        .map(|r| current.iter().any(|(c, _)| c == r))
        .collect();
    let mut chosen = prompt::multi_select("Authorised radioisotopes", &items, &marked)?;
    // In the stored order (new ones after), so that one changed quantity does not reorder the
    // whole list in the history.
    chosen.sort_by_key(|&i| {
        let stored = current.iter().position(|(c, _)| *c == Radioisotope::ALL[i]);
        (stored.unwrap_or(usize::MAX), i)
    });
    let mut out = Vec::new();
    for i in chosen {
        let iso = Radioisotope::ALL[i];
        let initial = current
            .iter()
            .find(|(c, _)| *c == iso)
            .map(|(_, q)| q.to_string())
            .unwrap_or_default();
        let q = text(&format!("{iso}: mCi per week"), &initial, &quantity_rule)?;
        out.push(json!({"name": iso.as_str(), "quantity": q}));
    }
    Ok(Value::Array(out))
}

/// The group picked among the existing ones, or "no group" (`None`); nothing is asked when there
/// are no groups. On edit the cursor starts on `current` (an `_id`).
async fn group(ctx: &Ctx, current: Option<&str>) -> Result<Option<String>, Fail> {
    let groups: Vec<Group> = ctx
        .client
        .all_pages("/group", &ListQuery::default())
        .await?;
    if groups.is_empty() {
        return Ok(None);
    }
    let mut items = vec![NO_GROUP.to_owned()];
    items.extend(groups.iter().map(|g| match &g.description {
        Some(d) if !d.is_empty() => format!("{} — {d}", g.name),
        _ => g.name.clone(),
    }));
    let default = current
        .and_then(|id| groups.iter().position(|g| g.id == id))
        .map_or(0, |i| i + 1);
    let i = prompt::fuzzy_pick_from("Group (type to filter)", &items, default)?;
    Ok(i.checked_sub(1).map(|i| groups[i].id.clone()))
}

/// The first choice of the group question.
const NO_GROUP: &str = "(no group)";

/// Links picked by fuzzy search on name or e-mail, each with its responsibilities. A user
/// already linked is offered with the responsibilities they hold marked (a deployer's own ones
/// listed too), so that what is not unmarked is kept.
async fn pick_links(ctx: &Ctx, users: &mut Vec<FacilityUserInput>) -> Result<(), Fail> {
    while prompt::yes_no("Link a user to this facility?", false)? {
        let u = resolve::pick_user(ctx, "User (type part of the name or e-mail)").await?;
        let held: Vec<String> = users
            .iter()
            .find(|l| l.id == u.id)
            .map(|l| l.responsabilities.clone())
            .unwrap_or_default();
        let mut roles: Vec<String> = MainRole::ALL
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect();
        roles.extend(
            held.iter()
                .filter(|h| !roles.contains(h))
                .cloned()
                .collect::<Vec<_>>(),
        );
        let marked: Vec<bool> = roles.iter().map(|r| held.contains(r)).collect();
        let label = match held.is_empty() {
            true => format!("Responsibilities of {}", u.name),
            false => format!(
                "Responsibilities of {} (linked: {})",
                u.name,
                held.join(", ")
            ),
        };
        // A link is a responsibility: none marked is asked again, not a link without one.
        let mut chosen = prompt::multi_select(&label, &roles, &marked)?;
        while chosen.is_empty() {
            output::note(format!(
                "mark at least one responsibility of {} (space), then Enter",
                u.name
            ));
            chosen = prompt::multi_select(&label, &roles, &marked)?;
        }
        let given: Vec<String> = chosen.into_iter().map(|i| roles[i].clone()).collect();
        // In its place when already linked (the order of the links is kept).
        match users.iter_mut().find(|l| l.id == u.id) {
            Some(link) => link.responsabilities = given,
            None => users.push(FacilityUserInput {
                id: u.id,
                responsabilities: given,
            }),
        }
    }
    Ok(())
}

/// The fields of a new facility in the order the create wizard asks for them.
const CREATE_FIELDS: [&str; 11] = [
    "name",
    "companyName",
    "cnpj",
    "telephone",
    "department",
    "address",
    "CNENregistry",
    "group",
    "practices",
    "radioisotopes",
    "users",
];

/// The order of the create wizard's questions: the fields in `refused` (flag values the local
/// check refused) first, since their reasons were just printed, then the others.
fn asking_order(refused: &Map<String, Value>) -> Vec<&'static str> {
    let (mut first, rest): (Vec<_>, Vec<_>) = CREATE_FIELDS
        .into_iter()
        .partition(|key| refused.contains_key(*key));
    first.extend(rest);
    first
}

/// Asks for every field of a new facility that `obj` does not have yet, those in `refused`
/// (given as flags, refused by the local check) first, offered as the text to correct.
pub async fn fill_create(
    ctx: &Ctx,
    obj: &mut Map<String, Value>,
    refused: &Map<String, Value>,
) -> Result<(), Fail> {
    for key in asking_order(refused) {
        if !obj.contains_key(key)
            && let Some(value) = ask_new(ctx, key, refused).await?
        {
            obj.insert(key.into(), value);
        }
    }
    Ok(())
}

/// The answer for field `key` of a new facility (`None`: left out), a value in `refused`
/// offered as the text to correct.
async fn ask_new(
    ctx: &Ctx,
    key: &str,
    refused: &Map<String, Value>,
) -> Result<Option<Value>, Fail> {
    let given = |key: &str| refused.get(key).and_then(Value::as_str).unwrap_or_default();
    let given_address = |key: &str| {
        refused
            .get("address")
            .and_then(|a| a[0][key].as_str())
            .unwrap_or_default()
    };
    Ok(Some(match key {
        "name" => json!(text("Name", given("name"), &not_empty)?),
        "companyName" => json!(text("Company name", given("companyName"), &not_empty)?),
        "cnpj" => json!(cnpj(given("cnpj"))?),
        "telephone" => json!(text(
            "Telephone with area code",
            given("telephone"),
            &telephone_rule
        )?),
        "department" => json!(department(None)?.as_str()),
        "address" => {
            let street = text("Street", given_address("street"), &not_empty)?;
            let complement = optional_text(COMPLEMENT, given_address("complement"), None)?;
            let city = text("City", given_address("city"), &not_empty)?;
            let state = text("State", given_address("state"), &not_empty)?;
            let zip_code = optional_text(ZIP_CODE, given_address("zipCode"), None)?;
            let mut address = json!({"street": street, "city": city, "state": state});
            for (key, value) in [("complement", complement), ("zipCode", zip_code)] {
                if let Some(value) = value {
                    address[key] = json!(value);
                }
            }
            json!([address])
        }
        "CNENregistry" => {
            let initial = given("CNENregistry");
            return Ok(optional_text("CNEN registry (optional)", initial, None)?.map(Value::from));
        }
        "group" => return Ok(group(ctx, None).await?.map(Value::from)),
        "practices" => json!(practices(&[])?),
        "radioisotopes" => radioisotopes(&[])?,
        "users" => {
            let mut users = Vec::new();
            pick_links(ctx, &mut users).await?;
            if users.is_empty() {
                return Ok(None);
            }
            json!(users)
        }
        other => unreachable!("not a field of the create wizard: {other}"),
    }))
}

/// The address's optional parts, asked after the street and after the state.
const COMPLEMENT: &str = "Complement (optional)";
const ZIP_CODE: &str = "CEP (optional)";

/// `items` in order, for comparing two lists as sets.
fn sorted<T: PartialOrd>(mut items: Vec<T>) -> Vec<T> {
    items.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    items
}

/// Walks every field with the stored value to keep or change.
pub async fn edit(ctx: &Ctx, f: &Facility) -> Result<Changes, Fail> {
    let mut c = Changes::default();
    c.text("name", "Name", &f.name, &not_empty)?;
    c.text("companyName", "Company name", &f.company_name, &not_empty)?;
    c.compare("cnpj", json!(f.cnpj), json!(cnpj(&f.cnpj)?));
    c.text(
        "telephone",
        "Telephone with area code",
        &f.telephone,
        &telephone_rule,
    )?;
    c.compare(
        "department",
        json!(f.department),
        json!(department(Some(f.department))?.as_str()),
    );
    if let Some(a) = f.address.first() {
        let mut address = serde_json::to_value(a).expect("addresses serialise");
        address["street"] = json!(text("Street", &a.street, &not_empty)?);
        let complement = a.complement.as_deref().unwrap_or_default();
        let complement = optional_text(COMPLEMENT, complement, None)?;
        address["city"] = json!(text("City", &a.city, &not_empty)?);
        address["state"] = json!(text("State", &a.state, &not_empty)?);
        let zip_code = a.zip_code.as_deref().unwrap_or_default();
        let zip_code = optional_text(ZIP_CODE, zip_code, None)?;
        // Left blank: absent from the address, as the stored one shows it.
        let fields = address.as_object_mut().expect("an address is an object");
        for (key, value) in [("complement", complement), ("zipCode", zip_code)] {
            match value {
                Some(value) => fields.insert(key.to_owned(), json!(value)),
                None => fields.remove(key),
            };
        }
        let mut all: Vec<Value> = f
            .address
            .iter()
            .map(|a| serde_json::to_value(a).expect("addresses serialise"))
            .collect();
        let old = json!(all);
        all[0] = address;
        c.compare("address", old, json!(all));
    }
    let registry = f.cnen_registry.as_deref();
    c.optional("CNENregistry", "CNEN registry", registry, None)?;
    let current_group = f.group.as_ref().map(|g| g.id.clone());
    c.compare(
        "group",
        json!(current_group),
        json!(group(ctx, current_group.as_deref()).await?),
    );
    // Practices and radioisotopes are sets: the wizard lists them in the catalogue's order,
    // which need not be the stored one, so only a different set is a change.
    let old_practices: Vec<&str> = f.practices.iter().map(|p| p.as_str()).collect();
    let new_practices = practices(&f.practices)?;
    let changed = sorted(old_practices) != sorted(new_practices.clone());
    c.put_if(changed, "practices", json!(new_practices));
    let current: Vec<(Radioisotope, f64)> = f
        .radioisotopes
        .iter()
        .map(|r| (r.name, r.quantity))
        .collect();
    let new_isotopes = radioisotopes(&current)?;
    let old_set = sorted(
        current
            .iter()
            .map(|(iso, q)| (iso.as_str().to_owned(), Some(*q)))
            .collect(),
    );
    let new_set = sorted(
        new_isotopes
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| {
                let name = n["name"].as_str().unwrap_or_default().to_owned();
                let quantity = n["quantity"].as_str().and_then(|s| s.parse::<f64>().ok());
                (name, quantity)
            })
            .collect(),
    );
    c.put_if(old_set != new_set, "radioisotopes", new_isotopes);
    let mut users = fields::links(&f.users);
    let before = users.clone();
    pick_links(ctx, &mut users).await?;
    c.compare("users", json!(before), json!(users));
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::{CREATE_FIELDS, asking_order};
    use serde_json::{Map, Value, json};

    #[test]
    fn refused_flag_values_are_asked_for_first() {
        let mut refused = Map::new();
        refused.insert("department".into(), json!("Nuclear"));
        refused.insert("cnpj".into(), json!("11222333000182"));
        let order = asking_order(&refused);
        assert_eq!(order[..3], ["cnpj", "department", "name"]);
        assert_eq!(order.len(), CREATE_FIELDS.len());
        assert_eq!(asking_order(&Map::<String, Value>::new()), CREATE_FIELDS);
    }
}
