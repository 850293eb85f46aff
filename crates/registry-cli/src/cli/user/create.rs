//! `registry user create`: the password is prompted, or read with --password-stdin.

use super::fields::UserFields;
use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};
use clap::Args;
use registry_core::user::read_user;

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    fields: UserFields,
    #[arg(long)]
    password_stdin: bool,
}

pub async fn run(ctx: &Ctx, a: CreateArgs) -> Result<(), Fail> {
    let mut input = a.fields.input();
    for (value, flag, label) in [
        (&mut input.name, "--name", "Name"),
        (&mut input.email, "--email", "E-mail"),
    ] {
        if value.is_none() {
            *value = Some(prompt::text(ctx, None, flag, label)?);
        }
    }
    let password = prompt::password(a.password_stdin, ctx.interactive, "Password", true)?;
    input.password = Some(password);
    let payload = serde_json::to_value(&input).map_err(anyhow::Error::from)?;
    read_user(&payload, true).map_err(Fail::Invalid)?;
    let u = ctx.client.register_user(&input).await?;
    output::note(format!("Created {} <{}> ({})", u.name, u.email, u.id));
    view::show(ctx, &u)
}
