//! `registry equipment list`: a facility's equipment (picked from a list at the terminal when
//! --facility is missing).

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Equipment type: _id or name.
    #[arg(long = "type")]
    equipment_type: Option<String>,
    /// Only in service (true) or out of service (false).
    #[arg(long)]
    active: Option<bool>,
    /// Text in the manufacturer, model, serial or patrimonial number, or localization.
    #[arg(long)]
    q: Option<String>,
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let f = resolve::facility_or_pick(ctx, a.facility, "--facility").await?;
    let mut query = ListQuery::default();
    if let Some(t) = a.equipment_type {
        query = query.filter(
            "typeOfEquipment",
            resolve::equipment_type(ctx, &t).await?.id,
        );
    }
    query = query
        .filter_opt("active", a.active.map(|active| active.to_string()))
        .filter_opt("q", a.q);
    let list = ctx.client.all_facility_equipment(&f.id, &query).await?;
    view::print_list(ctx.format, &list)
}
