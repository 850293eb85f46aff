//! `registry facility import`: each row's group and linked users found on this server, and the
//! server's rules run on it before anything is sent.

use super::fields;
use super::import_rows::Item;
use crate::cli::context::{Ctx, Fail};
use crate::cli::flag_terms::FlagTerms;
use crate::cli::resolve;
use registry_client::{ClientError, ListQuery};
use registry_core::api::{Group, User};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The server's rules run on a payload before sending: every reason it would be refused. A CSV
/// row's fields are named by its columns (`city`, ``radioisotopes `Xx=3` ``), a JSON row's by
/// the API's paths, which are its own field names.
fn check_locally(payload: &Value, csv: bool) -> Vec<String> {
    // Its group and users were found on this server already (`Directory::resolve`).
    let errors = fields::local_field_errors(payload, registry_core::facility::Mode::Create, None)
        .err()
        .unwrap_or_default();
    let errors = if csv {
        csv_terms(payload).relabel(errors)
    } else {
        errors
    };
    errors
        .iter()
        .map(|e| {
            // Several columns named as one field take the plural: "street, city and state are
            // required".
            let message = match (e.field.contains(" and "), e.message.strip_prefix("is ")) {
                (true, Some(rest)) => format!("are {rest}"),
                _ => e.message.clone(),
            };
            let mut reason = format!("{} {message}", e.field);
            if e.field == "cnpj"
                && let Some(padded) = lost_leading_zeros(&payload["cnpj"])
            {
                reason.push_str(&format!(
                    " — a spreadsheet may have dropped its leading zeros (with them: {padded})"
                ));
            }
            reason
        })
        .collect()
}

/// A cnpj of digits only, fewer than 14: what a spreadsheet makes of `00000000000191` (a number,
/// `191`). Its 14-digit form, for the hint.
fn lost_leading_zeros(cnpj: &Value) -> Option<String> {
    let digits = cnpj.as_str()?.trim();
    let short = !digits.is_empty() && digits.len() < 14;
    (short && digits.bytes().all(|b| b.is_ascii_digit())).then(|| format!("{digits:0>14}"))
}

/// A CSV row's payload fields named by the columns that gave them: `address[0].city` → `city`,
/// `radioisotopes[1]` → ``radioisotopes `Xx=3` `` (the entry as written), `practices[0]` →
/// ``practices `Nada` ``.
fn csv_terms(payload: &Value) -> FlagTerms {
    let mut terms = FlagTerms::default();
    for key in ["street", "city", "state", "complement", "zipCode"] {
        terms.given(format!("address[0].{key}"), key);
    }
    terms.given("address", "street, city and state");
    let list = |key: &str| payload[key].as_array().cloned().unwrap_or_default();
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let practices = list("practices");
    terms.each("practices", "practices", practices.iter().map(text));
    let isotopes = list("radioisotopes");
    let entries = isotopes
        .iter()
        .map(|r| format!("{}={}", text(&r["name"]), text(&r["quantity"])));
    terms.each("radioisotopes", "radioisotopes", entries);
    terms
}

/// The groups and users of this server, read once when some row names one, to find a row's
/// group by `_id` or exact name and its linked users by `_id` or e-mail: an export from another
/// server carries that server's `_id`s, with the group's name and the users' e-mails beside them.
#[derive(Default)]
struct Directory {
    groups: Option<Vec<Group>>,
    users: Option<Vec<User>>,
}

/// `slot`, read from `path` (every page) the first time it is asked for.
async fn read_once<'a, T: DeserializeOwned>(
    slot: &'a mut Option<Vec<T>>,
    ctx: &Ctx,
    path: &str,
) -> Result<&'a [T], ClientError> {
    if slot.is_none() {
        *slot = Some(ctx.client.all_pages(path, &ListQuery::default()).await?);
    }
    Ok(slot.as_deref().unwrap_or_default())
}

impl Directory {
    async fn groups(&mut self, ctx: &Ctx) -> Result<&[Group], ClientError> {
        read_once(&mut self.groups, ctx, "/group").await
    }

    async fn users(&mut self, ctx: &Ctx) -> Result<&[User], ClientError> {
        read_once(&mut self.users, ctx, "/users").await
    }

