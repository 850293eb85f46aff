//! `registry group …`: groups of facilities; one file per command.

mod create;
mod delete;
mod edit;
mod list;
mod show;
mod view;

use super::context::{Ctx, Fail};
use clap::Subcommand;

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
        GroupCommand::List { q } => list::run(ctx, q).await,
        GroupCommand::Show { group } => show::run(ctx, &group).await,
        GroupCommand::Create { name, description } => create::run(ctx, name, description).await,
        GroupCommand::Edit {
            group,
            name,
            description,
        } => edit::run(ctx, &group, name, description).await,
        GroupCommand::Delete { group, yes } => delete::run(ctx, &group, yes).await,
    }
}
