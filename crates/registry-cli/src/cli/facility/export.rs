//! `registry facility export`: every facility (all pages) as CSV (the import format) or JSON.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output;
use clap::Args;
use registry_client::ListQuery;
use registry_client::facility_csv;
use registry_core::api::Facility;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// csv (the import format) or json (the API's records).
    #[arg(long, value_enum, default_value = "csv")]
    format: ExportFormat,
    /// Write here instead of stdout.
    #[arg(long)]
    file: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
    Json,
}

pub async fn run(ctx: &Ctx, a: ExportArgs) -> Result<(), Fail> {
    let bar = output::progress_bar(0, "pages");
    let mut all: Vec<Facility> = Vec::new();
    let mut page = 1;
    loop {
        let q = ListQuery {
            page_num: Some(page),
            page_size: Some(registry_client::MAX_PAGE_SIZE),
            filters: Vec::new(),
        };
        let env = ctx.client.facilities(&q).await?;
        bar.set_length(env.paging.total as u64);
        let got = env.list.len();
        all.extend(env.list);
        bar.set_position(all.len() as u64);
        if got == 0 || all.len() as i64 >= env.paging.total {
            break;
        }
        page += 1;
    }
    bar.finish_and_clear();
    let out: Box<dyn std::io::Write> = match &a.file {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(output::stdout()),
    };
    match a.format {
        ExportFormat::Json => {
            let mut out = out;
            serde_json::to_writer_pretty(&mut out, &all).map_err(anyhow::Error::from)?;
            writeln!(out)?;
        }
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header = vec!["_id"];
            header.extend_from_slice(facility_csv::COLUMNS);
            w.write_record(&header).map_err(anyhow::Error::from)?;
            for f in &all {
                let mut row = vec![f.id.clone()];
                row.extend(facility_csv::row_from_facility(f));
                w.write_record(&row).map_err(anyhow::Error::from)?;
            }
            w.flush()?;
        }
    }
    let n = all.len();
    output::note(format!(
        "Exported {n} {}.",
        if n == 1 { "facility" } else { "facilities" }
    ));
    Ok(())
}
