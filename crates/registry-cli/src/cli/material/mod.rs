//! `registry material …`: receive radioactive material at a facility, list receipts, and the
//! week's usage against the authorised quantities; one file per command.

pub mod args;
mod list;
mod receive;
mod usage;
mod view;

use super::context::{Ctx, Fail};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum MaterialCommand {
    /// Record a receipt of radioactive material (checked against the facility's authorisation).
    #[command(after_help = crate::cli::examples::MATERIAL_RECEIVE)]
    Receive(receive::ReceiveArgs),
    /// Receipts, latest received first; over-quantity ones are flagged.
    List(list::ListArgs),
    /// A week's usage per isotope: authorised, received, remaining (mCi).
    Usage(usage::UsageArgs),
}

pub async fn run(ctx: &Ctx, command: MaterialCommand) -> Result<(), Fail> {
    match command {
        MaterialCommand::Receive(a) => receive::run(ctx, a).await,
        MaterialCommand::List(a) => list::run(ctx, a).await,
        MaterialCommand::Usage(a) => usage::run(ctx, a).await,
    }
}
