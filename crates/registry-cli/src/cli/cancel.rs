//! Ctrl-C (at a prompt or anywhere else at a terminal) cancels the command: "Cancelled." on
//! stderr, the terminal's settings as they were when the command started (a password prompt
//! turns echo off), the cursor shown, and exit code [`CANCELLED`] (docs/cli.md, exit codes).
//! Nothing half-done is sent: a prompt's answers go to the server only after the last one.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Mutex, Once};

/// The exit code of a cancelled command: 128 + SIGINT, as shells report an interrupted one.
pub const CANCELLED: u8 = 130;

/// "Cancelled." on stderr, once: the prompt's thread (which sees the key) and the watching one
/// (which sees the signal) may both come here. The second waits until the first has written
/// it, since either may end the process as soon as this returns.
pub fn say() {
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        eprintln!("\nCancelled.");
        if let Some(report) = REPORT.lock().ok().as_deref().and_then(Option::as_ref) {
            eprintln!("{}", report());
        }
    });
}

/// What long work already did, said after "Cancelled." (an import's rows registered so far).
type Report = Box<dyn Fn() -> String + Send + Sync>;
static REPORT: Mutex<Option<Report>> = Mutex::new(None);

/// Has a cancellation from now on also say `report()`: what was done before it.
pub fn report(report: impl Fn() -> String + Send + Sync + 'static) {
    if let Ok(mut slot) = REPORT.lock() {
        *slot = Some(Box::new(report));
    }
}

/// The `-o json` envelope of a cancelled command (`Fail::Cancelled`'s).
pub fn envelope() -> registry_core::ErrorBody {
    registry_core::ErrorBody {
        message: "Cancelled.".into(),
        code: "cancelled".into(),
        errors: None,
        id: None,
    }
}

/// Files a cancellation removes: what a command writes before it is whole (a download's
/// `.part`).
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Has a cancellation from now on remove `path`, until [`finished`] says it is whole (or gone).
pub fn unfinished(path: PathBuf) {
    if let Ok(mut files) = UNFINISHED.lock() {
        files.push(path);
    }
}

/// `path` is no longer for a cancellation to remove.
pub fn finished(path: &std::path::Path) {
    if let Ok(mut files) = UNFINISHED.lock() {
        files.retain(|p| p != path);
    }
}

/// The terminal's settings when the command started (a password prompt turns echo off).
#[cfg(unix)]
static SAVED: std::sync::OnceLock<rustix::termios::Termios> = std::sync::OnceLock::new();

/// Ends a cancelled command, whichever thread saw the cancellation (the watching one the signal,
/// the prompt's the key; both may): the terminal as it was and its cursor shown, the unfinished
/// files removed, "Cancelled." and, with `json`, the `cancelled` envelope on stdout once, unless
/// the command printed its outcome already; then exit code [`CANCELLED`]. A second caller waits
/// here until the first has ended the process.
pub fn finish(json: bool) -> ! {
    static FINISHING: Mutex<()> = Mutex::new(());
    let _first = FINISHING.lock();
    #[cfg(unix)]
    if let Some(saved) = SAVED.get() {
        let _ = rustix::termios::tcsetattr(
            std::io::stdin(),
            rustix::termios::OptionalActions::Now,
            saved,
        );
    }
    let _ = dialoguer::console::Term::stderr().show_cursor();
    if let Ok(files) = UNFINISHED.lock() {
        for file in files.iter() {
            let _ = std::fs::remove_file(file);
        }
    }
    say();
    if json && !super::output::stdout_written() {
        let _ = super::output::print_json(&envelope());
    }
    let _ = std::io::stdout().flush();
    std::process::exit(CANCELLED.into());
}

/// When stdin is a terminal (a prompt may be shown), watches for Ctrl-C on a thread of its own,
/// since the command's thread is blocked in the prompt's read, and then [`finish`]es. The handler
/// is in place before this returns, so a Ctrl-C at the very first prompt is caught too.
pub fn watch(json: bool) {
    if !std::io::stdin().is_terminal() {
        return;
    }
    #[cfg(unix)]
    if let Ok(saved) = rustix::termios::tcgetattr(std::io::stdin()) {
        let _ = SAVED.set(saved);
    }
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
    else {
        return;
    };
    // Registered here, not when the thread first polls: until then Ctrl-C would end the
    // command without a word.
    #[cfg(unix)]
    let Ok(mut interrupts) = ({
        let _inside = runtime.enter();
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
    }) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("ctrl-c".into())
        .spawn(move || {
            #[cfg(unix)]
            if runtime.block_on(interrupts.recv()).is_none() {
                return;
            }
            #[cfg(not(unix))]
            if runtime.block_on(tokio::signal::ctrl_c()).is_err() {
                return;
            }
            finish(json);
        });
    // Without the thread, Ctrl-C ends the command as before, without the message.
    drop(spawned);
}
