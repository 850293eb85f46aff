//! `registry facility create`: by flags, --from-file, or a wizard at the terminal.

use super::fields::{self, FacilityFields};
use super::{view, wizard};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};
use clap::Args;
use registry_core::facility::Mode;
use registry_core::{FieldCode, FieldError};
use serde_json::{Map, Value};

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
            let invalid = refused_values(&obj, &missing);
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
        let refused = fields::take_refused(&mut obj, &fields.terms());
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

/// The values given that the local check refuses, without the refusals of the fields the flags
/// left out (`missing`, named as missing flags instead): a value given but refused (an empty
/// `--name ""`: "cannot be empty", of code `required` too) is among them.
fn refused_values(obj: &Map<String, Value>, missing: &[&str]) -> Vec<FieldError> {
    let given = Value::Object(obj.clone());
    let errors = fields::local_field_errors(&given, Mode::Create, None).err();
    let left_out: Vec<&str> = missing.iter().map(|f| fields::path_of(f)).collect();
    (errors.unwrap_or_default().into_iter())
        .filter(|e| !(e.code == FieldCode::Required && is_left_out(&e.field, &left_out)))
        .collect()
}

/// Whether the required `field` a refusal names is one the flags left out (`left_out`: the API
/// paths of the missing flags), or the address as a whole when no address flag was given.
fn is_left_out(field: &str, left_out: &[&str]) -> bool {
    left_out.contains(&field)
        || (field == "address" || field == "address[0]")
            && left_out.iter().any(|p| p.starts_with("address"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_value_given_is_refused_beside_the_missing_flags() {
        let obj = json!({"name": "", "cnpj": "11222333000181"});
        let obj = obj.as_object().unwrap();
        let missing = fields::missing_required_flags(obj);
        assert!(!missing.contains(&"--name"), "{missing:?}");
        let refused: Vec<String> = refused_values(obj, &missing)
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(refused, ["name"]);
        // Nothing given wrong: only missing flags, none of them refused as a value.
        let obj = json!({"name": "Clínica"});
        let obj = obj.as_object().unwrap();
        let missing = fields::missing_required_flags(obj);
        assert!(missing.contains(&"--street"), "{missing:?}");
        assert_eq!(refused_values(obj, &missing), vec![]);
    }
}
