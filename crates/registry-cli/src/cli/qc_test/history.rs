//! `registry test history`: the records of one test type on one equipment, newest first.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// Test type: _id or name.
    #[arg(long)]
    test_type: Option<String>,
    /// From this day (YYYY-MM-DD).
    #[arg(long)]
    from: Option<String>,
    /// Before this day (YYYY-MM-DD).
    #[arg(long)]
    to: Option<String>,
}

pub async fn run(ctx: &Ctx, a: HistoryArgs) -> Result<(), Fail> {
    let e = resolve::equipment_or_pick(ctx, a.equipment, "--equipment").await?;
    let t = resolve::test_type_or_pick(ctx, &e, a.test_type, "--test-type").await?;
    let query = ListQuery::default()
        .filter_opt("dateGte", a.from)
        .filter_opt("dateLt", a.to);
    let list = ctx.client.test_history(&e.id, &t.id, &query).await?;
    view::print_list(ctx.format, &list)
}
