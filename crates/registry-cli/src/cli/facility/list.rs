//! `registry facility list`: one page of facilities, or all with --all.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format};
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;
use registry_core::Department;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Text in the name, company name, cnpj or city.
    #[arg(long)]
    q: Option<String>,
    #[arg(long, value_parser = parse_department)]
    department: Option<Department>,
    #[arg(long)]
    state: Option<String>,
    #[arg(long)]
    city: Option<String>,
    /// Group _id.
    #[arg(long)]
    group: Option<String>,
    /// e.g. "Tc(99m)".
    #[arg(long)]
    radioisotope: Option<String>,
    #[arg(long)]
    practice: Option<String>,
    /// Facilities a user (by _id or e-mail) is linked to.
    #[arg(long)]
    user: Option<String>,
    #[arg(long, default_value_t = 1)]
    page: u32,
    #[arg(long, default_value_t = 20)]
    page_size: u32,
    /// Every page.
    #[arg(long)]
    all: bool,
}

fn parse_department(s: &str) -> Result<Department, String> {
    Department::parse(s).ok_or_else(|| format!("must be one of: {}", Department::allowed()))
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let mut q = ListQuery {
        page_num: Some(a.page),
        page_size: Some(a.page_size),
        filters: Vec::new(),
    };
    for (key, value) in [
        ("q", a.q),
        ("department", a.department.map(|d| d.to_string())),
        ("state", a.state),
        ("city", a.city),
        ("group", a.group),
        ("radioisotope", a.radioisotope),
        ("practice", a.practice),
    ] {
        if let Some(v) = value {
            q = q.filter(key, v);
        }
    }
    if let Some(u) = a.user {
        q = q.filter("userId", resolve::user(ctx, &u).await?.id);
    }
    let facilities = if a.all {
        ctx.client.all_pages("/facilities", &q).await?
    } else {
        let page = ctx.client.facilities(&q).await?;
        if ctx.format == Format::Table && page.paging.total > page.list.len() as i64 {
            output::note(format!(
                "page {} of {} facilities ({} per page); --all lists every page",
                page.paging.page_num, page.paging.total, page.paging.page_size
            ));
        }
        page.list
    };
    view::print_list(ctx.format, &facilities)
}
