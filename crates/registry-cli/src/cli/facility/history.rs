//! `registry facility history`: the audit history of a facility (staff), with what each event
//! changed.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{audit, output, resolve};

/// An `_id` is asked for its history first: an archived facility has one (the server keeps it
/// readable), though it is gone from the look-ups by `_id`, cnpj and name.
pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let events = match resolve::by_id(ctx.client.facility_history(text.trim()).await)? {
        Some(events) => events,
        None => {
            let f = resolve::facility(ctx, text).await.map_err(|e| match e {
                Fail::NotFound(message) => Fail::NotFound(format!(
                    "{message} (an archived facility's history is found by its _id)"
                )),
                e => e,
            })?;
            ctx.client.facility_history(&f.id).await?
        }
    };
    output::print_table_ranked(ctx.format, &events, audit::COLUMNS, audit::RANK)?;
    Ok(())
}
