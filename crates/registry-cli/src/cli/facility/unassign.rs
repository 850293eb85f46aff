//! `registry facility unassign`: take a responsibility (or, without --role, the whole link)
//! away from a user. At a terminal a missing facility is picked from the list, and a missing
//! user among those linked to it, then what to take away.

use super::{fields, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::offered;
use crate::cli::{output, prompt, resolve};
use clap::Args;
use registry_core::api::{Facility, FacilityUserView};

#[derive(Debug, Args)]
pub struct UnassignArgs {
    /// The facility: _id, cnpj or exact name (picked from a list at a terminal when missing).
    facility: Option<String>,
    /// The user: _id, e-mail or part of the name (picked among the facility's users at a
    /// terminal when missing).
    #[arg(long)]
    user: Option<String>,
    /// Only this responsibility; without it the user is unlinked (asked at a terminal when the
    /// user is picked).
    #[arg(long, value_parser = offered::responsibilities(), hide_possible_values = true)]
    role: Option<String>,
}

/// One of the users linked to `f` (those holding `role`, when given), picked at the terminal.
fn pick_link<'a>(f: &'a Facility, role: Option<&str>) -> Result<&'a FacilityUserView, Fail> {
    let links: Vec<&FacilityUserView> = f
        .users
        .iter()
        .filter(|u| role.is_none_or(|role| u.responsabilities.iter().any(|r| r == role)))
        .collect();
    if links.is_empty() {
        return Err(Fail::NotFound(match role {
            Some(role) => format!("nobody holds {role} at {}", f.name),
            None => format!("{} has no linked users", f.name),
        }));
    }
    let labels: Vec<String> = links.iter().map(|u| view::user_line(u)).collect();
    let i = prompt::fuzzy_pick("User to unassign", &labels)?;
    Ok(links[i])
}

/// What to take away from `link`, picked at the terminal: one responsibility (`Some`), or the
/// whole link (`None`, also when it holds none).
fn pick_what(link: &FacilityUserView) -> Result<Option<String>, Fail> {
    if link.responsabilities.is_empty() {
        return Ok(None);
    }
    let mut items = link.responsabilities.clone();
    items.push(format!("All of them: unlink {}", link.name));
    let i = prompt::select("Take away", &items, 0)?;
    Ok(link.responsabilities.get(i).cloned())
}

pub async fn run(ctx: &Ctx, a: UnassignArgs) -> Result<(), Fail> {
    let before = fields::linked_facility(ctx, a.facility, &[("--user", a.user.is_some())]).await?;
    let (link, role) = match &a.user {
        Some(user) => {
            let target = resolve::user(ctx, user).await?;
            let Some(link) = before.users.iter().find(|u| u.id == target.id) else {
                return Err(Fail::NotFound(format!(
                    "{} is not linked to {}",
                    target.name, before.name
                )));
            };
            (link, a.role)
        }
        None => {
            let link = pick_link(&before, a.role.as_deref())?;
            let role = match a.role {
                Some(role) => Some(role),
                None => pick_what(link)?,
            };
            (link, role)
        }
    };
    let (who, user_id) = (link.name.clone(), link.id.clone());
    // Computed from the facility as it is when sent (again after a concurrent change).
    let take = |f: &Facility| {
        let Some(link) = f.users.iter().find(|u| u.id == user_id) else {
            return Err(Fail::NotFound(format!("{who} is not linked to {}", f.name)));
        };
        let users = fields::links(&f.users).into_iter();
        Ok(match &role {
            Some(role) if !link.responsabilities.iter().any(|r| r == role) => {
                return Err(Fail::NotFound(format!(
                    "{who} does not hold {role} at {}",
                    f.name
                )));
            }
            Some(role) => users
                .map(|mut u| {
                    if u.id == user_id {
                        u.responsabilities.retain(|r| r != role);
                    }
                    u
                })
                .collect(),
            None => users.filter(|u| u.id != user_id).collect(),
        })
    };
    let (_, after) = fields::save_links_of(ctx, before.clone(), None, take).await?;
    output::note(match &role {
        Some(role) => format!("{who} no longer holds {role} at {}", after.name),
        None => format!("{who} unlinked from {}", after.name),
    });
    view::show_or_users(ctx.format, &after)
}
