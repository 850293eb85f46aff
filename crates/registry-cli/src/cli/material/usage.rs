//! `registry material usage`: a week's usage per isotope: authorised, received, remaining (mCi).

use super::{args, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;
use clap::Args;

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// ISO week, YYYY-Www (Monday to Sunday, Brasília time); default: this week.
    #[arg(long, value_parser = args::parse_week)]
    week: Option<String>,
}

pub async fn run(ctx: &Ctx, a: UsageArgs) -> Result<(), Fail> {
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let usage = ctx.client.weekly_usage(&f.id, a.week.as_deref()).await?;
    view::print_usage(ctx.format, &usage)
}
