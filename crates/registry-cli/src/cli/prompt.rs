//! Prompts for what flags did not give: only when a person is at the terminal, else a usage error
//! naming the flag.

use super::context::{Ctx, Fail};
use super::{line, output, rules};
use dialoguer::console::{Term, truncate_str};
use dialoguer::{Confirm, FuzzySelect, MultiSelect, Select};
use registry_client::ClientError;
use registry_core::api::Message;
use std::io::{BufRead, IsTerminal};

pub use super::line::{Check, theme};

/// The given value, else a prompt at the terminal of `ctx`, else a usage error naming `flag`.
pub fn text(ctx: &Ctx, given: Option<String>, flag: &str, label: &str) -> Result<String, Fail> {
    checked(given, ctx.interactive, flag, label, None, None)
}

/// [`text`] with a prompt that offers `default`.
pub fn text_or_default(
    ctx: &Ctx,
    given: Option<String>,
    flag: &str,
    label: &str,
    default: &str,
) -> Result<String, Fail> {
    checked(given, ctx.interactive, flag, label, Some(default), None)
}

/// The given value, else a prompt (offering `default`), else a usage error naming `flag`; with
/// `check`, a typed answer is asked again until it passes, and at a terminal a given value that
/// does not pass is asked for at once (before any later question), with the reason and the value
/// given as the text to correct. Without a terminal the value goes on as given, to be refused
/// with the other fields (exit 4).
pub fn checked(
    given: Option<String>,
    interactive: bool,
    flag: &str,
    label: &str,
    default: Option<&str>,
    check: Option<Check>,
) -> Result<String, Fail> {
    match (given, check) {
        (Some(v), Some(check)) if interactive => match check(v.trim()) {
            Ok(()) => Ok(v),
            Err(reason) => {
                output::note(format!("{flag} `{v}`: {reason}"));
                ask(label, None, Some(&v), Some(check))
            }
        },
        (Some(v), _) => Ok(v),
        (None, check) if interactive => ask(label, default, None, check),
        (None, _) => Err(missing(flag)),
    }
}

/// A line typed at the terminal, checked by `check` (asked again with the reason until it
/// passes); trimmed.
pub fn input_checked(label: &str, check: Check) -> Result<String, Fail> {
    ask(label, None, None, Some(check))
}

/// A line typed at the terminal with `initial` as the text to keep or change (the stored value
/// in an edit wizard), checked by `check`; trimmed.
pub fn edit_text(label: &str, initial: &str, check: Check) -> Result<String, Fail> {
    ask(label, None, Some(initial), Some(check))
}

fn ask(
    label: &str,
    default: Option<&str>,
    initial: Option<&str>,
    check: Option<Check>,
) -> Result<String, Fail> {
    let answer = line::read(line::Question {
        label,
        default,
        initial: initial.unwrap_or_default(),
        check,
        allow_empty: false,
    })?;
    Ok(match check {
        Some(_) => answer.trim().to_owned(),
        None => answer,
    })
}

pub fn missing(flag: &str) -> Fail {
    missing_all(&[flag])
}

