//! `registry facility history`: the audit history of a facility (staff).

use crate::cli::context::{Ctx, Fail};
use crate::cli::output;
use crate::cli::resolve;

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    let events = ctx.client.facility_history(&f.id).await?;
    output::print_list(
        ctx.format,
        &events,
        &["at", "action", "by", "roleChanges"],
        |e| {
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
        },
    )?;
    Ok(())
}
