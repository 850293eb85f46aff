//! The harness: a server (`common::start`) over a fresh SQLite file (or PostgreSQL database,
//! [`backend`]), a private config folder, and the `registry` binary built next to this test
//! executable.

use crate::common::{self, ADMIN_PASSWORD, Backend};
pub use crate::common::{ADMIN_EMAIL, PASSWORD};
pub use args::{
    cnpj, equipment_args, facility_flags, login_args, punctuated, record_args, role_args, strs,
};
pub use pty::{
    answer, answering, converse, creates_user, dialogue, ends_saying, keep_fields_up_to_links,
    registers_unlinked, reply, spawn,
};
use registry_client::{Client, ListQuery};
use registry_core::Role;
use registry_core::api::{Facility, UserInput};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Stdio;
use tokio::io::AsyncWriteExt;

mod args;
mod pty;

/// The text `key` of each record of a JSON list printed with `-o json`.
pub fn each<'a>(list: &'a Value, key: &str) -> Vec<&'a str> {
    let records = list.as_array().expect("a JSON list");
    records.iter().map(|r| r[key].as_str().unwrap()).collect()
}

/// `target/<profile>/registry`: this executable lives in `target/<profile>/deps/`.
pub fn registry_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let bin = dir.join(format!("registry{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: build it first with `cargo build -p registry-cli` \
         (`cargo test --workspace` builds it)",
        bin.display()
    );
    bin
}

/// The database of the servers the CLI tests start: SQLite, or PostgreSQL (a new database at
/// `REGISTRY_TEST_POSTGRES_URL` for each) with `REGISTRY_TEST_CLI_DATABASE=postgres`.
fn backend() -> Backend {
    match std::env::var("REGISTRY_TEST_CLI_DATABASE").as_deref() {
        Ok("postgres") => Backend::Postgres,
        _ => Backend::Sqlite,
    }
}

pub struct Env {
    /// `http://127.0.0.1:PORT`
    pub server: String,
    pub config: tempfile::TempDir,
    pub work: tempfile::TempDir,
    /// An Administrator's client, to set up and check state outside the CLI.
    pub admin: Client,
    _data: tempfile::TempDir,
}

