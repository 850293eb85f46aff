//! `registry test due`: what falls due, on one equipment or across the facilities you can read.

use super::view;
use crate::cli::context::{Ctx, Fail, allowed_values, one_of};
use crate::cli::offered;
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;
use registry_core::equipment::DueState;

#[derive(Debug, Args)]
pub struct DueArgs {
    /// Every test type of this equipment (_id), in any state unless --state is given.
    #[arg(long)]
    equipment: Option<String>,
    /// ok, due_soon, overdue, never_done (repeat or comma-separate); across facilities the
    /// default is what needs attention (due_soon, overdue, never_done).
    #[arg(long, value_delimiter = ',', value_parser = offered::due_states(), hide_possible_values = true)]
    state: Vec<String>,
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long, conflicts_with = "equipment")]
    facility: Option<String>,
    /// Only this equipment type (_id or name).
    #[arg(long = "type", conflicts_with = "equipment")]
    equipment_type: Option<String>,
    /// Only test types whose latest test is Insatisfatório (in any state unless --state is given).
    #[arg(long)]
    failing: bool,
}

fn parse_state(s: &str) -> Result<DueState, String> {
    one_of(s, DueState::ALL, DueState::as_str)
}

pub async fn run(ctx: &Ctx, a: DueArgs) -> Result<(), Fail> {
    let state = allowed_values("--state", a.state, parse_state)?;
    let mut query = ListQuery::default();
    if !state.is_empty() {
        let states: Vec<&str> = state.iter().map(|s| s.as_str()).collect();
        query = query.filter("state", states.join(","));
    }
    if a.failing {
        query = query.filter("failing", "true");
    }
    let list = match a.equipment {
        Some(id) => ctx.client.equipment_due(&id, &query).await?,
        None => {
            query = query.filter_opt("facilityId", resolve::facility_id(ctx, a.facility).await?);
            if let Some(t) = a.equipment_type {
                query = query.filter(
                    "typeOfEquipment",
                    resolve::equipment_type(ctx, &t).await?.id,
                );
            }
            ctx.client.tests_due(&query).await?
        }
    };
    view::print_due(ctx.format, &list)
}
