//! `registry group create`.

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, name: Option<String>, description: Option<String>) -> Result<(), Fail> {
    let name = prompt::text_or_ask(name, ctx.interactive, "--name", "Group name")?;
    let g = ctx
        .client
        .register_group(&name, description.as_deref())
        .await?;
    output::note(format!("Created group {} ({})", g.name, g.id));
    view::show(ctx, &g)
}
