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
