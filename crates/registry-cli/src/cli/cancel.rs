//! Ctrl-C (at a prompt or anywhere else at a terminal) cancels the command: "Cancelled." on
//! stderr, the terminal's settings as they were when the command started (a password prompt
//! turns echo off), the cursor shown, and exit code [`CANCELLED`] (docs/cli.md, exit codes).
//! Nothing half-done is sent: a prompt's answers go to the server only after the last one.

use std::io::IsTerminal;
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

/// When stdin is a terminal (a prompt may be shown), watches for Ctrl-C on a thread of its own,
/// since the command's thread is blocked in the prompt's read. The handler is in place before
/// this returns, so a Ctrl-C at the very first prompt is caught too. With `json` (`-o json`) it
/// also prints the `cancelled` envelope on stdout, as a cancellation seen by the command does.
pub fn watch(json: bool) {
    if !std::io::stdin().is_terminal() {
        return;
    }
    #[cfg(unix)]
    let saved = rustix::termios::tcgetattr(std::io::stdin()).ok();
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
            #[cfg(unix)]
            if let Some(saved) = &saved {
                let _ = rustix::termios::tcsetattr(
                    std::io::stdin(),
                    rustix::termios::OptionalActions::Now,
                    saved,
                );
            }
            let _ = dialoguer::console::Term::stderr().show_cursor();
            say();
            if json && !super::output::stdout_written() {
                let envelope = serde_json::json!({"message": "Cancelled.", "code": "cancelled"});
                let _ = super::output::print_json(&envelope);
            }
            std::process::exit(CANCELLED.into());
        });
    // Without the thread, Ctrl-C ends the command as before, without the message.
    drop(spawned);
}
