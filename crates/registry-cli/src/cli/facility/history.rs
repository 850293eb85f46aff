//! `registry facility history`: the audit history of a facility (staff).

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Rows};
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    let events = ctx.client.facility_history(&f.id).await?;
    let cells = events
        .iter()
        .map(|e| {
            vec![
                e.at.clone(),
                e.action.clone(),
                e.actor.as_ref().map(|a| a.name.clone()).unwrap_or_default(),
                e.role_changes
                    .iter()
                    .map(|c| serde_json::to_string(c).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: &events,
            headers: &["at", "action", "by", "roleChanges"],
            cells,
        },
    )?;
    Ok(())
}
