//! `registry facility …`: list, show, create, edit, archive, assign/unassign responsibilities,
//! linked users, history, import and export; one file per command.

mod archive;
mod assign;
mod create;
mod edit;
mod export;
mod fields;
mod history;
mod import;
mod import_lookup;
mod import_rows;
mod list;
mod show;
mod unassign;
mod users;
pub mod view;
mod wizard;

use super::context::{Ctx, Fail};
use super::prompt::Confirmation;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum FacilityCommand {
    /// List facilities (one page, or all with --all).
    List(list::ListArgs),
    /// Show one facility (by _id, or by cnpj or exact name).
    Show {
        /// The facility: _id, cnpj or exact name.
        facility: String,
    },
    /// Register a facility: by flags, --from-file, or a wizard at the terminal.
    #[command(after_help = crate::cli::examples::FACILITY_CREATE)]
    Create(create::CreateArgs),
    /// Edit a facility: only the fields given change (at a terminal without flags, a wizard).
    #[command(
        mut_arg("group", |a| a.help("The group: _id or exact name (\"\" clears it).")),
        mut_arg("practices", |a| a.help(
            "An authorised practice (repeat for several); replaces the stored set."
        )),
        mut_arg("isotopes", |a| a.help(
            "NAME=QUANTITY in mCi/week, e.g. \"Tc(99m)=1500\" (repeat); replaces the stored list."
        )),
    )]
    Edit(edit::EditArgs),
    /// Archive a facility (it leaves lists; the record and its history are kept).
    Archive {
        /// The facility: _id, cnpj or exact name.
        facility: String,
        #[command(flatten)]
        confirmation: Confirmation,
    },
    /// Give a user a responsibility; for the four main roles the previous holder is replaced.
    Assign(assign::AssignArgs),
    /// Take a responsibility (or, without --role, the whole link) away from a user.
    Unassign(unassign::UnassignArgs),
    /// The users linked to a facility, with their responsibilities and licences.
    Users {
        /// The facility: _id, cnpj or exact name.
        facility: String,
    },
    /// The audit history of a facility (staff).
    History {
        /// The facility: _id, cnpj or exact name.
        facility: String,
    },
    /// Register many facilities from a CSV or JSON file; a re-run skips those already registered.
    #[command(after_help = import::CSV_COLUMNS_HELP)]
    Import(import::ImportArgs),
    /// Every facility (all pages) as CSV (the import format) or JSON.
    Export(export::ExportArgs),
}

pub async fn run(ctx: &Ctx, command: FacilityCommand) -> Result<(), Fail> {
    match command {
        FacilityCommand::List(args) => list::run(ctx, args).await,
        FacilityCommand::Show { facility } => show::run(ctx, &facility).await,
        FacilityCommand::Create(args) => create::run(ctx, args).await,
        FacilityCommand::Edit(args) => edit::run(ctx, args).await,
        FacilityCommand::Archive {
            facility,
            confirmation,
        } => archive::run(ctx, &facility, confirmation.yes).await,
        FacilityCommand::Assign(args) => assign::run(ctx, args).await,
        FacilityCommand::Unassign(args) => unassign::run(ctx, args).await,
        FacilityCommand::Users { facility } => users::run(ctx, &facility).await,
        FacilityCommand::History { facility } => history::run(ctx, &facility).await,
        FacilityCommand::Import(args) => import::run(ctx, args).await,
        FacilityCommand::Export(args) => export::run(ctx, args).await,
    }
}
