//! `registry facility create`: by flags, --from-file, or a wizard at the terminal.

use super::fields::{self, FacilityFields};
use super::{view, wizard};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};
use clap::Args;
use registry_core::facility::Mode;
use registry_core::{FieldCode, FieldError};
use serde_json::Value;

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    fields: FacilityFields,
}

pub async fn run(ctx: &Ctx, args: CreateArgs) -> Result<(), Fail> {
    let fields = args.fields;
    let mut obj = fields.payload(&[])?;
    let by_flags = fields.from_file.is_none();
    fields::clean_cnpj(&mut obj);
    if by_flags && !ctx.interactive {
        // No prompt: every required field left out is named by its flag, a usage error (exit
        // 2) — with every value given that the local check refuses, when there is one: then a
        // validation error (exit 4) naming both, as `user create` does.
        let missing = fields::missing_required_flags(&obj);
        if !missing.is_empty() {
            let given = Value::Object(obj.clone());
            let errors = fields::local_field_errors(&given, Mode::Create, None).err();
            let invalid: Vec<FieldError> = (errors.unwrap_or_default().into_iter())
                .filter(|e| e.code != FieldCode::Required)
                .collect();
            if invalid.is_empty() {
                return Err(prompt::missing_all(&missing));
            }
            let missing: Vec<(&str, &str)> =
                missing.iter().map(|f| (fields::path_of(f), *f)).collect();
            return Err(fields.terms().refused_with_missing(invalid, &missing));
        }
    }
    let mut unknown_group = fields::group_to_id(ctx, &mut obj).await?;
    if by_flags && ctx.interactive {
        // The wizard offers the groups there are in place of the one not found.
        if let Some(group) = unknown_group.take() {
            output::note(format!("--group: {}", group.message));
        }
        let refused = fields::take_refused(&mut obj);
        wizard::fill_create(ctx, &mut obj, &refused).await?;
    }
    let payload = Value::Object(obj);
    let terms = fields.terms();
    fields::check_new(ctx, &payload, unknown_group)
        .await
        .map_err(|e| terms.apply(e))?;
    let f = ctx
        .client
        .register_facility(&payload)
        .await
        .map_err(|e| terms.apply(e.into()))?;
    output::note(format!("Registered facility {} ({})", f.name, f.id));
    view::show(ctx.format, &f)
}
