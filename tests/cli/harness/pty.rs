//! Conversations with `registry` at a pseudo-terminal: starting it, answering its prompts as
//! they show (never after a fixed pause), and reading how it ends.

use crate::common::PASSWORD;
use rexpect::session::PtySession;

/// How long a read at a pseudo-terminal waits for what it expects.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Starts `cmd` (from `Env::at_terminal`) at a pseudo-terminal whose reads give up after
/// [`TIMEOUT`].
pub fn spawn(cmd: std::process::Command) -> Result<PtySession, rexpect::error::Error> {
    rexpect::session::spawn_command(cmd, Some(TIMEOUT.as_millis() as u64))
}

/// Runs `talk`, a dialogue at pseudo-terminals (rexpect blocks), on a blocking thread; if it
/// fails, so does the test, naming `what`.
pub async fn dialogue<T: Send + 'static>(
    what: &str,
    talk: impl FnOnce() -> Result<T, rexpect::error::Error> + Send + 'static,
) -> T {
    tokio::task::spawn_blocking(talk)
        .await
        .expect("the session thread")
        .expect(what)
}

/// Answers a text prompt at a pseudo-terminal: reads the output until `prompt` shows (failing
/// after the session's timeout), then types `line` and Enter.
pub fn reply(p: &mut PtySession, prompt: &str, line: &str) -> Result<(), rexpect::error::Error> {
    p.exp_string(prompt)?;
    p.send_line(line)?;
    Ok(())
}

/// Answers a prompt at a pseudo-terminal: reads the output until `prompt` shows (failing after
/// the session's timeout), then types `keys`. Keys typed before a select or confirm prompt has
/// switched the terminal to raw mode wait in the terminal's input queue (the switch drains
/// output, it does not flush input), so no pause is needed.
pub fn answer(p: &mut PtySession, prompt: &str, keys: &str) -> Result<(), rexpect::error::Error> {
    p.exp_string(prompt)?;
    p.send(keys)?;
    p.flush()
}

/// Starts `cmd` (from `Env::at_terminal`) at a pseudo-terminal and answers each of `steps`,
/// `(prompt, keys)`, in turn as [`answer`] does (`\r` is Enter), then reads until `end` shows
/// and the program ends.
pub fn converse(
    cmd: std::process::Command,
    steps: &[(&str, &str)],
    end: &str,
) -> Result<(), rexpect::error::Error> {
    let mut p = answering(cmd, steps)?;
    ends_saying(&mut p, end)
}

/// Starts `cmd` (from `Env::at_terminal`) at a pseudo-terminal and answers each of `steps` in
/// turn as [`answer`] does; the session is left for the caller to go on with.
pub fn answering(
    cmd: std::process::Command,
    steps: &[(&str, &str)],
) -> Result<PtySession, rexpect::error::Error> {
    let mut p = spawn(cmd)?;
    for (prompt, keys) in steps {
        answer(&mut p, prompt, keys)?;
    }
    Ok(p)
}

/// Starts `facility edit` (`cmd`) of a facility registered by `Env::facility` at a
/// pseudo-terminal and keeps every stored value up to the question "Link a user", which is
/// left for the caller to answer.
pub fn keep_fields_up_to_links(
    cmd: std::process::Command,
) -> Result<PtySession, rexpect::error::Error> {
    let mut p = spawn(cmd)?;
    for prompt in ["Name", "Company name", "CNPJ", "Telephone"] {
        reply(&mut p, prompt, "")?;
    }
    answer(&mut p, "Department", "\r")?;
    for prompt in [
        "Street",
        "Complement",
        "City",
        "State",
        "CEP",
        "CNEN registry",
    ] {
        reply(&mut p, prompt, "")?;
    }
    answer(&mut p, "Authorised practices", "\r")?;
    answer(&mut p, "Authorised radioisotopes", "\r")?;
    // The two radioisotopes `facility_flags` gives.
    reply(&mut p, "mCi per week", "")?;
    reply(&mut p, "mCi per week", "")?;
    Ok(p)
}

/// Ends the facility wizard: answers no to "Link a user", then reads until it says it registered
/// facility `name` and the program ends.
pub fn registers_unlinked(p: &mut PtySession, name: &str) -> Result<(), rexpect::error::Error> {
    answer(p, "Link a user", "n\r")?;
    ends_saying(p, &format!("Registered facility {name}"))
}

/// Ends the user wizard: types `PASSWORD` when `prompt` shows and again at "Repeat it", then reads until it says it created user `name` and the program ends.
pub fn creates_user(
    p: &mut PtySession,
    prompt: &str,
    name: &str,
) -> Result<(), rexpect::error::Error> {
    reply(p, prompt, PASSWORD)?;
    reply(p, "Repeat it", PASSWORD)?;
    ends_saying(p, &format!("Created {name}"))
}

/// Reads the output at a pseudo-terminal until `text` shows, then until the program ends.
pub fn ends_saying(p: &mut PtySession, text: &str) -> Result<(), rexpect::error::Error> {
    p.exp_string(text)?;
    p.exp_eof()?;
    Ok(())
}
