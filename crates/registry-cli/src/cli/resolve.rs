//! Finding the records a command names: a facility by `_id`, cnpj or name, a user by `_id`,
//! e-mail or name, equipment, equipment types, test types and documents; and, at the terminal,
//! picking one from a list when the flag is missing. Every command looks records up here.

use super::context::{Ctx, Fail};
use super::{auth, prompt};
use registry_client::{ClientError, ListQuery};
use registry_core::api::{Facility, Group, User};
use registry_core::document::Document;
use registry_core::equipment::{Equipment, EquipmentType, TestType};
use registry_core::text::search_key;
use registry_core::{Cnpj, CnpjError};

/// A fuzzy pick at the terminal among `items`, each shown by `label`.
fn choose<T>(question: &str, items: Vec<T>, label: impl Fn(&T) -> String) -> Result<T, Fail> {
    let labels: Vec<String> = items.iter().map(label).collect();
    let i = prompt::fuzzy_pick(question, &labels)?;
    Ok(items.into_iter().nth(i).expect("picked from the list"))
}

/// The bare, upper-case CNPJ that `text` writes, if it writes a valid one
/// (`11.222.333/0001-81` → `11222333000181`, `12abc34501de35` → `12ABC34501DE35`).
fn cnpj_of(text: &str) -> Option<String> {
    let mut candidate = text.trim().to_owned();
    // At most one of each correction: the punctuation, the letters' case.
    for _ in 0..3 {
        match Cnpj::parse(&candidate) {
            Ok(_) => return Some(candidate),
            Err(CnpjError::Punctuated { bare }) => candidate = bare,
            Err(CnpjError::LowerCase { upper }) => candidate = upper,
            Err(_) => return None,
        }
    }
    None
}

