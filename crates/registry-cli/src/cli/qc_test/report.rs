//! `registry test report`: the one-page PDF report of a test (to upload as its document and
//! sign).

use crate::cli::context::{Ctx, Fail};
use crate::cli::output;

pub async fn run(
    ctx: &Ctx,
    test: &str,
    file: Option<std::path::PathBuf>,
    force: bool,
) -> Result<(), Fail> {
    let target = file.unwrap_or_else(|| format!("qc-test-{test}.pdf").into());
    let to_stdout = target.as_os_str() == "-";
    if !to_stdout && !force && target.exists() {
        return Err(Fail::Usage(format!(
            "{} exists: pass --force to overwrite it, or --file PATH",
            target.display()
        )));
    }
    let mut download = ctx.client.qc_test_report(test).await?;
    // A one-page report: small enough to hold whole.
    let mut pdf = Vec::new();
    while let Some(chunk) = download.chunk().await? {
        pdf.extend_from_slice(&chunk);
    }
    if to_stdout {
        use std::io::Write;
        let mut out = output::stdout();
        out.write_all(&pdf)?;
        out.flush()?;
    } else {
        std::fs::write(&target, &pdf)?;
        output::note(format!(
            "Saved the report to {} ({} bytes)",
            target.display(),
            pdf.len()
        ));
    }
    Ok(())
}
