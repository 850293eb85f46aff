//! `registry notices`: what needs the facilities' responsible people today — the items of the
//! daily digest, on demand.

use super::context::{Ctx, Fail, allowed_values, one_of};
use super::output;
use super::resolve;
use crate::cli::offered;
use clap::Args;
use registry_client::ListQuery;
use registry_core::notice::{Notice, NoticeKind};

const COLUMNS: &[output::Column<Notice>] = &[
    ("facility", |n| n.facility.name.clone()),
    ("kind", |n| n.kind.as_str().to_owned()),
    ("date", |n| n.date.clone()),
    ("subject", |n| n.subject.clone()),
    ("equipment", |n| {
        n.equipment
            .as_ref()
            .map(|e| e.name.clone())
            .unwrap_or_default()
    }),
];

#[derive(Debug, Args)]
pub struct NoticesArgs {
    /// Only this facility (_id, cnpj or exact name).
    #[arg(long)]
    facility: Option<String>,
    /// qc_overdue, qc_due_soon, licence_expiring, document_expiring, waste_releasable,
    /// quantity_exceeded (repeat or comma-separate).
    #[arg(long, value_delimiter = ',', value_parser = offered::notice_kinds(), hide_possible_values = true)]
    kind: Vec<String>,
}

fn parse_kind(s: &str) -> Result<NoticeKind, String> {
    one_of(s, NoticeKind::ALL, NoticeKind::as_str)
}

pub async fn run(ctx: &Ctx, a: NoticesArgs) -> Result<(), Fail> {
    let kind = allowed_values("--kind", a.kind, parse_kind)?;
    let mut query =
        ListQuery::default().filter_opt("facilityId", resolve::facility_id(ctx, a.facility).await?);
    if !kind.is_empty() {
        let kinds: Vec<&str> = kind.iter().map(|k| k.as_str()).collect();
        query = query.filter("kind", kinds.join(","));
    }
    let list = ctx.client.notices(&query).await?;
    output::print_table(ctx.format, &list, COLUMNS)?;
    Ok(())
}
