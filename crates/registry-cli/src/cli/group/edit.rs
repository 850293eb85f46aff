//! `registry group edit`: change the name and/or description ("" clears the description).

use super::{GroupFields, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve};
use serde_json::json;

pub async fn run(ctx: &Ctx, group: &str, fields: GroupFields) -> Result<(), Fail> {
    let mut body = json!({"_id": null});
    if let Some(n) = fields.name {
        body["name"] = json!(n);
    }
    if let Some(d) = fields.description {
        body["description"] = if d.is_empty() { json!(null) } else { json!(d) };
    }
    if body.as_object().is_some_and(|o| o.len() == 1) {
        return Err(Fail::Usage(
            "nothing to change: give --name or --description".into(),
        ));
    }
    body["_id"] = json!(resolve::group(ctx, group).await?.id);
    let g = ctx.client.edit_group(&body).await?;
    output::note(format!("Saved group {}", g.name));
    view::show(ctx, &g)
}
