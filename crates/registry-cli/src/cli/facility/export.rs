//! `registry facility export`: every facility (all pages) as CSV (the import format) or JSON.

use crate::cli::context::{Ctx, Fail, refuse_to_overwrite};
use crate::cli::output::{self, Format};
use clap::Args;
use registry_client::ListQuery;
use registry_client::facility_csv;
use registry_core::api::Facility;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// csv (the import format) or json (the API's records); default: json with `-o json`, else
    /// csv.
    #[arg(long, value_enum)]
    format: Option<ExportFormat>,
    /// Write here instead of stdout (`-`: stdout, as without it).
    #[arg(long)]
    file: Option<PathBuf>,
    /// Overwrite the --file when it exists.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
    Json,
}

/// `--format`, else what the global `-o` asks for (a table is no export format: csv). The two
/// disagreeing is a usage error.
fn export_format(given: Option<ExportFormat>, output: Format) -> Result<ExportFormat, Fail> {
    let implied = match output {
        Format::Json => Some(ExportFormat::Json),
        Format::Csv => Some(ExportFormat::Csv),
        Format::Table => None,
    };
    match (given, implied) {
        (Some(g), Some(i)) if g != i => Err(Fail::Usage(format!(
            "--format {} and -o {} disagree: give one of them",
            g.name(),
            i.name()
        ))),
        (Some(f), _) | (None, Some(f)) => Ok(f),
        (None, None) => Ok(ExportFormat::Csv),
    }
}

impl ExportFormat {
    fn name(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        }
    }
}

pub async fn run(ctx: &Ctx, a: ExportArgs) -> Result<(), Fail> {
    let format = export_format(a.format, ctx.format)?;
    // `-` is stdout, as for every file argument of the CLI.
    let file = a.file.filter(|path| path.as_os_str() != "-");
    if let Some(path) = &file {
        refuse_to_overwrite(path, a.force)?;
    }
    let bar = output::progress_bar(0, "facilities");
    let all: Vec<Facility> = ctx
        .client
        .all_pages_told("/facilities", &ListQuery::default(), |read, total| {
            bar.set_length(total as u64);
            bar.set_position(read as u64);
        })
        .await?;
    bar.finish_and_clear();
    let out: Box<dyn std::io::Write> = match &file {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(output::stdout()),
    };
    match format {
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
                facility_csv::write_safe_record(&mut w, &row).map_err(anyhow::Error::from)?;
            }
            w.flush()?;
            // A CSV row holds one address and no links: say which facilities lost some.
            if let Some(warning) = facility_csv::csv_loss_warning(&all, 20) {
                output::note(warning);
            }
        }
    }
    let n = all.len();
    output::note(format!(
        "Exported {n} {}.",
        if n == 1 { "facility" } else { "facilities" }
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{ExportFormat, export_format};
    use crate::cli::output::Format;

    #[test]
    fn the_global_output_picks_the_export_format_unless_told() {
        let pick = |given, output| export_format(given, output).ok();
        assert_eq!(pick(None, Format::Table), Some(ExportFormat::Csv));
        assert_eq!(pick(None, Format::Json), Some(ExportFormat::Json));
        assert_eq!(pick(None, Format::Csv), Some(ExportFormat::Csv));
        assert_eq!(
            pick(Some(ExportFormat::Json), Format::Table),
            Some(ExportFormat::Json)
        );
        assert_eq!(pick(Some(ExportFormat::Csv), Format::Json), None);
    }
}
