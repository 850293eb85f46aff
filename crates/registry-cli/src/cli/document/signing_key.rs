//! `registry document signing-key`: the server's public key that signatures are checked with.

use crate::cli::context::{Ctx, Fail};
use crate::cli::output::{self, Format};

pub async fn run(ctx: &Ctx) -> Result<(), Fail> {
    let k = ctx.client.signing_key().await?;
    match ctx.format {
        Format::Table => output::print_line(&k.public_key)?,
        format => output::print_record(
            format,
            &k,
            vec![
                ("algorithm", k.algorithm.clone()),
                ("publicKey", k.public_key.clone()),
            ],
        )?,
    }
    Ok(())
}
