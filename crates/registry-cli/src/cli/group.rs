//! `registry group …`: groups of facilities.

use super::context::{Ctx, Fail};
use super::output::{self, Rows};
use super::prompt;
use clap::Subcommand;
use registry_client::ListQuery;
use registry_core::api::Group;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    List {
        /// Text in the name.
        #[arg(long)]
        q: Option<String>,
    },
    /// A group and its facilities.
    Show { group: String },
    Create {
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        description: Option<String>,
    },
    /// Change the name and/or description ("" clears the description).
    Edit {
        group: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        description: Option<String>,
    },
    /// Delete a group (Administrator); refused while facilities use it.
    Delete {
        group: String,
        #[arg(long, short)]
        yes: bool,
    },
}

pub async fn run(ctx: &Ctx, command: GroupCommand) -> Result<(), Fail> {
    match command {
        GroupCommand::List { q } => {
            let query = match q {
                Some(q) => ListQuery::default().filter("q", q),
                None => ListQuery::default(),
            };
            let groups: Vec<Group> = ctx.client.all_pages("/group", &query).await?;
            let cells = groups
                .iter()
                .map(|g| {
                    vec![
                        g.id.clone(),
                        g.name.clone(),
                        g.description.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            output::print_rows(
                ctx.format,
                Rows {
                    records: &groups,
                    headers: &["_id", "name", "description"],
                    cells,
                },
            )?;
            Ok(())
        }
        GroupCommand::Show { group } => show(ctx, &ctx.client.group(&group).await?),
        GroupCommand::Create { name, description } => {
            let name = prompt::text_or_ask(name, ctx.interactive, "--name", "Group name")?;
            let g = ctx
                .client
                .register_group(&name, description.as_deref())
                .await?;
            output::note(format!("Created group {} ({})", g.name, g.id));
            show(ctx, &g)
        }
        GroupCommand::Edit {
            group,
            name,
            description,
        } => {
            let mut body = json!({"_id": group});
            if let Some(n) = name {
                body["name"] = json!(n);
            }
            if let Some(d) = description {
                body["description"] = if d.is_empty() { json!(null) } else { json!(d) };
            }
            if body.as_object().is_some_and(|o| o.len() == 1) {
                return Err(Fail::Usage(
                    "nothing to change: give --name or --description".into(),
                ));
            }
            let g = ctx.client.edit_group(&body).await?;
            output::note(format!("Saved group {}", g.name));
            show(ctx, &g)
        }
        GroupCommand::Delete { group, yes } => {
            let g = ctx.client.group(&group).await?;
            if !prompt::confirm(ctx.interactive, yes, &format!("Delete group {}?", g.name))? {
                output::note("Not deleted.");
                return Ok(());
            }
            let m = ctx.client.delete_group(&g.id).await?;
            output::note(format!("{} {}", m.message, g.name));
            Ok(())
        }
    }
}

fn show(ctx: &Ctx, g: &Group) -> Result<(), Fail> {
    let facilities = g
        .facilities
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{} ({}, {})", f.name, f.cnpj, f.department))
        .collect::<Vec<_>>()
        .join("\n");
    output::print_record(
        ctx.format,
        g,
        vec![
            ("_id", g.id.clone()),
            ("name", g.name.clone()),
            ("description", g.description.clone().unwrap_or_default()),
            ("facilities", facilities),
        ],
    )?;
    Ok(())
}
