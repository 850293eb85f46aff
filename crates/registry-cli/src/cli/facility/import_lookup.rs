//! `registry facility import`: each row's group and linked users found on this server, and the
//! server's rules run on it before anything is sent.

use super::fields;
use super::import_rows::Item;
use crate::cli::context::{Ctx, Fail};
use registry_client::{ClientError, ListQuery};
use registry_core::api::{Group, User};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The server's rules run on a payload before sending: why it would be refused, in one line.
fn check_locally(payload: &Value) -> Result<(), String> {
    fields::local_field_errors(payload, registry_core::facility::Mode::Create).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{} {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("; ")
    })
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
    /// found by `_id`, else by `email`. `Ok(Err(reason))` when one is not on this server.
    async fn resolve(
        &mut self,
        ctx: &Ctx,
        payload: &mut Value,
    ) -> Result<Result<(), String>, ClientError> {
        let Some(obj) = payload.as_object_mut() else {
            return Ok(Ok(()));
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
            let named = name
                .as_deref()
                .or(id.as_deref())
                .map(|n| n.trim().to_lowercase());
            let by_name = || {
                named
                    .as_deref()
                    .and_then(|n| groups.iter().find(|g| g.name.to_lowercase() == n))
            };
            match by_id.or_else(by_name) {
                Some(g) => {
                    obj.insert("group".into(), json!(g.id));
                }
                None => {
                    let shown = name.or(id).unwrap_or_default();
                    return Ok(Err(format!(
                        "group `{shown}`: no group with this _id or name on this server"
                    )));
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
                let Some(u) = found else {
                    let shown = email.or(id).unwrap_or_default();
                    return Ok(Err(format!(
                        "user `{shown}`: no user with this _id or e-mail on this server"
                    )));
                };
                let responsibilities = link.get("responsabilities").cloned().unwrap_or(json!([]));
                resolved.push(json!({"_id": u.id, "responsabilities": responsibilities}));
            }
            obj.insert("users".into(), Value::Array(resolved));
        }
        Ok(Ok(()))
    }
}

/// Each valid item's group and users found on this server ([`Directory::resolve`]), then the
/// server's rules run on it: an item that fails either carries the reason instead.
pub async fn prepare(ctx: &Ctx, items: &mut [Item]) -> Result<(), Fail> {
    let mut directory = Directory::default();
    for item in items.iter_mut() {
        let Ok(payload) = &mut item.payload else {
            continue;
        };
        let checked = match directory.resolve(ctx, payload).await? {
            Ok(()) => check_locally(payload),
            Err(reason) => Err(reason),
        };
        if let Err(reason) = checked {
            item.payload = Err(reason);
        }
    }
    Ok(())
}
