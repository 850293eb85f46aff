//! `registry test history`: the records of one test type on one equipment, newest first.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::days::DayRange;
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
    #[command(flatten)]
    days: DayRange,
}

pub async fn run(ctx: &Ctx, a: HistoryArgs) -> Result<(), Fail> {
    // The days given are checked first, then every missing flag is named at once, before the
    // equipment is looked up or picked.
    let query = a.days.filters(ListQuery::default())?;
    let (e, t) = super::equipment_and_test_type(ctx, a.equipment, a.test_type).await?;
    let list = ctx.client.test_history(&e.id, &t.id, &query).await?;
    view::print_list(ctx.format, &list)
}
