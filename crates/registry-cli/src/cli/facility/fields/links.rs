//! The user links of a facility as the API takes them: the facility `assign` and `unassign`
//! change, and saving its links, retried when someone changed it meanwhile.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{prompt, resolve};
use registry_client::ClientError;
use registry_core::FieldCode;
use registry_core::api::{Facility, FacilityUserInput, FacilityUserView, User};

/// The facility of `assign` and `unassign`: the one FACILITY names, else one picked from the
/// list at a terminal. Without a terminal, FACILITY and every flag of `flags` (`(flag, given)`)
/// that is missing are named at once (exit 2) before anything is looked up.
pub async fn linked_facility(
    ctx: &Ctx,
    facility: Option<String>,
    flags: &[(&'static str, bool)],
) -> Result<Facility, Fail> {
    let mut required = vec![("FACILITY", facility.is_some())];
    required.extend_from_slice(flags);
    prompt::require(ctx.interactive, &required)?;
    resolve::facility_or_pick(ctx, facility, "FACILITY").await
}

/// The links as the API takes them: `[{_id, responsabilities}]`.
pub fn links(users: &[FacilityUserView]) -> Vec<FacilityUserInput> {
    users
        .iter()
        .map(|u| FacilityUserInput {
            id: u.id.clone(),
            responsabilities: u.responsabilities.clone(),
        })
        .collect()
}

/// The place in the links sent that a server's field names, and the rest of the field:
/// `users[2].responsabilities[0]` → (2, `responsabilities[0]`).
fn link_index(field: &str) -> Option<(usize, &str)> {
    let (index, rest) = field.strip_prefix("users[")?.split_once(']')?;
    Some((index.parse().ok()?, rest.trim_start_matches('.')))
}

/// The responsibility at `rest` (`responsabilities[1]`) of `link`.
fn responsibility<'a>(link: &'a FacilityUserInput, rest: &str) -> Option<&'a str> {
    let index = rest.strip_prefix("responsabilities[")?.strip_suffix(']')?;
    link.responsabilities
        .get(index.parse::<usize>().ok()?)
        .map(String::as_str)
}

/// How many times [`save_links_of`] computes the links again after someone changed the
/// facility meanwhile.
const LINK_RETRIES: usize = 4;

/// Sends the links `compute` makes of `facility` ([`save_links`]). They are computed from the
/// facility as it was read and sent with its version: when someone changed the facility
/// meanwhile (412), it is read again and the links computed again from it, so that two
/// `assign`s at once both land instead of the second undoing the first. The facility the links
/// were computed from, and the facility saved.
pub async fn save_links_of(
    ctx: &Ctx,
    mut facility: Facility,
    added: Option<&User>,
    compute: impl Fn(&Facility) -> Result<Vec<FacilityUserInput>, Fail>,
) -> Result<(Facility, Facility), Fail> {
    let mut retries = 0;
    loop {
        let users = compute(&facility)?;
        match save_links(ctx, &facility, &users, added).await {
            Err(fail) if fail.is_version_mismatch() && retries < LINK_RETRIES => {
                retries += 1;
                facility = ctx.client.facility(&facility.id).await?;
            }
            saved => return Ok((facility, saved?)),
        }
    }
}

/// Sends `users` as the links of `facility` (`POST /facility/users/edit`; `added` is a user
/// not linked before). The server names a refused link by its place in that list
/// (`users[2]._id`), which the person never wrote: the refusal names the user instead, and for
/// a deactivated one says how to unlink them, since every change of the links is refused while
/// they stay linked.
pub async fn save_links(
    ctx: &Ctx,
    facility: &Facility,
    users: &[FacilityUserInput],
    added: Option<&User>,
) -> Result<Facility, Fail> {
    let body = match ctx
        .client
        .edit_facility_users(&facility.id, users, facility.version)
        .await
    {
        Err(ClientError::Validation(body)) => body,
        other => return Ok(other?),
    };
    let errors = body.errors.clone().unwrap_or_default();
    if !errors.iter().any(|e| link_index(&e.field).is_some()) {
        return Err(ClientError::Validation(body).into());
    }
    let label = |id: &str| match (
        facility.users.iter().find(|u| u.id == id),
        added.filter(|u| u.id == id),
    ) {
        (Some(u), _) => (format!("{} <{}>", u.name, u.email), u.email.clone()),
        (None, Some(u)) => (format!("{} <{}>", u.name, u.email), u.email.clone()),
        (None, None) => (format!("_id {id}"), id.to_owned()),
    };
    let shown = errors
        .into_iter()
        .map(|mut e| {
            let place = link_index(&e.field).map(|(i, rest)| (users.get(i), rest.to_owned()));
            if let Some((Some(link), rest)) = place {
                let (who, email) = label(&link.id);
                e.field = match (rest.as_str(), responsibility(link, &rest)) {
                    ("" | "_id", _) => format!("linked user {who}"),
                    // The responsibility `assign` gives, named as it was given.
                    (_, Some(value))
                        if added.is_some_and(|u| u.id == link.id)
                            && !facility.users.iter().any(|u| {
                                u.id == link.id && u.responsabilities.iter().any(|r| r == value)
                            }) =>
                    {
                        format!("--role `{value}`")
                    }
                    (_, Some(value)) => format!("responsibility `{value}` of linked user {who}"),
                    (part, None) => format!("{part} of linked user {who}"),
                };
                let linked_before = facility.users.iter().any(|u| u.id == link.id);
                e.message = match e.code {
                    FieldCode::UserInactive if linked_before => format!(
                        "is deactivated, and the facility's links cannot change while they \
                         stay linked; unlink them first: `registry facility unassign {} --user {email}`",
                        facility.id
                    ),
                    FieldCode::UserInactive => format!(
                        "is deactivated: only an active user can be linked (reactivate the \
                         account first: `registry user edit {email} --active true`)"
                    ),
                    _ => e.message.replace(&link.id, &email),
                };
            }
            e
        })
        .collect();
    // Shown by user; the JSON envelope keeps the API's paths.
    Err(Fail::Relabelled(
        Box::new(ClientError::Validation(body).into()),
        shown,
    ))
}
