//! `registry waste list`: the packages in decay storage, and what can go today.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::material::args::isotope_arg;
use crate::cli::offered;
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long)]
    facility: Option<String>,
    /// Only packages that can be released today.
    #[arg(long, conflicts_with = "released")]
    releasable: bool,
    /// Only released packages.
    #[arg(long)]
    released: bool,
    /// Only packages holding this radioisotope, e.g. "I(131)".
    #[arg(long, value_parser = offered::radioisotopes(), hide_possible_values = true)]
    radioisotope: Option<String>,
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let mut query = ListQuery::default()
        .filter_opt("facilityId", resolve::facility_id(ctx, a.facility).await?)
        .filter_opt("releasable", a.releasable.then_some("true"))
        .filter_opt("released", a.released.then_some("true"));
    if let Some(r) = a.radioisotope {
        query = query.filter(
            "radioisotope",
            isotope_arg(&r, "--radioisotope", "radioisotope")?.as_str(),
        );
    }
    view::print_list(ctx.format, &ctx.client.waste(&query).await?)
}
