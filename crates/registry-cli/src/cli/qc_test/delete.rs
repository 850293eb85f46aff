//! `registry test delete`: the record leaves the history and the due dates; the audit log keeps
//! it.

use crate::cli::context::{Ctx, Fail};
use crate::cli::prompt;

pub async fn run(ctx: &Ctx, test: &str, yes: bool) -> Result<(), Fail> {
    let t = ctx.client.qc_test(test).await?;
    let question = format!(
        "Delete the {} of {} ({})?",
        t.type_of_test.name, t.date, t.conclusion
    );
    let what = format!("{} of {}", t.type_of_test.name, t.date);
    let delete = ctx.client.delete_test(&t.id);
    prompt::confirm_and_send(ctx, yes, &question, "Not deleted.", delete, &what).await
}
