//! `registry group …`: groups of facilities; one file per command.

mod create;
mod delete;
mod edit;
mod list;
mod show;
mod view;

use super::context::{Ctx, Fail};
use super::prompt::Confirmation;
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    /// List groups.
    List {
        /// Text in the name.
        #[arg(long)]
        q: Option<String>,
    },
    /// A group and its facilities.
    Show {
        /// The group: _id or name (case and accents ignored).
        group: String,
    },
    /// Create a group.
    Create(GroupFields),
    /// Change the name and/or description ("" clears the description); at a terminal without
    /// flags, a wizard with the stored values to keep or change.
    Edit {
        /// The group: _id or name (case and accents ignored).
        group: String,
        #[command(flatten)]
        fields: GroupFields,
    },
    /// Delete a group (Administrator); refused while facilities use it.
    Delete {
        /// The group: _id or name (case and accents ignored).
        group: String,
        #[command(flatten)]
        confirmation: Confirmation,
    },
}

// The flags of `create` and `edit`.
#[derive(Debug, Args)]
pub struct GroupFields {
    /// The group's name (unique).
    #[arg(long)]
    name: Option<String>,
    /// What the group is ("" clears it on edit).
    #[arg(long)]
    description: Option<String>,
}

pub async fn run(ctx: &Ctx, command: GroupCommand) -> Result<(), Fail> {
    match command {
        GroupCommand::List { q } => list::run(ctx, q).await,
        GroupCommand::Show { group } => show::run(ctx, &group).await,
        GroupCommand::Create(fields) => create::run(ctx, fields).await,
        GroupCommand::Edit { group, fields } => edit::run(ctx, &group, fields).await,
        GroupCommand::Delete {
            group,
            confirmation,
        } => delete::run(ctx, &group, confirmation.yes).await,
    }
}
