//! The binary starts and describes itself (this test also makes `cargo test --workspace` build
//! `registry` for the end-to-end tests of the workspace root).

use std::process::Command;

#[test]
fn help_exits_zero_and_lists_the_commands() {
    let out = Command::new(env!("CARGO_BIN_EXE_registry"))
        .arg("--help")
        .output()
        .expect("registry runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for command in [
        "login",
        "facility",
        "user",
        "group",
        "equipment",
        "test",
        "document",
        "completions",
    ] {
        assert!(text.contains(command), "--help lacks {command}: {text}");
    }
}

#[test]
fn a_wrong_flag_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_registry"))
        .args(["facility", "list", "--no-such-flag"])
        .output()
        .expect("registry runs");
    assert_eq!(out.status.code(), Some(2));
}

/// No command takes a flag of its own that hides a global one: `user reset-password` names its
/// recovery code `--code`, so `--token` (the session's) stays the global option there too.
#[test]
fn global_options_are_listed_in_each_commands_help() {
    for args in [
        &["user", "reset-password"][..],
        &["user", "recover"],
        &["facility", "list"],
        &["document", "verify"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_registry"))
            .args(args)
            .arg("--help")
            .output()
            .expect("registry runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let global = text.split("Global options:").nth(1).unwrap_or_default();
        assert!(global.contains("--token"), "{args:?}: {text}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_registry"))
        .args(["user", "reset-password", "--help"])
        .output()
        .expect("registry runs");
    assert!(String::from_utf8_lossy(&out.stdout).contains("--code <CODE>"));
}
