//! `registry user edit`: only the fields given change; at the terminal without fields, a wizard
//! walks every field with the stored value to keep or change.

use super::fields::UserFields;
use super::{view, wizard};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve};
use clap::Args;
use registry_core::api::UserInput;
use registry_core::user::read_user;
use serde_json::Value;

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
    let (mut input, found) = if ctx.interactive && !a.fields.any_field() && a.active.is_none() {
        let u = resolve::user(ctx, &a.user).await?;
        let Some(changed) = wizard::edit(ctx, &u).await?.finish() else {
            return view::show(ctx, &u);
        };
        let input: UserInput =
            serde_json::from_value(Value::Object(changed)).map_err(anyhow::Error::from)?;
        (input, Some(u))
    } else {
        let mut input = a.fields.input()?;
        input.active = a.active;
        (input, None)
    };
    let payload = serde_json::to_value(&input).map_err(anyhow::Error::from)?;
    if payload.as_object().is_some_and(|o| o.is_empty()) {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help)".into(),
        ));
    }
    let terms = a.fields.terms();
    read_user(&payload, false).map_err(|e| terms.apply(Fail::Invalid(e)))?;
    let u = match found {
        Some(u) => u,
        None => resolve::user(ctx, &a.user).await?,
    };
    input.id = Some(u.id);
    let u = ctx
        .client
        .edit_user(&input)
        .await
        .map_err(|e| terms.apply(e.into()))?;
    output::note(format!("Saved {} <{}>", u.name, u.email));
    view::show(ctx, &u)
}
