//! `registry user create`: the password is prompted, or read with --password-stdin; at the
//! terminal the roles are picked from those the caller may grant.

use super::fields::UserFields;
use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::prompt::PasswordKind;
use crate::cli::{auth, output, prompt, rules};
use clap::Args;
use dialoguer::MultiSelect;
use registry_core::Role;
use registry_core::user::{may_grant, read_user};

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    fields: UserFields,
    /// Read the password from the first line of stdin instead of prompting.
    #[arg(long)]
    password_stdin: bool,
}

pub async fn run(ctx: &Ctx, a: CreateArgs) -> Result<(), Fail> {
    let mut input = a.fields.input()?;
    let name_rule: prompt::Check = &rules::not_empty;
    let email_rule: prompt::Check = &rules::email;
    // The values given as flags are checked first (at a terminal, a wrong one is asked for again
    // before any other question), then the missing ones are asked for.
    for given in [true, false] {
        for (value, flag, label, rule) in [
            (&mut input.name, "--name", "Name", name_rule),
            (&mut input.email, "--email", "E-mail", email_rule),
        ] {
            if value.is_some() == given {
                *value = Some(prompt::checked(
                    value.take(),
                    ctx.interactive,
                    flag,
                    label,
                    None,
                    Some(rule),
                )?);
            }
        }
    }
    if input.roles.is_none() && ctx.interactive {
        input.roles = ask_roles(ctx).await?;
    }
    let password = prompt::password(
        a.password_stdin,
        ctx.interactive,
        "Password",
        PasswordKind::New,
    )?;
    input.password = Some(password);
    let payload = serde_json::to_value(&input).map_err(anyhow::Error::from)?;
    read_user(&payload, true).map_err(Fail::Invalid)?;
    let u = ctx.client.register_user(&input).await?;
    output::note(format!("Created {} <{}> ({})", u.name, u.email, u.id));
    view::show(ctx, &u)
}

/// At the terminal: the roles of the new user, picked among those the caller may grant
/// (product.md §3: an Administrator any, other staff only `Cliente`), none marked: the user gets
/// what the person marks, and `Cliente` when nothing is marked. Nothing
/// is asked when `Cliente` is all the caller may grant (or nobody is logged in: self-registration).
async fn ask_roles(ctx: &Ctx) -> Result<Option<Vec<Role>>, Fail> {
    let Some(me) = auth::caller(ctx).await? else {
        return Ok(None);
    };
    let grantable: Vec<Role> = Role::ALL
        .iter()
        .copied()
        .filter(|r| may_grant(&me.roles, *r))
        .collect();
    if grantable.iter().all(|r| *r == Role::Client) {
        return Ok(None);
    }
    let items: Vec<&str> = grantable.iter().map(|r| r.as_str()).collect();
    let chosen = MultiSelect::with_theme(&prompt::theme())
        .with_prompt("Roles (space to mark, enter to go on)")
        .max_length(prompt::list_rows())
        .items(prompt::fit_labels(&items))
        .interact()?;
    if chosen.is_empty() {
        output::note("No role marked: the user is a Cliente.");
        return Ok(Some(vec![Role::Client]));
    }
    Ok(Some(chosen.into_iter().map(|i| grantable[i]).collect()))
}
