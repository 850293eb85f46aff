//! Real servers on loopback for the document tests: an SMTP sink (aiosmtpd writing a Maildir,
//! refusing the addresses that start with `refused`: `smtp_sink.py`) and
//! an S3-compatible store (moto_server). Each runs as a child process on a free port and is
//! killed when dropped. Without the tool the test is skipped with a message, except under CI=true.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct Server {
    child: Child,
    pub port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn unavailable(what: &str, why: &str) -> Option<Server> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but {what} is not available: {why} (run .ci/install-test-deps)");
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\nSKIPPING a document test: {what} is not available ({why}); run .ci/install-test-deps.\n"
    );
    None
}

/// Starts `program args…` with `{port}` replaced by `port` (or a free one), and waits until it accepts.
async fn start(
    what: &str,
    program: &str,
    args: &[&str],
    probe: &str,
    port: Option<u16>,
) -> Option<Server> {
    let ok = Command::new(program)
        .args(["-c", probe])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return unavailable(what, &format!("`{program} -c \"{probe}\"` failed"));
    }
    let port = port.unwrap_or_else(free_port);
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{port}", &port.to_string()))
        .collect();
    let child = match Command::new(program)
        .args(&args)
        .env(
            "PYTHONPATH",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return unavailable(what, &e.to_string()),
    };
    let server = Server { child, port };
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Some(server);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what} did not start listening on port {port}");
}

/// An SMTP server that keeps every message it receives as a file in a Maildir, and refuses every
/// recipient whose address starts with `refused` (SMTP 550).
pub struct SmtpSink {
    pub server: Server,
    pub maildir: tempfile::TempDir,
}

impl SmtpSink {
    pub async fn start() -> Option<SmtpSink> {
        Self::start_on(None).await
    }

    /// On a given port (to bring a server up where the registry already points).
    pub async fn start_on(port: Option<u16>) -> Option<SmtpSink> {
        let maildir = tempfile::tempdir().unwrap();
        let dir = maildir.path().join("mail");
        let server = start(
            "aiosmtpd (SMTP sink)",
            "python3",
            &[
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                "127.0.0.1:{port}",
                "-c",
                "smtp_sink.RefusingMailbox",
                dir.to_str().unwrap(),
            ],
            "import aiosmtpd",
            port,
        )
        .await?;
        Some(SmtpSink { server, maildir })
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.server.port)
    }

    /// The raw messages delivered so far.
    pub fn messages(&self) -> Vec<String> {
        let new: PathBuf = self.maildir.path().join("mail").join("new");
        let Ok(entries) = std::fs::read_dir(new) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
            .collect()
    }
}

/// An S3-compatible server (moto) with one bucket.
pub struct S3Server {
    pub server: Server,
    pub bucket: String,
}

impl S3Server {
    pub async fn start() -> Option<S3Server> {
        let server = start(
            "moto_server (S3)",
            "python3",
            &["-m", "moto.server", "-H", "127.0.0.1", "-p", "{port}"],
            "import moto.server",
            None,
        )
        .await?;
        let bucket = format!("registry-{}", uuid::Uuid::new_v4().simple());
        let res = reqwest::Client::new()
            .put(format!("http://127.0.0.1:{}/{bucket}", server.port))
            .send()
            .await
            .expect("create bucket");
        assert!(res.status().is_success(), "bucket: {}", res.status());
        Some(S3Server { server, bucket })
    }

    /// `REGISTRY_OBJECT_STORE_URL` for this server.
    pub fn url(&self) -> String {
        format!(
            "s3://{}/documents?endpoint=http://127.0.0.1:{}&region=us-east-1&allow_http=true&access_key_id=test&secret_access_key=test",
            self.bucket, self.server.port
        )
    }

    /// The objects stored in the bucket (keys), read through the S3 API.
    pub async fn keys(&self) -> Vec<String> {
        let body = reqwest::Client::new()
            .get(format!(
                "http://127.0.0.1:{}/{}?list-type=2",
                self.server.port, self.bucket
            ))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        body.split("<Key>")
            .skip(1)
            .filter_map(|s| s.split("</Key>").next())
            .map(str::to_owned)
            .collect()
    }
}

/// A TCP relay on loopback to PostgreSQL that passes everything at once, except what the server
/// sends on a connection that has asked to `LISTEN`: that arrives `lag` late (in order). An
/// instance behind it hears of other instances' commits late, as over a busy network, while its
/// own queries stay fast. Relays until dropped.
pub struct LateNotifications {
    pub port: u16,
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for LateNotifications {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl LateNotifications {
    pub async fn start(upstream: String, lag: Duration) -> LateNotifications {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accept = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let Ok(outbound) = tokio::net::TcpStream::connect(&upstream).await else {
                    continue;
                };
                let (from_client, to_client) = inbound.into_split();
                let (from_server, to_server) = outbound.into_split();
                let listening = Arc::new(AtomicBool::new(false));
                tokio::spawn(Self::carry(from_client, to_server, listening.clone(), None));
                tokio::spawn(Self::carry(from_server, to_client, listening, Some(lag)));
            }
        });
        LateNotifications { port, accept }
    }

    /// Copies `from` to `to`. From the client (`lag` `None`), marks the connection `listening`
    /// when it sends `LISTEN`; from the server, passes each chunk `lag` after it was read once
    /// the connection is listening.
    async fn carry(
        mut from: tokio::net::tcp::OwnedReadHalf,
        mut to: tokio::net::tcp::OwnedWriteHalf,
        listening: std::sync::Arc<std::sync::atomic::AtomicBool>,
        lag: Option<Duration>,
    ) {
        use std::sync::atomic::Ordering;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        use tokio::time::Instant;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
        let write = tokio::spawn(async move {
            while let Some((due, chunk)) = rx.recv().await {
                tokio::time::sleep_until(due).await;
                if to.write_all(&chunk).await.is_err() {
                    break;
                }
            }
        });
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = from.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let chunk = buf[..n].to_vec();
            let due = match lag {
                None => {
                    if chunk.windows(7).any(|w| w.eq_ignore_ascii_case(b"LISTEN ")) {
                        listening.store(true, Ordering::SeqCst);
                    }
                    Instant::now()
                }
                Some(lag) if listening.load(Ordering::SeqCst) => Instant::now() + lag,
                Some(_) => Instant::now(),
            };
            if tx.send((due, chunk)).is_err() {
                break;
            }
        }
        drop(tx);
        let _ = write.await;
    }
}

/// Runs each named `async fn(Backend)` on SQLite and on PostgreSQL; for tests that configure
/// their own servers.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                use $crate::helpers::Backend;

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name(Backend::Sqlite).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name(Backend::Postgres).await;
                }
            }
        )*
    };
}
