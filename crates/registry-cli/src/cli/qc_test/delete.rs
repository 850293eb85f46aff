//! `registry test delete`: the record leaves the history and the due dates; the audit log keeps
//! it.

use crate::cli::context::{Ctx, Fail};
use crate::cli::{output, prompt};

pub async fn run(ctx: &Ctx, test: &str, yes: bool) -> Result<(), Fail> {
    let t = ctx.client.qc_test(test).await?;
    let question = format!(
        "Delete the {} of {} ({})?",
        t.type_of_test.name, t.date, t.conclusion
    );
    if !prompt::confirm_or_say(ctx.interactive, yes, &question, "Not deleted.")? {
        return Ok(());
    }
    let m = ctx.client.delete_test(&t.id).await?;
    output::note(format!(
        "{} {} of {}",
        m.message, t.type_of_test.name, t.date
    ));
    Ok(())
}
