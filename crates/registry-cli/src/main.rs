//! `registry`: the facility registry's admin tool for physicists at the terminal and operators' scripts.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = cli::Cli::parse_args();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a single-threaded runtime starts");
    runtime.block_on(cli::run(parsed))
}
