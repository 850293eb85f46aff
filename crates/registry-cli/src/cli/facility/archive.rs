//! `registry facility archive`: it leaves lists; the record and its history are kept.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format};
use crate::cli::{prompt, resolve};

pub async fn run(ctx: &Ctx, text: &str, yes: bool) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    if !prompt::confirm_or_say(
        ctx.interactive,
        yes,
        &format!("Archive {} ({}, {})?", f.name, f.cnpj, f.department),
        "Not archived.",
    )? {
        return Ok(());
    }
    let m = ctx.client.archive_facility(&f.id).await?;
    output::note(format!("{} {} ({})", m.message, f.name, f.id));
    if ctx.format == Format::Json {
        output::print_json(&m)?;
    }
    Ok(())
}