    /// `payload`'s `group` (an `_id`, a name, or `{"_id", "name"}` as an export has it) as the
    /// `_id` of this server's group; its `users` as `[{_id, responsabilities}]` with each user
    /// found by `_id`, else by `email`. The problems: each group or user not on this server, and
    /// each deactivated user (every one, so that one pass fixes the file, and `--dry-run` says
    /// what the server would refuse).
    async fn resolve(
        &mut self,
        ctx: &Ctx,
        payload: &mut Value,
    ) -> Result<Vec<String>, ClientError> {
        let mut problems = Vec::new();
        let Some(obj) = payload.as_object_mut() else {
            return Ok(problems);
        };
        let group = match obj.get("group") {
            Some(Value::String(s)) if !s.trim().is_empty() => Some((Some(s.clone()), None)),
            Some(Value::Object(o)) => Some((
                o.get("_id").and_then(Value::as_str).map(str::to_owned),
                o.get("name").and_then(Value::as_str).map(str::to_owned),
            )),
            _ => None,
        };
        if let Some((id, name)) = group {
            let groups = self.groups(ctx).await?;
            let by_id = id
                .as_deref()
                .and_then(|id| groups.iter().find(|g| g.id == id.trim()));
            // A plain string may be the name too.
            let by_name = || {
                name.as_deref()
                    .or(id.as_deref())
                    .and_then(|n| resolve::named(groups, n, |g| &g.name))
            };
            match by_id.or_else(by_name) {
                Some(g) => {
                    obj.insert("group".into(), json!(g.id));
                }
                None => {
                    let shown = name.or(id).unwrap_or_default();
                    problems.push(format!(
                        "group `{shown}`: no group with this _id or name on this server"
                    ));
                    obj.remove("group");
                }
            }
        }
        if let Some(Value::Array(links)) = obj.get("users")
            && !links.is_empty()
        {
            let links = links.clone();
            let users = self.users(ctx).await?;
            let mut resolved = Vec::new();
            for link in &links {
                let text = |k: &str| link.get(k).and_then(Value::as_str).map(str::trim);
                let (id, email) = (text("_id"), text("email"));
                let found = id
                    .and_then(|id| users.iter().find(|u| u.id == id))
                    .or_else(|| {
                        email.and_then(|e| users.iter().find(|u| u.email.eq_ignore_ascii_case(e)))
                    });
                // A link refused here stays in its place, as given, so that the local check
                // names the others by their places in the file; the row is not sent.
                let id_here = match found {
                    None => {
                        let shown = email.or(id).unwrap_or_default();
                        problems.push(format!(
                            "user `{shown}`: no user with this _id or e-mail on this server"
                        ));
                        shown
                    }
                    Some(u) if !u.active => {
                        problems.push(format!(
                            "user `{}`: is deactivated, and only an active user can be linked",
                            u.email
                        ));
                        &u.id
                    }
                    Some(u) => &u.id,
                };
                let responsibilities = link.get("responsabilities").cloned().unwrap_or(json!([]));
                resolved.push(json!({"_id": id_here, "responsabilities": responsibilities}));
            }
            obj.insert("users".into(), Value::Array(resolved));
        }
        Ok(problems)
    }
}

/// Each valid item's group and users found on this server ([`Directory::resolve`]), then the
/// server's rules run on it: an item that fails carries every reason instead.
pub async fn prepare(ctx: &Ctx, items: &mut [Item]) -> Result<(), Fail> {
    let mut directory = Directory::default();
    for item in items.iter_mut() {
        let Ok(payload) = &mut item.payload else {
            continue;
        };
        let mut problems = std::mem::take(&mut item.unread);
        problems.extend(directory.resolve(ctx, payload).await?);
        problems.extend(check_locally(payload, item.csv));
        if !problems.is_empty() {
            item.payload = Err(problems.join("; "));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_rows_problems_are_all_named_by_its_columns() {
        let row = json!({"name": "C", "companyName": "C", "cnpj": "191",
            "telephone": "(81) 3333-4444", "department": "Medicina Nuclear",
            "address": [{"street": "Rua 1", "state": "PE"}], "practices": ["Nada"],
            "radioisotopes": [{"name": "Tc(99m)", "quantity": "1"}, {"name": "Xx", "quantity": "3"}]});
        let reasons = check_locally(&row, true).join("; ");
        for said in [
            "city ",
            "practices `Nada` ",
            "radioisotopes `Xx=3` ",
            "leading zeros (with them: 00000000000191)",
        ] {
            assert!(reasons.contains(said), "{said}: {reasons}");
        }
        assert!(!reasons.contains("address[0]") && !reasons.contains("radioisotopes[1]"));
        assert!(
            check_locally(&row, false)
                .join("; ")
                .contains("address[0].city")
        );
    }
}