/// A usage error naming every missing flag at once (`--a, --b and --c are required`).
pub fn missing_all(flags: &[&str]) -> Fail {
    let named = match flags {
        [] => "a value".to_owned(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let verb = if flags.len() > 1 { "are" } else { "is" };
    Fail::Usage(format!(
        "{named} {verb} required (no prompt without a terminal or with --no-input)"
    ))
}

/// Without a terminal (or with `--no-input`), every flag of `flags` (`(flag, given)`) that is
/// missing is named at once (exit 2), before anything is looked up or sent, so that one run
/// tells everything a script lacks; at a terminal the prompts ask for them.
pub fn require(interactive: bool, flags: &[(&str, bool)]) -> Result<(), Fail> {
    let missing: Vec<&str> = flags
        .iter()
        .filter(|(_, given)| !given)
        .map(|(flag, _)| *flag)
        .collect();
    if interactive || missing.is_empty() {
        Ok(())
    } else {
        Err(missing_all(&missing))
    }
}

/// Whether a password prompt asks for one the account has, or a new one.
#[derive(Clone, Copy, PartialEq)]
pub enum PasswordKind {
    Existing,
    /// Typed twice, and asked again with the reason until it is strong enough (one from stdin is
    /// checked by the server with the other fields).
    New,
}

/// A password: one line of stdin with `--password-stdin`, else a hidden prompt.
pub fn password(
    from_stdin: bool,
    interactive: bool,
    label: &str,
    kind: PasswordKind,
) -> Result<String, Fail> {
    if from_stdin {
        // Typed at a terminal, it is not shown (as at the prompt); a pipe's line is read as is.
        if std::io::stdin().is_terminal() && dialoguer::console::Term::stderr().is_term() {
            return line::secret(label, &|_| Ok(()));
        }
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        let p = line.trim_end_matches(['\n', '\r']).to_owned();
        if p.is_empty() {
            return Err(Fail::Usage(
                "--password-stdin: stdin gave no password".into(),
            ));
        }
        return Ok(p);
    }
    if !interactive {
        return Err(missing("--password-stdin"));
    }
    if kind == PasswordKind::Existing {
        return line::secret(label, &|_| Ok(()));
    }
    // A new one: strong enough, then typed again; two that differ start over.
    loop {
        let first = line::secret(label, &rules::password)?;
        if line::secret("Repeat it", &|_| Ok(()))? == first {
            return Ok(first);
        }
        output::note("The two entries differ: type the password again.");
    }
}

/// The "New password" of a password change or reset: [`password`] of [`PasswordKind::New`].
pub fn new_password(from_stdin: bool, interactive: bool) -> Result<String, Fail> {
    password(from_stdin, interactive, "New password", PasswordKind::New)
}

/// `--yes`, of every command that asks before it archives, deletes or deactivates.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Confirmation {
    /// Do not ask for confirmation.
    #[arg(long, short)]
    pub yes: bool,
}

pub fn confirm(interactive: bool, yes: bool, question: &str) -> Result<bool, Fail> {
    confirm_default(interactive, yes, question, false)
}

/// [`confirm`] whose Enter answers `default`: no for what cannot be undone (archive, delete),
/// yes where the person has just typed what is to be saved (a test's readings).
pub fn confirm_default(
    interactive: bool,
    yes: bool,
    question: &str,
    default: bool,
) -> Result<bool, Fail> {
    if yes {
        return Ok(true);
    }
    if !interactive {
        return Err(missing("--yes"));
    }
    yes_no(question, default)
}

/// A yes/no question at the terminal whose Enter answers `default`. A `y` or `n` is taken only
/// with the Enter after it (it can be changed until then), so that the Enter typed after a key
/// never falls through to the next question (a pick list would take it as its first entry).
pub fn yes_no(question: &str, default: bool) -> Result<bool, Fail> {
    Ok(Confirm::with_theme(&theme())
        .with_prompt(question)
        .default(default)
        .wait_for_newline(true)
        .interact()?)
}

/// `confirm`, saying `declined` (e.g. "Not deleted.") when the answer is no.
pub fn confirm_or_say(
    interactive: bool,
    yes: bool,
    question: &str,
    declined: &str,
) -> Result<bool, Fail> {
    let confirmed = confirm(interactive, yes, question)?;
    if !confirmed {
        output::note(declined);
    }
    Ok(confirmed)
}

/// The flow of an archive or delete command: ask `question` (not with `--yes`), then send
/// `request` and note the server's message and `what`; with `-o json` the server's
/// answer is printed too, whichever the command. `request` is a future not yet awaited, so
/// nothing is sent when the answer is no.
pub async fn confirm_and_send(
    ctx: &Ctx,
    yes: bool,
    question: &str,
    declined: &str,
    request: impl Future<Output = Result<Message, ClientError>>,
    what: &str,
) -> Result<(), Fail> {
    if !confirm_or_say(ctx.interactive, yes, question, declined)? {
        return Ok(());
    }
    let m = request.await?;
    // "Group deleted: Rede Sul" (the server's sentence without its full stop, then the record).
    output::note(format!("{}: {what}", m.message.trim_end_matches('.')));
    if ctx.format == output::Format::Json {
        output::print_json(&m)?;
    }
    Ok(())
}

/// How many entries a pick list (`Select`, `FuzzySelect`, `MultiSelect`) shows at once: what
/// fits the terminal, so a list longer than the screen pages instead of leaving a copy of itself
/// at every keystroke. Prompts are drawn on stderr.
pub fn list_rows() -> usize {
    rows_fitting(Term::stderr().size().0)
}

/// The entries of a list on a terminal of `rows` rows: the prompt line, the page marker and a
/// margin left free, and never fewer than 5.
fn rows_fitting(rows: u16) -> usize {
    usize::from(rows).saturating_sub(4).max(5)
}

/// The labels of a pick list cut to the terminal's width, so that none wraps (a wrapped line
/// breaks the list's redraw).
pub fn fit_labels<S: AsRef<str>>(items: &[S]) -> Vec<String> {
    labels_fitting(items, Term::stderr().size().1)
}

/// `items` cut with `…` to a terminal of `columns` columns, less the list's marks (`> [x] `).
fn labels_fitting<S: AsRef<str>>(items: &[S], columns: u16) -> Vec<String> {
    let width = usize::from(columns).saturating_sub(8).max(12);
    items
        .iter()
        .map(|item| truncate_str(item.as_ref(), width, "…").into_owned())
        .collect()
}

/// A fuzzy pick among `items` (typing filters by any part of the label).
pub fn fuzzy_pick(label: &str, items: &[String]) -> Result<usize, Fail> {
    fuzzy_pick_from(label, items, 0)
}

/// A pick list of kind `$kind` (`Select`, `FuzzySelect`) among `$items`, as tall and as wide as
/// the terminal allows, starting at `$default`: the index picked.
macro_rules! pick {
    ($kind:ident, $label:expr, $items:expr, $default:expr) => {
        Ok($kind::with_theme(&theme())
            .with_prompt($label)
            .max_length(list_rows())
            .items(fit_labels($items))
            .default($default)
            .interact()?)
    };
}

/// [`fuzzy_pick`] starting at `default` (the stored value in an edit wizard).
pub fn fuzzy_pick_from(label: &str, items: &[String], default: usize) -> Result<usize, Fail> {
    pick!(FuzzySelect, label, items, default)
}

/// A free-text answer that may be left empty (`None`), offered `initial` as the text to keep or
/// change; with `check`, an answer that is not empty is asked again until it passes. Only called
/// at a terminal; trimmed.
pub fn optional_text(
    label: &str,
    initial: &str,
    check: Option<Check>,
) -> Result<Option<String>, Fail> {
    let answer = line::read(line::Question {
        label,
        default: None,
        initial,
        check,
        allow_empty: true,
    })?;
    Ok(Some(answer.trim().to_owned()).filter(|a| !a.is_empty()))
}

/// A pick among `items` (arrows to move, enter to take), starting at `default`.
pub fn select<S: AsRef<str>>(label: &str, items: &[S], default: usize) -> Result<usize, Fail> {
    pick!(Select, label, items, default)
}

/// The items of `items` marked in a multiple pick (space to mark, enter to go on), those at
/// `marked` marked at the start.
pub fn multi_select<S: AsRef<str>>(
    label: &str,
    items: &[S],
    marked: &[bool],
) -> Result<Vec<usize>, Fail> {
    Ok(MultiSelect::with_theme(&theme())
        .with_prompt(format!("{label} (space to mark, enter to go on)"))
        .max_length(list_rows())
        .items(fit_labels(items))
        .defaults(marked)
        .interact()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pick_list_fits_the_terminal() {
        assert_eq!(rows_fitting(30), 26);
        assert_eq!(rows_fitting(6), 5);
        assert_eq!(rows_fitting(0), 5);
        let long = "Hospital São João — Diagnóstico Ação — Radiodiagnóstico (55566677000183)";
        let cut = labels_fitting(&[long, "Curto"], 60);
        assert!(console_width(&cut[0]) <= 52, "{}", cut[0]);
        assert!(cut[0].ends_with('…') && cut[0].starts_with("Hospital São João"));
        assert_eq!(cut[1], "Curto");
    }

    fn console_width(text: &str) -> usize {
        dialoguer::console::measure_text_width(text)
    }
}
