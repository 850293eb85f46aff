//! `registry material list`: receipts, latest received first; over-quantity ones are flagged.

use super::{args, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::offered;
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long)]
    facility: Option<String>,
    /// Only this ISO week, YYYY-Www.
    #[arg(long)]
    week: Option<String>,
    /// Only this radioisotope, e.g. "Tc(99m)".
    #[arg(long, value_parser = offered::radioisotopes(), hide_possible_values = true)]
    radioisotope: Option<String>,
    /// Only receipts that took their week over the authorised quantity.
    #[arg(long)]
    over_quantity: bool,
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let mut query =
        ListQuery::default().filter_opt("facilityId", resolve::facility_id(ctx, a.facility).await?);
    if let Some(w) = a.week {
        query = query.filter(
            "week",
            args::parse_week(&w).map_err(|e| Fail::Usage(format!("--week {e}")))?,
        );
    }
    if let Some(r) = a.radioisotope {
        query = query.filter(
            "radioisotope",
            args::isotope_arg(&r, "--radioisotope", "radioisotope")?.as_str(),
        );
    }
    if a.over_quantity {
        query = query.filter("overQuantity", "true");
    }
    view::print_list(ctx.format, &ctx.client.receipts(&query).await?)
}