/// What a read by `_id` found: `None` when there is no record with that `_id` (or the caller may
/// not see it), for a look-up that goes on by other keys.
pub fn by_id<T>(read: Result<T, ClientError>) -> Result<Option<T>, Fail> {
    match read {
        Ok(found) => Ok(Some(found)),
        Err(ClientError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A facility by `_id`, else by exact cnpj, or by name with case, accents and runs of white space
/// ignored as the server's search ignores them, among the search results (a name written exactly
/// as one facility's is that one).
pub async fn facility(ctx: &Ctx, text: &str) -> Result<Facility, Fail> {
    if let Some(f) = by_id(ctx.client.facility(text).await)? {
        return Ok(f);
    }
    // The bare, upper-case form only when it is a CNPJ: a name with spaces, dots, slashes or
    // dashes ("Clínica Boa Vista") is searched as given.
    let cnpj = cnpj_of(text).unwrap_or_else(|| text.trim().to_owned());
    // Every page: a name may be the start of many newer ones (`Hosp`, `Hosp1`…`Hosp25`).
    let found: Vec<Facility> = ctx
        .client
        .all_pages(
            "/facilities",
            &ListQuery::default().filter("q", cnpj.clone()),
        )
        .await?;
    let (mut exact, near): (Vec<Facility>, Vec<Facility>) = found
        .into_iter()
        .partition(|f| f.cnpj == cnpj || search_key(f.name.trim()) == search_key(text.trim()));
    // A name written exactly as one facility's is that facility, though others differ from it
    // only in case, accents or white space (`Hospital Dois` beside `Hospital  Dois`).
    let written = |f: &Facility| f.name.trim() == text.trim();
    if exact.len() > 1 && exact.iter().filter(|f| written(f)).count() == 1 {
        exact.retain(written);
    }
    match exact.len() {
        0 if !near.is_empty() => Err(Fail::NotFound(format!(
            "no facility with _id, cnpj or name `{text}`; did you mean {}?",
            near.iter()
                .take(5)
                .map(|f| format!("{} ({})", f.name, f.cnpj))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        0 => Err(Fail::NotFound(format!(
            "no facility with _id, cnpj or name `{text}`"
        ))),
        1 => Ok(exact.into_iter().next().expect("one")),
        // What tells them apart first (one cnpj's departments, or one name's cnpjs): a long name
        // is cut at the terminal's edge, not what follows it.
        _ if ctx.interactive => choose("Which facility?", exact, |f| {
            format!("{} · {} · {} ({})", f.department, f.cnpj, f.name, f.id)
        }),
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

/// The `_id` of the facility an optional flag names, e.g. for a list's `facilityId` filter.
pub async fn facility_id(ctx: &Ctx, text: Option<String>) -> Result<Option<String>, Fail> {
    Ok(match text {
        Some(t) => Some(facility(ctx, &t).await?.id),
        None => None,
    })
}

/// The facility a flag names, else one picked from the list at the terminal, else a usage error
/// naming `flag`.
pub async fn facility_or_pick(
    ctx: &Ctx,
    given: Option<String>,
    flag: &str,
) -> Result<Facility, Fail> {
    match given {
        Some(text) => facility(ctx, &text).await,
        None if ctx.interactive => {
            let all: Vec<Facility> = ctx
                .client
                .all_pages("/facilities", &ListQuery::default())
                .await?;
            if all.is_empty() {
                return Err(Fail::NotFound("there are no facilities to pick".into()));
            }
            choose("Facility", all, |f| {
                format!("{} — {} ({})", f.name, f.department, f.cnpj)
            })
        }
        None => Err(prompt::missing(flag)),
    }
}

/// A user by `_id`, else by exact e-mail, else by the one name or e-mail containing `text`.
/// The caller's own e-mail (or, for a `Cliente`, their name) is found without listing users,
/// which only staff may do: a `Cliente` can name themself by `_id`, e-mail or name.
pub async fn user(ctx: &Ctx, text: &str) -> Result<User, Fail> {
    if let Some(u) = by_id(ctx.client.user(text).await)? {
        return Ok(u);
    }
    let wanted = text.trim();
    let me = auth::caller(ctx).await?;
    if let Some(me) = &me {
        let staff = registry_core::user::is_staff(&me.roles);
        // A Cliente names themself as staff name anyone: by the name or e-mail containing the
        // text, in any case and with or without accents (`próprio`), as the users search reads it.
        let key = search_key(wanted);
        let contains = |s: &str| !key.is_empty() && search_key(s).contains(&key);
        if me.email.eq_ignore_ascii_case(wanted)
            || (!staff && (contains(&me.name) || contains(&me.email)))
        {
            return Ok(me.clone());
        }
        if !staff {
            return Err(Fail::NotFound(format!(
                "no user `{text}` that you may see: you can name yourself by _id, e-mail or name \
                 ({} <{}>); only staff look other users up",
                me.name, me.email
            )));
        }
    }
    let found: Vec<User> = ctx
        .client
        .all_pages("/users", &ListQuery::default().filter("q", text))
        .await?;
    if let Some(u) = found.iter().find(|u| u.email.eq_ignore_ascii_case(wanted)) {
        return Ok(u.clone());
    }
    match found.len() {
        0 => Err(Fail::NotFound(format!(
            "no user with _id, e-mail or name `{text}`"
        ))),
        1 => Ok(found.into_iter().next().expect("one")),
        _ if ctx.interactive => choose(&format!("Which `{text}`?"), found, user_label),
        n => Err(Fail::NotFound(format!(
            "`{text}` matches {n} users ({}); give the e-mail or _id",
            found.iter().map(user_label).collect::<Vec<_>>().join("; ")
        ))),
    }
}

fn user_label(u: &User) -> String {
    format!("{} <{}>", u.name, u.email)
}

/// A fuzzy pick among the active users, by name or e-mail.
pub async fn pick_user(ctx: &Ctx, question: &str) -> Result<User, Fail> {
    let users: Vec<User> = ctx
        .client
        .all_pages("/users", &ListQuery::default().filter("active", "true"))
        .await?;
    if users.is_empty() {
        return Err(Fail::NotFound("there are no active users to pick".into()));
    }
    choose(question, users, user_label)
}

/// "Gama Câmara Siemens Symbia (SN 123)": how a person recognises a piece of equipment.
pub fn equipment_label(e: &Equipment) -> String {
    let mut parts = vec![e.type_of_equipment.name.clone()];
    parts.extend(e.manufacturer.clone());
    parts.extend(e.model.clone());
    let mut text = parts.join(" ");
    if let Some(sn) = &e.serial_number {
        text.push_str(&format!(" (SN {sn})"));
    }
    text
}

/// The equipment a flag names (by `_id`), else a facility and then its equipment picked at the
/// terminal, else a usage error naming `flag`.
pub async fn equipment_or_pick(
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
            let f = facility_or_pick(ctx, None, "--facility").await?;
            let list = ctx
                .client
                .all_facility_equipment(&f.id, &ListQuery::default())
                .await?;
            if list.is_empty() {
                return Err(Fail::NotFound(format!("{} has no equipment", f.name)));
            }
            choose("Equipment", list, equipment_label)
        }
        None => Err(prompt::missing(flag)),
    }
}

/// Finds one among `items` by `_id`, by name ([`named`]), or the one name containing `text`
/// with case, accents and runs of white space ignored; `what` names the kind of record in errors
/// (`test type`) and `scope` where it was looked for (` of Gama Câmara`).
fn find_by_name<T: Clone>(
    items: &[T],
    text: &str,
    (what, scope): (&str, &str),
    id: impl Fn(&T) -> &str,
    name: impl Fn(&T) -> &str,
) -> Result<T, Fail> {
    let t = text.trim();
    if let Some(x) = items
        .iter()
        .find(|x| id(x) == t)
        .or_else(|| named(items, t, &name))
    {
        return Ok(x.clone());
    }
    let key = search_key(t);
    let partial: Vec<&T> = items
        .iter()
        .filter(|x| search_key(name(x)).contains(&key))
        .collect();
    match partial.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(Fail::NotFound(format!(
            "no {what}{scope} with _id or name `{text}`; one of: {}",
            items.iter().map(&name).collect::<Vec<_>>().join(", ")
        ))),
        many => Err(Fail::NotFound(format!(
            "`{text}` matches {} {what}s{scope} ({}); give the exact name or _id",
            many.len(),
            many.iter().map(|x| name(x)).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// An equipment type by `_id` or name.
pub async fn equipment_type(ctx: &Ctx, text: &str) -> Result<EquipmentType, Fail> {
    let types = ctx.client.equipment_types(&ListQuery::default()).await?;
    find_by_name(&types, text, ("equipment type", ""), |t| &t.id, |t| &t.name)
}

/// The equipment type `--type` names, else one picked at the terminal.
pub async fn equipment_type_or_pick(
    ctx: &Ctx,
    given: Option<String>,
) -> Result<EquipmentType, Fail> {
    match given {
        Some(t) => equipment_type(ctx, &t).await,
        None if ctx.interactive => {
            let types = ctx.client.equipment_types(&ListQuery::default()).await?;
            choose("Equipment type", types, |t| t.name.clone())
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
            (
                "test type",
                &format!(" of {}", equipment.type_of_equipment.name),
            ),
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
            choose("Test type", types, |t| {
                format!("{} ({})", t.name, every(t.expiration_in_days))
            })
        }
        None => Err(prompt::missing(flag)),
    }
}

/// A group by `_id`, else by name (as written, else the one with case, accents and runs of
/// white space ignored).
pub async fn group(ctx: &Ctx, text: &str) -> Result<Group, Fail> {
    if let Some(g) = by_id(ctx.client.group(text).await)? {
        return Ok(g);
    }
    let all: Vec<Group> = ctx
        .client
        .all_pages("/group", &ListQuery::default())
        .await?;
    match named(&all, text, |g| &g.name) {
        // Read again by `_id`: the list does not carry the group's facilities.
        Some(g) => Ok(ctx.client.group(&g.id).await?),
        None if all.is_empty() => Err(Fail::NotFound(format!(
            "no group with _id or name `{text}` (there are no groups)"
        ))),
        None => Err(Fail::NotFound(format!(
            "no group with _id or name `{text}`; one of: {}",
            all.iter()
                .map(|g| g.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The one of `items` called `text`: written so, else the only one whose name differs from it
/// only in case, accents or runs of white space.
pub fn named<'a, T>(items: &'a [T], text: &str, name: impl Fn(&T) -> &str) -> Option<&'a T> {
    let text = text.trim();
    items.iter().find(|x| name(x).trim() == text).or_else(|| {
        let key = search_key(text);
        let mut same = items.iter().filter(|x| search_key(name(x).trim()) == key);
        match (same.next(), same.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    })
}

/// A document by `_id`, with a message naming it when there is none.
pub async fn document(ctx: &Ctx, id: &str) -> Result<Document, Fail> {
    match ctx.client.document(id).await {
        Ok(d) => Ok(d),
        Err(ClientError::NotFound(_)) => Err(Fail::NotFound(format!(
            "no document with _id `{id}` (or you may not see it)"
        ))),
        Err(e) => Err(e.into()),
    }
}

/// A test type's period as the picker says it: `every day`, `every 30 days`.
fn every(days: i64) -> String {
    match days {
        1 => "every day".to_owned(),
        n => format!("every {n} days"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_of_one_day_is_said_in_the_singular() {
        assert_eq!(every(1), "every day");
        assert_eq!(every(30), "every 30 days");
    }
}
