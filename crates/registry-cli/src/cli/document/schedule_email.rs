//! `registry document schedule-email`: e-mail a released document (default: now, to the
//! facility's active users).

use super::view;
use crate::cli::context::{Ctx, Fail};
use crate::cli::output;
use registry_client::ClientError;

pub async fn run(ctx: &Ctx, document: &str, to: &[String], at: Option<&str>) -> Result<(), Fail> {
    let d = match ctx.client.schedule_document_email(document, at, to).await {
        // The server names the API's fields (`sendAt`, `to[0]`): shown as the flags instead,
        // while the `-o json` envelope keeps the API's.
        Err(ClientError::Validation(body)) => {
            let mut shown = body.errors.clone().unwrap_or_default();
            for e in &mut shown {
                e.field = flag_of(&e.field, to);
            }
            let refused = Box::new(ClientError::Validation(body).into());
            return Err(Fail::Relabelled(refused, shown));
        }
        answer => answer?,
    };
    if let Some(s) = &d.scheduled_email {
        output::note(format!(
            "E-mail of {} scheduled for {} to {}",
            d.name,
            output::brasilia(&s.send_at),
            s.to.join(", ")
        ));
    }
    view::show(ctx.format, &d)
}

/// The flag that gave the API's `field`: `sendAt` → `--at`, `to[1]` → ``--to `the second` ``.
fn flag_of(field: &str, to: &[String]) -> String {
    if field == "sendAt" {
        return "--at".into();
    }
    let Some(rest) = field.strip_prefix("to") else {
        return field.to_owned();
    };
    let given = rest
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|i| i.parse::<usize>().ok())
        .and_then(|i| to.get(i));
    match given {
        Some(value) => format!("--to `{value}`"),
        None if rest.is_empty() => "--to".into(),
        None => field.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::flag_of;

    #[test]
    fn errors_name_the_flags() {
        let to = vec!["fisica@example.com".to_owned(), "x".to_owned()];
        assert_eq!(flag_of("sendAt", &to), "--at");
        assert_eq!(flag_of("to[1]", &to), "--to `x`");
        assert_eq!(flag_of("to", &to), "--to");
        assert_eq!(flag_of("_id", &to), "_id");
    }
}
