//! `registry user …`: list, show, create, edit, deactivate, facilities, passwords; one file per
//! command.

mod create;
mod deactivate;
mod edit;
mod facilities;
mod fields;
mod list;
mod password;
mod recover;
mod reset_password;
mod show;
mod view;
mod wizard;

use super::context::{Ctx, Fail};
use super::prompt::Confirmation;
use crate::cli::offered;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// List users (staff).
    List {
        /// Text in the name or e-mail.
        #[arg(long)]
        q: Option<String>,
        /// Only users with this role: Administrator, Admin, Físico, Laudos, Cliente.
        #[arg(long, value_parser = offered::roles(), hide_possible_values = true)]
        role: Option<String>,
        /// Only active (true) or only deactivated (false) users.
        #[arg(long)]
        active: Option<bool>,
    },
    /// Show a user (by _id, e-mail or name).
    Show {
        /// The user: _id, e-mail or name (a Cliente: only themself).
        user: String,
    },
    /// Create a user; the password is prompted, or read with --password-stdin.
    Create(create::CreateArgs),
    /// Edit a user: only the fields given change (at a terminal without flags, a wizard).
    Edit(edit::EditArgs),
    /// Deactivate a user (their tokens stop working; history is kept).
    Deactivate {
        /// The user: _id, e-mail or name.
        user: String,
        #[command(flatten)]
        confirmation: Confirmation,
    },
    /// The facilities a user is linked to.
    Facilities {
        /// The user: _id, e-mail or name (a Cliente: only themself).
        user: String,
    },
    /// Change your password, or (Administrator) another user's with --user.
    Password {
        /// Administrator: whose password to set (_id, e-mail or name); default: your own.
        #[arg(long)]
        user: Option<String>,
        /// Read the new password from stdin (your current one first, on its own line, when
        /// changing your own).
        #[arg(long)]
        password_stdin: bool,
    },
    /// Ask for a password recovery e-mail.
    Recover {
        /// The e-mail of the account.
        email: String,
    },
    /// Set a new password with the code of a recovery e-mail.
    ResetPassword {
        /// The code of the recovery e-mail (`--code`: `--token` is the session's, a global
        /// option). The REGISTRY_RECOVERY_CODE variable keeps it out of `ps` and the history.
        #[arg(long, env = "REGISTRY_RECOVERY_CODE", hide_env_values = true)]
        code: String,
        /// Read the new password from the first line of stdin instead of prompting.
        #[arg(long)]
        password_stdin: bool,
    },
}

pub async fn run(ctx: &Ctx, command: UserCommand) -> Result<(), Fail> {
    match command {
        UserCommand::List { q, role, active } => list::run(ctx, q, role, active).await,
        UserCommand::Show { user } => show::run(ctx, &user).await,
        UserCommand::Create(a) => create::run(ctx, a).await,
        UserCommand::Edit(a) => edit::run(ctx, a).await,
        UserCommand::Deactivate { user, confirmation } => {
            deactivate::run(ctx, &user, confirmation.yes).await
        }
        UserCommand::Facilities { user } => facilities::run(ctx, &user).await,
        UserCommand::Password {
            user,
            password_stdin,
        } => password::run(ctx, user, password_stdin).await,
        UserCommand::Recover { email } => recover::run(ctx, &email).await,
        UserCommand::ResetPassword {
            code,
            password_stdin,
        } => reset_password::run(ctx, &code, password_stdin).await,
    }
}
