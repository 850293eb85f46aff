//! `registry facility edit`: only the fields given change; at the terminal without fields, a
//! wizard walks every field.

use super::fields::{self, FacilityFields};
use super::{view, wizard};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve};
use clap::Args;
use serde_json::Value;

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The facility: _id, cnpj or exact name.
    facility: String,
    #[command(flatten)]
    fields: FacilityFields,
}

pub async fn run(ctx: &Ctx, args: EditArgs) -> Result<(), Fail> {
    let current = resolve::facility(ctx, &args.facility).await?;
    let wizard = ctx.interactive && !args.fields.any_field() && args.fields.from_file.is_none();
    let mut obj = if wizard {
        match wizard::edit(ctx, &current).await?.finish() {
            Some(changed) => changed,
            // Every answer kept the stored value: nothing to send, and no new version.
            None => return view::show(ctx.format, &current),
        }
    } else {
        let stored: Vec<Value> = current
            .address
            .iter()
            .map(|a| serde_json::to_value(a).expect("addresses serialise"))
            .collect();
        args.fields.payload(&stored)?
    };
    if obj.is_empty() {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help) or --from-file".into(),
        ));
    }
    // A file saved from `show -o json` carries the version it was read at: the edit is made
    // against that one, so a change someone made since is not silently undone (exit 5).
    let version = (args.fields.from_file.as_ref())
        .and_then(|_| obj.get("version").and_then(Value::as_i64))
        .unwrap_or(current.version);
    fields::clean_cnpj(&mut obj);
    let unknown_group = fields::group_to_id(ctx, &mut obj).await?;
    let payload = Value::Object(obj);
    let terms = args.fields.terms();
    fields::check_locally(&payload, unknown_group).map_err(|e| terms.apply(e))?;
    let f = ctx
        .client
        .edit_facility(&current.id, &payload, Some(version))
        .await
        .map_err(|e| terms.apply(e.into()))?;
    if f.version == current.version {
        output::note("Nothing changed.");
    } else {
        output::note(format!("Saved {} (version {})", f.name, f.version));
    }
    view::show(ctx.format, &f)
}
