//! The command line of `face-load`.

use crate::hostile::Mode;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

pub const USAGE: &str = "\
usage: face-load [OPTIONS] [--url URL] -- COMMAND [ARGS...]
       face-load [OPTIONS] --url URL [--pid PID]
       face-load compare FILE [--check]

Drives Streamable HTTP sessions of a 2025-11-25 client against a server and
measures calls/s, p50/p99, failed calls, the time from the spawn to the first
result, and the RSS and fds of the server's process tree. It judges failed
calls (a status other than 2xx, a JSON-RPC error, a result with isError, no
answer in time) and asserts no timing.

  -- COMMAND ARGS   start the server under test (its whole tree is measured
                    and ended at the end); `{port}` in it and in --url is a
                    free port; without --url, the first http://.../mcp URL
                    it prints is its address
  --url URL         the server's /mcp URL
  --pid PID         with --url and no command: the running server to measure
  --label NAME      the name of this way in the reports (default: the program)
  --sessions N      open sessions (default 1)
  --active N        how many of them call (default: all)
  --in-flight K     calls in flight per active session, each on a keep-alive
                    connection of its own (default 1)
  --calls N         timed calls in all (default 1000), after a warm-up of two
                    per lane
  --duration S      time the calls for S seconds instead
  --tool NAME       the tool to call (default add)
  --arguments JSON  its arguments (default {\"a\":1,\"b\":2})
  --hostile MODE    flood | slow: time the calls without, then with one
                    hostile session (connections of pipelined calls whose
                    answers it never reads, or reads 16 bytes every 100 ms)
  --hostile-connections N  its connections (default 8)
  --soak CALLS      instead: sessions come and go (open, 1 to 40 calls,
                    DELETE), --sessions at a time, until CALLS calls; RSS and
                    fds of the tree at the start, middle and end
  --open-parallel N sessions opened at once (default 16)
  --call-timeout S  the time limit of one call (default 30)
  --max-tree-mib M  stop the run when the tree's RSS passes M MiB (default:
                    the available memory at the start less 3 GiB)
  --threads N       the generator's threads (default 1, so that the server
                    has the other core)
  --json FILE       append the figures of the run to FILE as one JSON line

compare FILE: the runs of FILE side by side by sessions, the ratios of the
face to each other way and the targets of issue 43, met or missed; with
--check it exits 1 when a run of the face had a failed call or stopped early.";

/// How the server under test is reached.
pub enum Server {
    /// Started here.
    Command { command: Vec<String>, url: Option<String> },
    /// Already running.
    Running { url: String, pid: Option<u32> },
}

pub struct Options {
    pub server: Server,
    pub label: String,
    pub sessions: usize,
    pub active: Option<usize>,
    pub in_flight: usize,
    pub calls: u64,
    pub duration: Option<Duration>,
    pub tool: String,
    pub arguments: Value,
    pub hostile: Option<Mode>,
    pub hostile_connections: usize,
    pub soak: Option<u64>,
    pub open_parallel: usize,
    pub call_timeout: Duration,
    pub max_tree_mib: Option<u64>,
    pub threads: usize,
    pub json: Option<PathBuf>,
}

/// What the command line asks for.
pub enum Asked {
    Run(Box<Options>),
    Compare { file: PathBuf, check: bool },
    Help,
}

pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Asked, String> {
    let mut o = Options {
        server: Server::Running { url: String::new(), pid: None },
        label: String::new(),
        sessions: 1,
        active: None,
        in_flight: 1,
        calls: 1000,
        duration: None,
        tool: "add".into(),
        arguments: serde_json::json!({"a": 1, "b": 2}),
        hostile: None,
        hostile_connections: 8,
        soak: None,
        open_parallel: 16,
        call_timeout: Duration::from_secs(30),
        max_tree_mib: None,
        threads: 1,
        json: None,
    };
    let mut url = None;
    let mut pid = None;
    let mut command = Vec::new();
    let mut first = true;
    while let Some(arg) = args.next() {
        if first && arg == "compare" {
            let file = args.next().ok_or_else(|| format!("compare needs a FILE\n{USAGE}"))?;
            let check = match args.next().as_deref() {
                None => false,
                Some("--check") => true,
                Some(other) => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            };
            return Ok(Asked::Compare { file: file.into(), check });
        }
        first = false;
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--" => {
                command.extend(args.by_ref());
                break;
            }
            "-h" | "--help" => return Ok(Asked::Help),
            "--url" => url = Some(value("--url")?),
            "--pid" => pid = Some(number(&value("--pid")?, "--pid")?),
            "--label" => o.label = value("--label")?,
            "--sessions" => o.sessions = number(&value("--sessions")?, "--sessions")?,
            "--active" => o.active = Some(number(&value("--active")?, "--active")?),
            "--in-flight" => o.in_flight = number(&value("--in-flight")?, "--in-flight")?,
            "--calls" => o.calls = number(&value("--calls")?, "--calls")?,
            "--duration" => o.duration = Some(Duration::from_secs_f64(seconds(&value("--duration")?)?)),
            "--tool" => o.tool = value("--tool")?,
            "--arguments" => {
                let text = value("--arguments")?;
                o.arguments = serde_json::from_str(&text).map_err(|e| format!("--arguments: not JSON: {e}"))?;
            }
            "--hostile" => {
                let text = value("--hostile")?;
                o.hostile =
                    Some(Mode::parse(&text).ok_or_else(|| format!("--hostile takes flood or slow, not {text:?}"))?);
            }
            "--hostile-connections" => {
                o.hostile_connections = number(&value("--hostile-connections")?, "--hostile-connections")?;
            }
            "--soak" => o.soak = Some(number(&value("--soak")?, "--soak")?),
            "--open-parallel" => o.open_parallel = number(&value("--open-parallel")?, "--open-parallel")?,
            "--call-timeout" => o.call_timeout = Duration::from_secs_f64(seconds(&value("--call-timeout")?)?),
            "--max-tree-mib" => o.max_tree_mib = Some(number(&value("--max-tree-mib")?, "--max-tree-mib")?),
            "--threads" => o.threads = number(&value("--threads")?, "--threads")?,
            "--json" => o.json = Some(value("--json")?.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if o.sessions == 0
        || o.in_flight == 0
        || o.calls == 0
        || o.open_parallel == 0
        || o.threads == 0
        || o.hostile_connections == 0
    {
        return Err("--sessions, --in-flight, --calls, --open-parallel and --threads take positive numbers".into());
    }
    if o.active.is_some_and(|a| a > o.sessions) {
        return Err("--active cannot be more than --sessions".into());
    }
    if o.soak.is_some() && o.hostile.is_some() {
        return Err("--soak and --hostile are separate runs".into());
    }
    o.server = if command.is_empty() {
        let url = url.ok_or_else(|| format!("give a server: --url URL, or -- COMMAND\n{USAGE}"))?;
        Server::Running { url, pid }
    } else if pid.is_some() {
        return Err("--pid is for a running server, not with a command".into());
    } else {
        Server::Command { command, url }
    };
    if o.label.is_empty() {
        o.label = match &o.server {
            Server::Command { command, .. } => {
                command.first().map_or("server", |p| p.rsplit('/').next().unwrap_or(p)).into()
            }
            Server::Running { .. } => "server".into(),
        };
    }
    Ok(Asked::Run(Box::new(o)))
}

fn number<T: std::str::FromStr>(text: &str, name: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{name} needs a number, not {text:?}"))
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}