/// What a run of `registry` gave.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    #[track_caller]
    pub fn expect(self, code: i32) -> Self {
        assert_eq!(
            self.code, code,
            "unexpected exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Asserts that stderr says `text`.
    #[track_caller]
    pub fn says(self, text: &str) -> Self {
        assert!(self.stderr.contains(text), "{}", self.stderr);
        self
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// The `_id` of the record printed as JSON.
    pub fn id(&self) -> String {
        self.json()["_id"].as_str().expect("an _id").to_owned()
    }
}

impl Env {
    pub async fn start() -> Env {
        Env::start_configured(|_| {}).await
    }

    /// [`Env::start`] with the server's configuration adjusted by `configure` (e.g. the QC
    /// catalogue on).
    pub async fn start_configured(
        configure: impl FnOnce(&mut registry_server::config::Config),
    ) -> Env {
        let started = common::start(backend(), configure)
            .await
            .expect("PostgreSQL answers at REGISTRY_TEST_POSTGRES_URL");
        let server = started.base;
        let anonymous = Client::new(&server).expect("client");
        let token = anonymous
            .login(ADMIN_EMAIL, ADMIN_PASSWORD)
            .await
            .expect("admin logs in")
            .token;
        Env {
            admin: anonymous.with_token(token),
            server,
            config: tempfile::tempdir().expect("temp dir"),
            work: tempfile::tempdir().expect("temp dir"),
            _data: started.data_dir,
        }
    }

    /// A started server with the Administrator logged in (`login_admin`).
    pub async fn logged_in() -> Env {
        let env = Env::start().await;
        env.login_admin().await;
        env
    }

    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.environment(std::process::Command::new(registry_bin()));
        cmd.args(args);
        cmd
    }

    /// `cmd` in the work folder with the private config folder, and none of the `REGISTRY_*`
    /// variables of the environment the tests run in.
    fn environment(&self, mut cmd: std::process::Command) -> std::process::Command {
        cmd.current_dir(self.work.path())
            .env("REGISTRY_CONFIG_DIR", self.config.path())
            .env("NO_COLOR", "1")
            .env_remove("REGISTRY_URL")
            .env_remove("REGISTRY_TOKEN")
            .env_remove("REGISTRY_PROFILE");
        cmd
    }

    /// Runs `registry args…` with `stdin` (not a terminal), extra environment variables set.
    pub async fn run_with(&self, args: &[&str], stdin: &str, envs: &[(&str, &str)]) -> Out {
        Self::run_command(self.command(args), stdin, envs).await
    }

    /// Runs a shell `script` (`sh -c`, as a person would paste it) with `registry` on its `PATH`.
    pub async fn run_shell(&self, script: &str) -> Out {
        let bin_dir = registry_bin().parent().expect("a folder").to_owned();
        let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )))
        .expect("a PATH");
        let mut cmd = self.environment(std::process::Command::new("sh"));
        cmd.args(["-c", script]).env("PATH", path);
        Self::run_command(cmd, "", &[]).await
    }

    async fn run_command(cmd: std::process::Command, stdin: &str, envs: &[(&str, &str)]) -> Out {
        let mut cmd = tokio::process::Command::from(cmd);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("registry starts");
        let mut input = child.stdin.take().expect("piped stdin");
        // A command refused before it reads its input (a usage error) may exit first: the
        // broken pipe is then no failure of the test, and the exit code tells the rest.
        match input.write_all(stdin.as_bytes()).await {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            written => written.expect("stdin"),
        }
        drop(input);
        let out = child.wait_with_output().await.expect("registry ends");
        Out {
            code: out.status.code().expect("exit code"),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub async fn run(&self, args: &[&str]) -> Out {
        self.run_with(args, "", &[]).await
    }

    /// Runs `registry args…` for each `(args, code, text)` in turn: each must exit `code`, its
    /// stderr saying `text`.
    pub async fn expect_each(&self, cases: &[(&[&str], i32, &str)]) {
        for (args, code, text) in cases {
            let out = self.run(args).await;
            let shown = args.join(" ");
            assert_eq!(
                out.code, *code,
                "registry {shown}: unexpected exit code\nstdout:\n{}\nstderr:\n{}",
                out.stdout, out.stderr
            );
            assert!(
                out.stderr.contains(text),
                "registry {shown}: {}",
                out.stderr
            );
        }
    }

    /// Runs `registry args…` with its stdout a pipe whose reader is already gone (as in
    /// `registry … | true`), so its first write to stdout finds a broken pipe. `Out::stdout` is
    /// empty.
    pub async fn run_into_closed_pipe(&self, args: &[&str]) -> Out {
        let mut child = tokio::process::Command::from(self.command(args))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("registry starts");
        // Closed at once, long before the command has talked to the server and has a result.
        drop(child.stdout.take());
        let out = child.wait_with_output().await.expect("registry ends");
        Out {
            code: out.status.code().expect("an exit code, not a signal"),
            stdout: String::new(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs `registry args… -o json`, which must succeed: the JSON it printed.
    pub async fn json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.extend(["-o", "json"]);
        self.run(&args).await.expect(0).json()
    }

    /// `registry args…` to start at a pseudo-terminal with `spawn` (`TERM=xterm`).
    pub fn at_terminal(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.command(args);
        cmd.env("TERM", "xterm");
        cmd
    }

    /// `registry facility import PATH flags… -o json`, which must exit `code` (1 when a row
    /// failed): the summary it printed.
    pub async fn import_summary(&self, path: &str, flags: &[&str], code: i32) -> Value {
        let mut args = vec!["facility", "import", path];
        args.extend_from_slice(flags);
        args.extend(["-o", "json"]);
        self.run(&args).await.expect(code).json()
    }

    /// `registry login` as the Administrator into the default profile.
    pub async fn login_admin(&self) {
        self.admin_login(None, &[]).await.expect(0);
    }

    /// `registry [--profile PROFILE] login` as the Administrator, with `envs` set: what it gave.
    pub async fn admin_login(&self, profile: Option<&str>, envs: &[(&str, &str)]) -> Out {
        let args = login_args(&self.server, profile, ADMIN_EMAIL);
        self.run_with(&args, &format!("{ADMIN_PASSWORD}\n"), envs)
            .await
    }

    /// `registry --profile PROFILE login` as `email` (password `PASSWORD`): the profile becomes
    /// the active one.
    pub async fn login_as(&self, profile: &str, email: &str) {
        let args = login_args(&self.server, Some(profile), email);
        self.run_with(&args, &format!("{PASSWORD}\n"), &[])
            .await
            .expect(0);
    }

    /// A token of `email` (password `PASSWORD`), got through the API.
    pub async fn token_of(&self, email: &str) -> String {
        Client::new(&self.server)
            .expect("client")
            .login(email, PASSWORD)
            .await
            .expect("logs in")
            .token
    }

    /// A facility registered through the CLI from `facility_flags`: its cnpj (`cnpj(n)`), which
    /// the other commands accept as its name.
    pub async fn facility(&self, name: &str, n: u64) -> String {
        let c = cnpj(n);
        self.run(&strs(&facility_flags(name, &c))).await.expect(0);
        c
    }

    /// A facility (`name`, `cnpj(n)`) with one equipment of `equipment_type` (its `_id` or
    /// name) registered through the CLI with the `equipment create` flags `flags`: the
    /// equipment's `_id`.
    pub async fn equipment(
        &self,
        name: &str,
        n: u64,
        equipment_type: &str,
        flags: &[&str],
    ) -> String {
        let c = self.facility(name, n).await;
        let mut args = equipment_args(&c, &["--type", equipment_type, "-o", "json"]);
        args.extend_from_slice(flags);
        self.run(&args).await.expect(0).id()
    }

    /// Archives record `id` of `noun` (`facility`, `equipment`): refused (2) without `--yes`,
    /// done with it, and then not found (5).
    pub async fn archive_after_confirming(&self, noun: &str, id: &str) {
        self.run(&[noun, "archive", id]).await.expect(2);
        self.run(&[noun, "archive", id, "--yes"]).await.expect(0);
        self.run(&[noun, "show", id]).await.expect(5);
    }

    /// The `_id` of the seeded equipment type called `name`, read through the API.
    pub async fn equipment_type_id(&self, name: &str) -> String {
        let types = self
            .admin
            .equipment_types(&ListQuery::default())
            .await
            .expect("equipment types listed");
        let found = types.iter().find(|t| t.name == name).expect("seeded type");
        found.id.clone()
    }

    /// A QC test type registered through the API from `fields` (`name`, `typeOfEquipment`,
    /// `expirationInDays`, maybe `kind`): the server's record.
    pub async fn test_type(&self, fields: Value) -> Value {
        self.admin
            .post("/typeOfTest/register", &fields)
            .await
            .expect("test type registered")
    }

    /// A user with these roles, created through the API: `(id, email)`.
    pub async fn user(&self, name: &str, roles: &[&str]) -> (String, String) {
        let email = format!(
            "{}.{}@example.com",
            name.to_lowercase().replace(' ', "."),
            uuid::Uuid::new_v4().simple()
        );
        let input = UserInput {
            name: Some(name.into()),
            email: Some(email.clone()),
            password: Some(PASSWORD.into()),
            roles: Some(
                roles
                    .iter()
                    .map(|r| Role::parse(r).expect("a role"))
                    .collect(),
            ),
            ..UserInput::default()
        };
        let u = self
            .admin
            .register_user(&input)
            .await
            .expect("user created");
        (u.id, email)
    }

    /// Links `email` to facility `cnpj` with `role` through the CLI.
    pub async fn assign(&self, cnpj: &str, email: &str, role: &str) {
        self.run(&role_args("assign", cnpj, email, role))
            .await
            .expect(0);
    }

    /// The facilities whose search (`q`) matches `text`, read through the API.
    pub async fn facilities_matching(&self, text: &str) -> Vec<Facility> {
        self.admin
            .facilities(&ListQuery::default().filter("q", text))
            .await
            .expect("facilities listed")
            .list
    }

    /// How many live facilities the server holds.
    pub async fn facility_count(&self) -> i64 {
        self.admin
            .facilities(&ListQuery::default())
            .await
            .expect("facilities listed")
            .paging
            .total
    }

    pub fn write(&self, name: &str, text: &str) -> String {
        let path = self.work.path().join(name);
        std::fs::write(&path, text).expect("file written");
        path.display().to_string()
    }
}
