//! `registry equipment …`: a facility's equipment, the equipment types and the QC test types;
//! one file per command.

mod archive;
mod create;
mod edit;
pub mod fields;
mod list;
mod show;
mod test_types;
mod types;
mod view;

use super::context::{Ctx, Fail};
use super::prompt::Confirmation;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum EquipmentCommand {
    /// A facility's equipment (picked from a list at the terminal when --facility is missing).
    List(list::ListArgs),
    /// Show one piece of equipment by _id.
    Show {
        /// The equipment's _id.
        equipment: String,
    },
    /// Register equipment at a facility.
    Create(create::CreateArgs),
    /// Edit equipment: only the fields given change (at a terminal without flags, a wizard).
    #[command(
        mut_arg("manufacturer", |a| a.help("Manufacturer, e.g. Siemens (\"\" clears it).")),
        mut_arg("model", |a| a.help("Model, e.g. Symbia (\"\" clears it).")),
        mut_arg("serial_number", |a| a.help("Serial number (\"\" clears it).")),
        mut_arg("patrimonial_number", |a| a.help("Patrimonial (asset) number (\"\" clears it).")),
        mut_arg("attributes", |a| a.help(
            "Type-specific data as KEY=VALUE (repeat), merged into the stored attributes; \
             KEY= removes one. VALUE is read as JSON when it reads back as written (2, 2.5, \
             true), else as text (2.0.1, 1e3, LEHR)."
        )),
        mut_arg("attributes_json", |a| a.help(
            "Type-specific data as one JSON object: replaces the stored attributes (the \
             --attribute flags go over it)."
        )),
    )]
    Edit(edit::EditArgs),
    /// Archive equipment (it and its QC tests leave every list; the audit log keeps them).
    Archive {
        /// The equipment's _id.
        equipment: String,
        #[command(flatten)]
        confirmation: Confirmation,
    },
    /// The equipment types (Gama Câmara, PET/CT...).
    Types {
        /// Text in the name.
        #[arg(long)]
        q: Option<String>,
    },
    /// The QC test types and how often each falls due.
    TestTypes {
        /// Only those of this equipment type (_id or name).
        #[arg(long = "type")]
        equipment_type: Option<String>,
    },
}

pub async fn run(ctx: &Ctx, command: EquipmentCommand) -> Result<(), Fail> {
    match command {
        EquipmentCommand::List(a) => list::run(ctx, a).await,
        EquipmentCommand::Show { equipment } => show::run(ctx, &equipment).await,
        EquipmentCommand::Create(a) => create::run(ctx, a).await,
        EquipmentCommand::Edit(a) => edit::run(ctx, a).await,
        EquipmentCommand::Archive {
            equipment,
            confirmation,
        } => archive::run(ctx, &equipment, confirmation.yes).await,
        EquipmentCommand::Types { q } => types::run(ctx, q).await,
        EquipmentCommand::TestTypes { equipment_type } => {
            test_types::run(ctx, equipment_type).await
        }
    }
}
