//! `registry facility history`: the audit history of a facility (staff), with what each event
//! changed.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{audit, output, resolve};

pub async fn run(ctx: &Ctx, text: &str) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    let events = ctx.client.facility_history(&f.id).await?;
    output::print_table_ranked(ctx.format, &events, audit::COLUMNS, audit::RANK)?;
    Ok(())
}
