//! The command line of the bench.

use std::path::PathBuf;

pub const USAGE: &str = "\
usage: mcp-bridge-bench [--iterations N] [--quick] [--bridge PATH] [--upstream PATH] [--no-build]

  --iterations N    timed round trips per operation and side (default 5000)
  --quick           a smoke run: 200 round trips (unless --iterations), 2 rounds of each other figure
  --bridge PATH     the mcp-bridge-vscode to measure (default: next to this executable)
  --upstream PATH   the fast-upstream to use (default: next to this executable)
  --no-build        do not run `cargo build` first, even when started by cargo";

/// The command line.
pub struct Options {
    pub iterations: usize,
    pub rounds: Rounds,
    pub bridge: Option<PathBuf>,
    pub upstream: Option<PathBuf>,
    pub build: bool,
}

impl Options {
    /// `None` for `--help`.
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
        let mut options = Options { iterations: 5000, rounds: Rounds::FULL, bridge: None, upstream: None, build: true };
        let mut iterations = None;
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
            match arg.as_str() {
                "--iterations" => {
                    let text = value("--iterations")?;
                    iterations = match text.parse() {
                        Ok(n) if n > 0 => Some(n),
                        _ => return Err(format!("--iterations needs a positive number, not {text:?}")),
                    };
                }
                "--quick" => {
                    options.rounds = Rounds::QUICK;
                    options.iterations = 200;
                }
                "--bridge" => options.bridge = Some(value("--bridge")?.into()),
                "--upstream" => options.upstream = Some(value("--upstream")?.into()),
                "--no-build" => options.build = false,
                "-h" | "--help" => return Ok(None),
                other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            }
        }
        options.iterations = iterations.unwrap_or(options.iterations);
        Ok(Some(options))
    }
}

/// How many timed rounds each figure other than the latency takes.
#[derive(Clone, Copy)]
pub struct Rounds {
    /// Big results per side, after one for warm-up. The pipes of a small
    /// virtual machine vary by half from one result to the next: fewer
    /// rounds give a median that moves from run to run.
    pub big: usize,
    /// Bursts in flight and long lists.
    pub other: usize,
    /// Starts of each process.
    pub start: usize,
}

impl Rounds {
    pub const FULL: Rounds = Rounds { big: 10, other: 20, start: 10 };
    /// `--quick`: enough to show that every figure still works.
    pub const QUICK: Rounds = Rounds { big: 2, other: 2, start: 2 };
}
