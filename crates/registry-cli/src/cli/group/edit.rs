//! `registry group edit`: change the name and/or description ("" clears the description); at
//! the terminal without flags, a wizard asks for both with the stored values to keep or change.

use super::{GroupFields, view};
use crate::cli::changes::Changes;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, resolve, rules};
use serde_json::{Map, Value, json};

pub async fn run(ctx: &Ctx, group: &str, fields: GroupFields) -> Result<(), Fail> {
    let mut body = Map::new();
    if let Some(n) = fields.name {
        body.insert("name".into(), json!(n));
    }
    if let Some(d) = fields.description {
        let cleared = d.is_empty();
        body.insert(
            "description".into(),
            if cleared { Value::Null } else { json!(d) },
        );
    }
    if body.is_empty() && !ctx.interactive {
        return Err(Fail::Usage(
            "nothing to change: give --name or --description".into(),
        ));
    }
    let g = resolve::group(ctx, group).await?;
    if body.is_empty() {
        let mut c = Changes::default();
        c.text("name", "Group name", &g.name, &rules::not_empty)?;
        c.optional("description", "Description", g.description.as_deref(), None)?;
        match c.finish() {
            Some(changed) => body = changed,
            None => return view::show(ctx, &g),
        }
    }
    body.insert("_id".into(), json!(g.id));
    let saved = ctx.client.edit_group(&Value::Object(body)).await?;
    output::note(format!("Saved group {}", saved.name));
    // The edit's answer does not carry the group's facilities: read it again, so the group is
    // shown as `group show` shows it.
    view::show(ctx, &ctx.client.group(&saved.id).await?)
}
