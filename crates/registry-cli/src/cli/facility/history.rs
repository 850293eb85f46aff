//! `registry facility history`: the audit history of a facility (staff).

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Column};
use crate::cli::resolve;
use registry_core::api::AuditEvent;

const COLUMNS: &[Column<AuditEvent>] = &[
    ("at", |e| e.at.clone()),
    ("action", |e| e.action.clone()),
    ("by", |e| {
        e.actor.as_ref().map(|a| a.name.clone()).unwrap_or_default()
    }),
    ("roleChanges", |e| {
        e.role_changes
            .iter()
            .map(|c| serde_json::to_string(c).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }),
];

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    let events = ctx.client.facility_history(&f.id).await?;
    output::print_table(ctx.format, &events, COLUMNS)?;
    Ok(())
}
