//! `registry facility list`: one page of facilities, or all with --all.

use super::view;
use crate::cli::context::{Ctx, Fail, allowed_value};
use crate::cli::material::args::parse_isotope;
use crate::cli::offered;
use crate::cli::output::Paging;
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;
use registry_core::{Department, Practice};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Text in the name, company name, cnpj or city.
    #[arg(long)]
    q: Option<String>,
    /// "Medicina Nuclear" or "Radiodiagnóstico".
    #[arg(long, value_parser = offered::departments(), hide_possible_values = true)]
    department: Option<String>,
    /// State, abbreviation or full name (e.g. PE).
    #[arg(long, value_parser = offered::states(), hide_possible_values = true)]
    state: Option<String>,
    /// City.
    #[arg(long)]
    city: Option<String>,
    /// The group: _id or exact name.
    #[arg(long)]
    group: Option<String>,
    /// An authorised radioisotope, e.g. "Tc(99m)" (or Tc-99m); one of the spec's 15.
    #[arg(long, value_parser = offered::radioisotopes(), hide_possible_values = true)]
    radioisotope: Option<String>,
    /// An authorised practice: "Terapia com Internação", "Terapia Ambulatorial" or "Diagnóstico".
    #[arg(long, value_parser = offered::practices(), hide_possible_values = true)]
    practice: Option<String>,
    /// Facilities a user (by _id or e-mail) is linked to.
    #[arg(long)]
    user: Option<String>,
    #[command(flatten)]
    paging: Paging,
}

fn parse_department(s: &str) -> Result<Department, String> {
    Department::parse_loosely(s).ok_or_else(|| format!("must be one of: {}", Department::allowed()))
}

fn parse_practice(s: &str) -> Result<Practice, String> {
    Practice::parse_loosely(s).ok_or_else(|| format!("must be one of: {}", Practice::allowed()))
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let department = allowed_value("--department", a.department, parse_department)?;
    let radioisotope = allowed_value("--radioisotope", a.radioisotope, parse_isotope)?;
    let practice = allowed_value("--practice", a.practice, parse_practice)?;
    let group = match &a.group {
        Some(g) => Some(resolve::group(ctx, g).await?.id),
        None => None,
    };
    let mut q = ListQuery::default()
        .filter_opt("q", a.q)
        .filter_opt("department", department.map(|d| d.to_string()))
        .filter_opt("state", a.state)
        .filter_opt("city", a.city)
        .filter_opt("group", group)
        .filter_opt("radioisotope", radioisotope.map(|r| r.to_string()))
        .filter_opt("practice", practice.map(|p| p.to_string()));
    if let Some(u) = a.user {
        q = q.filter("userId", resolve::user(ctx, &u).await?.id);
    }
    let facilities = if a.paging.all {
        ctx.client.all_pages("/facilities", &q).await?
    } else {
        let page = ctx.client.facilities(&a.paging.query(q)).await?;
        a.paging
            .note_more(&page.paging, page.list.len(), "facilities");
        page.list
    };
    view::print_list(ctx.format, &facilities)
}
