//! `registry facility unassign`: take a responsibility (or, without --role, the whole link)
//! away from a user.

use super::{fields, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve};
use clap::Args;
use registry_core::api::FacilityUserInput;

#[derive(Debug, Args)]
pub struct UnassignArgs {
    /// The facility: _id, cnpj or exact name.
    facility: String,
    /// The user: _id, e-mail or part of the name.
    #[arg(long)]
    user: String,
    /// Only this responsibility; without it the user is unlinked.
    #[arg(long)]
    role: Option<String>,
}

pub async fn run(ctx: &Ctx, a: UnassignArgs) -> Result<(), Fail> {
    let before = resolve::facility(ctx, &a.facility).await?;
    let target = resolve::user(ctx, &a.user).await?;
    let Some(link) = before.users.iter().find(|u| u.id == target.id) else {
        return Err(Fail::NotFound(format!(
            "{} is not linked to {}",
            target.name, before.name
        )));
    };
    let users: Vec<FacilityUserInput> = match &a.role {
        Some(role) => {
            if !link.responsabilities.iter().any(|r| r == role) {
                return Err(Fail::NotFound(format!(
                    "{} does not hold {role} at {}",
                    target.name, before.name
                )));
            }
            fields::links(&before.users)
                .into_iter()
                .map(|mut u| {
                    if u.id == target.id {
                        u.responsabilities.retain(|r| r != role);
                    }
                    u
                })
                .collect()
        }
        None => fields::links(&before.users)
            .into_iter()
            .filter(|u| u.id != target.id)
            .collect(),
    };
    let after = fields::save_links(ctx, &before, &users, None).await?;
    output::note(match &a.role {
        Some(role) => format!("{} no longer holds {role} at {}", target.name, after.name),
        None => format!("{} unlinked from {}", target.name, after.name),
    });
    view::show_or_users(ctx.format, &after)
}
