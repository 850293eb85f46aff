//! `registry document schedule-email`: e-mail a released document (default: now, to the
//! facility's active users).

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output;

pub async fn run(ctx: &Ctx, document: &str, to: &[String], at: Option<&str>) -> Result<(), Fail> {
    let d = ctx.client.schedule_document_email(document, at, to).await?;
    if let Some(s) = &d.scheduled_email {
        output::note(format!(
            "E-mail of {} scheduled for {} to {}",
            d.name,
            s.send_at,
            s.to.join(", ")
        ));
    }
    view::show(ctx.format, &d)
}
