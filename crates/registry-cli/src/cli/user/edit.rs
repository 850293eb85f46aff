//! `registry user edit`: only the fields given change.

use super::fields::UserFields;
use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve};
use clap::Args;
use registry_core::user::read_user;

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The user: _id, e-mail or name (a Cliente: only themself).
    user: String,
    #[command(flatten)]
    fields: UserFields,
    /// Reactivate (true) or deactivate (false).
    #[arg(long)]
    active: Option<bool>,
}

pub async fn run(ctx: &Ctx, a: EditArgs) -> Result<(), Fail> {
    let mut input = a.fields.input()?;
    input.active = a.active;
    let payload = serde_json::to_value(&input).map_err(anyhow::Error::from)?;
    if payload.as_object().is_some_and(|o| o.is_empty()) {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help)".into(),
        ));
    }
    read_user(&payload, false).map_err(Fail::Invalid)?;
    let u = resolve::user(ctx, &a.user).await?;
    input.id = Some(u.id);
    let u = ctx.client.edit_user(&input).await?;
    output::note(format!("Saved {} <{}>", u.name, u.email));
    view::show(ctx, &u)
}
