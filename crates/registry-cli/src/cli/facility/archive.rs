//! `registry facility archive`: it leaves lists; the record and its history are kept.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{prompt, resolve};

pub async fn run(ctx: &Ctx, text: &str, yes: bool) -> Result<(), Fail> {
    let f = resolve::facility(ctx, text).await?;
    let question = format!("Archive {} ({}, {})?", f.name, f.cnpj, f.department);
    let what = format!("{} ({})", f.name, f.id);
    let archive = ctx.client.archive_facility(&f.id);
    prompt::confirm_and_send(ctx, yes, &question, "Not archived.", archive, &what).await
}
