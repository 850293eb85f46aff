//! `registry document list`: newest first (one page, or all with --all).

use super::view;
use crate::cli::context::{Ctx, Fail, allowed_value};
use crate::cli::days::DayRange;
use crate::cli::offered;
use crate::cli::output::Paging;
use crate::cli::resolve;
use clap::Args;
use registry_client::ListQuery;
use registry_core::document::{Document, DocumentStatus};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// A status or its slug: "Falta assinar" / falta-assinar, assinado, liberado, corrigir, em-andamento.
    #[arg(long, value_parser = offered::document_statuses(), hide_possible_values = true)]
    status: Option<String>,
    /// Facility: _id, cnpj or exact name.
    #[arg(long)]
    facility: Option<String>,
    /// Equipment _id.
    #[arg(long)]
    equipment: Option<String>,
    /// QC test _id.
    #[arg(long)]
    test: Option<String>,
    #[command(flatten)]
    days: DayRange,
    /// Text in the name.
    #[arg(long)]
    q: Option<String>,
    #[command(flatten)]
    paging: Paging,
}

fn parse_status(s: &str) -> Result<DocumentStatus, String> {
    DocumentStatus::parse_loosely(s)
        .ok_or_else(|| format!("must be one of: {}", DocumentStatus::allowed()))
}

pub async fn run(ctx: &Ctx, a: ListArgs) -> Result<(), Fail> {
    // The flags' values are checked before the facility is looked up.
    let status = allowed_value("--status", a.status, parse_status)?;
    let filters = a
        .days
        .filters(ListQuery::default())?
        .filter_opt("status", status.map(|s| s.slug()))
        .filter_opt("facilityId", resolve::facility_id(ctx, a.facility).await?)
        .filter_opt("equipmentId", a.equipment)
        .filter_opt("testId", a.test)
        .filter_opt("q", a.q);
    let p = a.paging;
    let list: Vec<Document> = if p.all {
        ctx.client.all_pages("/documents", &filters).await?
    } else {
        let page = ctx.client.documents(&p.query(filters)).await?;
        p.note_more(&page.paging, page.list.len(), "documents");
        page.list
    };
    view::print_list(ctx.format, &list)
}
