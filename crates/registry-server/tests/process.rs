//! The server as a process: what it writes is private to its owner, a SQLite data folder
//! belongs to one server at a time, a taken address stops it before it writes anything, its log
//! is plain text off a terminal, and SIGTERM stops it cleanly.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(data_dir: &std::path::Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_registry-server"))
        .env("REGISTRY_DATA_DIR", data_dir)
        .env("REGISTRY_BIND", format!("127.0.0.1:{port}"))
        .env("REGISTRY_LOG", "info")
        .env("REGISTRY_SHUTDOWN_GRACE_SECONDS", "2")
        .env_remove("REGISTRY_DATABASE_URL")
        .env_remove("REGISTRY_CONFIG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server binary runs")
}

/// The exit status of `child` within `secs` seconds, or `None` (and the child killed).
fn exited_within(child: &mut Child, secs: u64) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Whether `GET /healthz` answers 200 on `port` within 60 s.
fn healthy(port: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let mut answer = String::new();
            let _ = s.read_to_string(&mut answer);
            if answer.starts_with("HTTP/1.1 200") {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// What a server that must refuse to start said on stderr, once it has exited unsuccessfully.
fn refused(mut server: Child) -> String {
    let status = exited_within(&mut server, 30).expect("a server started that should not have");
    assert!(!status.success());
    let mut said = String::new();
    server
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut said)
        .unwrap();
    said
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn private_files_one_process_per_sqlite_folder_and_a_clean_stop() {
    let parent = tempfile::tempdir().unwrap();
    let data = parent.path().join("data");
    let port = free_port();
    let mut server = start(&data, port);
    assert!(healthy(port), "the server did not come up");

    #[cfg(unix)]
    {
        assert_eq!(mode(&data), 0o700, "the data folder");
        for file in ["registry.db", "jwt-secret", "signing-key"] {
            assert_eq!(mode(&data.join(file)), 0o600, "{file}");
        }
    }

    // A second server on the same SQLite folder refuses to start, saying why.
    let said = refused(start(&data, free_port()));
    assert!(said.contains("in use by another registry-server"), "{said}");
    assert!(healthy(port), "the first server keeps serving");

    // An address that cannot be listened on stops the start before anything is written.
    let elsewhere = parent.path().join("elsewhere");
    let said = refused(start(&elsewhere, port));
    assert!(said.contains("cannot listen on"), "{said}");
    assert!(
        !elsewhere.exists(),
        "a data folder was made before the address was tried"
    );

    // SIGTERM: a clean stop, exit 0, though a request under way would not end for a minute (its
    // body stops coming): after the grace time its connection is closed.
    let mut stuck = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stuck
        .write_all(
            b"POST /api/login/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"email\"",
        )
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = exited_within(&mut server, 15).expect("still running 15 s after SIGTERM");
    drop(stuck);
    let mut log = String::new();
    server
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(status.success(), "{status:?}: {log}");
    assert!(log.contains("shutting down"), "{log}");
    assert!(
        log.contains("did not finish within 2 s of the stop"),
        "{log}"
    );
    // Not a terminal: plain text, no colour codes.
    assert!(!log.contains('\u{1b}'), "{log}");
}
