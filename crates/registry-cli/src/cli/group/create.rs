//! `registry group create`.

use super::{GroupFields, view};
use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, fields: GroupFields) -> Result<(), Fail> {
    let name = prompt::text(ctx, fields.name, "--name", "Group name")?;
    let g = ctx
        .client
        .register_group(&name, fields.description.as_deref())
        .await?;
    output::note(format!("Created group {} ({})", g.name, g.id));
    view::show(ctx, &g)
}
