//! `registry waste …`: store waste packages in decay storage, list them (what can go today), and
//! record a release; one file per command.

mod list;
mod release;
mod store;
mod view;

use super::context::{Ctx, Fail};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum WasteCommand {
    /// Store a closed package; the release date is computed by the server.
    #[command(after_help = crate::cli::examples::WASTE_STORE)]
    Store(store::StoreArgs),
    /// Packages, newest first (--releasable: what can be released today).
    List(list::ListArgs),
    /// Record the release of a package whose release date has come.
    Release(release::ReleaseArgs),
}

pub async fn run(ctx: &Ctx, command: WasteCommand) -> Result<(), Fail> {
    match command {
        WasteCommand::Store(a) => store::run(ctx, a).await,
        WasteCommand::List(a) => list::run(ctx, a).await,
        WasteCommand::Release(a) => release::run(ctx, a).await,
    }
}
