//! `registry facility assign`: give a user a responsibility; for the four main roles the
//! previous holder is replaced.

use super::{fields, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::offered;
use crate::cli::output::{self, Format};
use crate::cli::{prompt, resolve, rules};
use clap::Args;
use registry_core::MainRole;
use registry_core::api::{Facility, FacilityUserInput};

#[derive(Debug, Args)]
pub struct AssignArgs {
    /// The facility: _id, cnpj or exact name (picked from a list at a terminal when missing).
    facility: Option<String>,
    /// The user: _id, e-mail or part of the name (prompted when missing).
    #[arg(long)]
    user: Option<String>,
    /// Titular, "Responsável Técnico", Substituto, Supervisor, or a custom value the server is
    /// configured with (REGISTRY_EXTRA_RESPONSIBILITIES; another value: exit 4).
    #[arg(long, value_parser = offered::responsibilities(), hide_possible_values = true)]
    role: Option<String>,
}

/// The last choice of the responsibility question: a value typed in.
const OTHER: &str = "Other… (type a responsibility the server is configured with)";

/// The responsibility given, else picked at the terminal among the four main roles or typed in
/// ("Other…"): the server does not publish the custom values it accepts, and refuses another
/// one (422 `invalid_responsibility`) naming those it does.
fn pick_role(ctx: &Ctx, role: Option<String>) -> Result<String, Fail> {
    match role {
        Some(r) => Ok(r),
        None if ctx.interactive => {
            let mut items: Vec<&str> = MainRole::ALL.iter().map(|r| r.as_str()).collect();
            items.push(OTHER);
            match MainRole::ALL.get(prompt::select("Responsibility", &items, 0)?) {
                Some(main) => Ok(main.as_str().to_owned()),
                None => prompt::input_checked("Custom responsibility", &rules::not_empty),
            }
        }
        None => Err(prompt::missing("--role")),
    }
}

/// A refusal of the responsibility typed at the prompt, named as it was given there rather than
/// as the `--role` flag nobody typed.
fn typed_at_the_prompt(fail: Fail) -> Fail {
    match fail {
        Fail::Relabelled(inner, shown) => {
            let shown = shown.into_iter().map(|mut e| {
                if let Some(value) = e.field.strip_prefix("--role ") {
                    e.field = format!("the responsibility typed, {value}");
                }
                e
            });
            Fail::Relabelled(inner, shown.collect())
        }
        other => other,
    }
}

pub async fn run(ctx: &Ctx, a: AssignArgs) -> Result<(), Fail> {
    let flags = [("--user", a.user.is_some()), ("--role", a.role.is_some())];
    let before = fields::linked_facility(ctx, a.facility, &flags).await?;
    let target = match a.user {
        Some(u) => resolve::user(ctx, &u).await?,
        None => resolve::pick_user(ctx, "User to assign").await?,
    };
    let prompted = a.role.is_none();
    let role = pick_role(ctx, a.role)?;
    if view::holder(&before, &role).is_some_and(|p| p.id == target.id) {
        output::note(format!(
            "{} already holds {role} at {}; nothing changed.",
            target.name, before.name
        ));
        return view::show_or_users(ctx.format, &before);
    }
    let give = |f: &Facility| {
        let mut users = fields::links(&f.users);
        match users.iter_mut().find(|u| u.id == target.id) {
            Some(link) if link.responsabilities.contains(&role) => {}
            Some(link) => link.responsabilities.push(role.clone()),
            None => users.push(FacilityUserInput {
                id: target.id.clone(),
                responsabilities: vec![role.clone()],
            }),
        }
        Ok(users)
    };
    let (before, after) = fields::save_links_of(ctx, before, Some(&target), give)
        .await
        .map_err(|fail| {
            if prompted {
                typed_at_the_prompt(fail)
            } else {
                fail
            }
        })?;
    let previous = view::holder(&before, &role).cloned();
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
        output::print_line(message)?;
        Ok(())
    } else {
        output::note(message);
        view::show_or_users(ctx.format, &after)
    }
}
