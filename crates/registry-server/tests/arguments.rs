//! The server's command line: no arguments but `--help` and `--version`, which answer without
//! starting anything.

use std::process::Command;

fn server(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_registry-server"))
        .args(args)
        .current_dir(dir)
        .env_remove("REGISTRY_DATA_DIR")
        .output()
        .expect("the server binary runs")
}

#[test]
fn help_and_version_answer_without_starting_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let help = server(&["--help"], dir.path());
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("REGISTRY_DATABASE_URL"), "{text}");
    let version = server(&["--version"], dir.path());
    assert!(version.status.success());
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("registry-server "));
    // An unknown argument is a usage error (2), not a server quietly started.
    let unknown = server(&["--port", "9000"], dir.path());
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        !dir.path().join("data").exists(),
        "nothing was started or created"
    );
}
