//! `mcp-bridge-vscode`: glue between the command line, the VS Code profile
//! and the core library. Exit codes are chosen here, in one place.

mod cli;
mod log;
mod profile;

use clap::Parser;
use cli::{BridgeArgs, Cli, Command};
use mcp_bridge::frontend::{self, Config, Exit, Timeouts, UpstreamSpec};
use mcp_bridge::upstream::StdioCommand;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// Invalid arguments.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    log::init(profile::NAME);
    let args = match cli.command {
        Some(Command::Check(_)) => {
            eprintln!("{}: check is not available yet", profile::NAME);
            return ExitCode::from(EXIT_USAGE);
        }
        None => cli.bridge,
    };
    let config = match config(&args) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("{}: {message}", profile::NAME);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            tracing::error!(error = %err, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let exit = runtime.block_on(frontend::serve(config, tokio::io::stdin(), tokio::io::stdout()));
    // Blocked reads of stdin must not hold the process open.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match exit {
        Exit::EndOfInput => ExitCode::SUCCESS,
        Exit::UpstreamLost => ExitCode::FAILURE,
    }
}

/// The configuration of the front end, from the arguments.
fn config(args: &BridgeArgs) -> Result<Config, String> {
    let Some((program, rest)) = args.command.split_first() else {
        return Err("no upstream: give the command after --, for example: mcp-bridge-vscode -- python server.py".into());
    };
    let fallback_name = args.name.clone().unwrap_or_else(|| {
        Path::new(program).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| profile::NAME.into())
    });
    let mut timeouts = Timeouts { discover: Duration::from_secs(args.discover_timeout), ..Timeouts::default() };
    if let Some(ms) = args.test_request_timeout_ms {
        let limit = Duration::from_millis(ms);
        (timeouts.list, timeouts.first_round, timeouts.later_round, timeouts.call) = (limit, limit, limit, limit);
    }
    if let Some(ms) = args.test_shutdown_grace_ms {
        timeouts.shutdown_grace = Duration::from_millis(ms);
    }
    Ok(Config {
        profile: profile::vscode(),
        upstream: UpstreamSpec::Stdio(StdioCommand { program: program.clone(), args: rest.to_vec() }),
        fallback_name,
        max_line_bytes: usize::try_from(args.max_line_bytes)
            .map_err(|_| "--max-line-bytes is too large".to_string())?,
        timeouts,
    })
}
