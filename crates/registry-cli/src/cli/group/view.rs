//! How a group is printed.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, or_empty};
use registry_core::api::Group;

pub fn show(ctx: &Ctx, g: &Group) -> Result<(), Fail> {
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
            ("description", or_empty(&g.description)),
            ("facilities", facilities),
        ],
    )?;
    Ok(())
}
