//! `registry test …`: record QC tests, their history on one equipment, what falls due, edit and
//! delete a record; one file per command. A test type with a `kind` is computed: the readings are
//! asked for (or read from a file), the figures and verdict shown before saving (docs/qc.md).

mod ask;
mod delete;
mod due;
mod edit;
mod fields;
mod history;
mod readings;
mod record;
mod report;
mod show;
mod view;

use super::context::{Ctx, Fail};
use super::prompt::{self, Confirmation};
use super::resolve;
use clap::Subcommand;
use registry_core::equipment::{Equipment, TestType};

#[derive(Debug, Subcommand)]
pub enum TestCommand {
    /// Record a QC test done on one equipment (picked from lists at the terminal).
    #[command(after_help = crate::cli::examples::TEST_RECORD)]
    Record(record::RecordArgs),
    /// Show one QC test record (with the figures of a computed test).
    Show {
        /// The QC test record's _id.
        test: String,
    },
    /// Save the one-page PDF report of a test (to upload as its document and sign).
    Report {
        /// The QC test record's _id.
        test: String,
        /// Where to write it (default qc-test-<id>.pdf; - for stdout).
        #[arg(long)]
        file: Option<std::path::PathBuf>,
        /// Overwrite the file if it exists.
        #[arg(long)]
        force: bool,
    },
    /// The records of one test type on one equipment, newest first.
    History(history::HistoryArgs),
    /// What falls due: every test type of one equipment (--equipment), or what needs attention
    /// across the facilities you can read.
    Due(due::DueArgs),
    /// Edit a record: only the fields given change.
    Edit(edit::EditArgs),
    /// Delete a record (it leaves the history and the due dates; the audit log keeps it).
    Delete {
        /// The QC test record's _id.
        test: String,
        #[command(flatten)]
        confirmation: Confirmation,
    },
}

pub async fn run(ctx: &Ctx, command: TestCommand) -> Result<(), Fail> {
    match command {
        TestCommand::Record(a) => record::run(ctx, a).await,
        TestCommand::Show { test } => show::run(ctx, &test).await,
        TestCommand::Report { test, file, force } => report::run(ctx, &test, file, force).await,
        TestCommand::History(a) => history::run(ctx, a).await,
        TestCommand::Due(a) => due::run(ctx, a).await,
        TestCommand::Edit(a) => edit::run(ctx, a).await,
        TestCommand::Delete { test, confirmation } => {
            delete::run(ctx, &test, confirmation.yes).await
        }
    }
}

/// The equipment (`--equipment`) and test type (`--test-type`, one of the equipment's type) a
/// command is about: without a terminal each missing flag is named at once; at the terminal a
/// missing one is picked from a list.
async fn equipment_and_test_type(
    ctx: &Ctx,
    equipment: Option<String>,
    test_type: Option<String>,
) -> Result<(Equipment, TestType), Fail> {
    prompt::require(
        ctx.interactive,
        &[
            ("--equipment", equipment.is_some()),
            ("--test-type", test_type.is_some()),
        ],
    )?;
    let e = resolve::equipment_or_pick(ctx, equipment, "--equipment").await?;
    let t = resolve::test_type_or_pick(ctx, &e, test_type, "--test-type").await?;
    Ok((e, t))
}
