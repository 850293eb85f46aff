//! `registry document list`: newest first (one page, or all with --all).

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Paging};
use crate::cli::resolve;
use clap::Args;
use registry_client::{ListQuery, MAX_PAGE_SIZE};
use registry_core::document::{Document, DocumentStatus};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// A status or its slug: "Falta assinar" / falta-assinar, assinado, liberado, corrigir, em-andamento.
    #[arg(long, value_parser = parse_status)]
    status: Option<DocumentStatus>,
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// QC test _id.
    #[arg(long)]
    test: Option<String>,
    /// Dated from this day (YYYY-MM-DD).
    #[arg(long)]
    from: Option<String>,
    /// Dated before this day (YYYY-MM-DD).
    #[arg(long)]
    to: Option<String>,
    /// Text in the name.
    #[arg(long)]
    q: Option<String>,
    #[command(flatten)]
    paging: Paging,
}

fn parse_status(s: &str) -> Result<DocumentStatus, String> {
    DocumentStatus::parse_value_or_slug(s)
        .ok_or_else(|| format!("must be one of: {}", DocumentStatus::allowed()))
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    let filters = ListQuery::default()
        .filter_opt("status", a.status.map(|s| s.slug()))
        .filter_opt("facilityId", resolve::facility_id(ctx, a.facility).await?)
        .filter_opt("equipmentId", a.equipment)
        .filter_opt("testId", a.test)
        .filter_opt("dateGte", a.from)
        .filter_opt("dateLt", a.to)
        .filter_opt("q", a.q);
    let p = a.paging;
    let list: Vec<Document> = if p.all {
        ctx.client.all_pages("/documents", &filters).await?
    } else {
        let page = ctx
            .client
            .documents(&ListQuery {
                page_num: Some(p.page),
                page_size: Some(p.page_size.min(MAX_PAGE_SIZE)),
                ..filters
            })
            .await?;
        let shown = (i64::from(p.page) - 1) * page.paging.page_size + page.list.len() as i64;
        if shown < page.paging.total {
            output::note(format!(
                "{} of {} documents; next: --page {}, or --all",
                page.list.len(),
                page.paging.total,
                p.page + 1
            ));
        }
        page.list
    };
    view::print_list(ctx.format, &list)
}
