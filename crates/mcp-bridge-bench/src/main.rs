//! `mcp-bridge-bench`: the bridge measured beside a direct connection, in one
//! run, so that the ratios compare figures of the same machine and moment.
//!
//! The same client code talks to `fast-upstream` twice: directly, as a
//! 2026-07-28 client (`server/discover` first, `_meta` on each request), and
//! through `mcp-bridge-vscode -- fast-upstream`, as a 2025-11-25 client
//! (`initialize`, `notifications/initialized`). It prints:
//!
//! - the latency (p50, p99) of sequential small `tools/call` and `tools/list`
//!   round trips, the ratios bridged/direct, the median the bridge adds and
//!   the CPU time the bridge spends per round trip;
//! - the bridge's idle RSS and its binary size;
//! - the throughput of a big `tools/call` result (16 MiB of text, and the
//!   same text as `structuredContent`) and the bridge's peak RSS after it;
//! - a `tools/list` of 2,000 tools that each need an R6 repair (one info
//!   line each on the bridge's stderr), 256 requests in flight, and the time from
//!   the start of the process to its first result.
//!
//! Run it with `cargo run --release -p mcp-bridge-bench`: started by cargo,
//! it first builds the bridge and `fast-upstream` of the same profile (a
//! no-op when they are up to date), so that it never measures a stale
//! bridge. Otherwise (or with `--no-build`) it expects them next to its own
//! executable: `cargo build --release --workspace`.

use serde_json::{json, Value};
use std::collections::{HashSet, VecDeque};
use std::fmt::Display;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod pin;
mod targets;

type Result<T> = std::result::Result<T, String>;

const USAGE: &str = "\
usage: mcp-bridge-bench [--iterations N] [--quick] [--bridge PATH] [--upstream PATH] [--no-build]

  --iterations N    timed round trips per operation and side (default 5000)
  --quick           a smoke run: 200 round trips (unless --iterations), 2 rounds of each other figure
  --bridge PATH     the mcp-bridge-vscode to measure (default: next to this executable)
  --upstream PATH   the fast-upstream to use (default: next to this executable)
  --no-build        do not run `cargo build` first, even when started by cargo";

/// The size of the text of the big result; the result line holds it twice.
const BIG_BYTES: usize = 16 << 20;
/// Samples are taken in blocks that alternate between the two sides, so
/// that a drift of the machine (clock frequency, other load) falls on both.
const BLOCK: usize = 500;
/// How long a process is left alone before its RSS counts as idle.
const SETTLE: Duration = Duration::from_secs(1);
/// The pause before each big result of the idle rounds: longer than the
/// bridge keeps a big line's buffer (1 s).
const AFTER_IDLE: Duration = Duration::from_millis(1500);

fn main() {
    if let Err(message) = run() {
        eprintln!("mcp-bridge-bench: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let Some(options) = Options::parse(std::env::args().skip(1))? else {
        println!("{USAGE}");
        return Ok(());
    };
    let paths = Paths::locate(&options)?;
    paths.describe();
    describe_machine();
    let n = options.iterations;
    let warmup = (n / 10).max(50);
    let rounds = options.rounds;
    let mut figures = targets::Figures::default();

    let mut direct = Peer::start(Side::Direct, &paths, &[])?;
    let mut bridged = Peer::start(Side::Bridged, &paths, &[])?;
    std::thread::sleep(SETTLE);
    let rss_initialized = [direct.status_kib("VmRSS"), bridged.status_kib("VmRSS")];

    // (1) and (2): latency of small round trips.
    let echo = Operation::new("tools/call echo", "tools/call", json!({"name": "echo", "arguments": {"text": "hello"}}))
        .with_check(|result| expect_text(result, "hello"));
    let list =
        Operation::new("tools/list (3 tools)", "tools/list", json!({})).with_check(|result| expect_tools(result, 3));
    let mut rows = Vec::new();
    for operation in [&echo, &list] {
        rows.push(latency(&mut direct, &mut bridged, operation, n, warmup)?);
    }
    let added = |row: &LatencyRow| micros(percentile(&row.bridged, 0.5)) - micros(percentile(&row.direct, 0.5));
    figures.added_p50_us = Some(added(&rows[0]));
    figures.bridge_cpu_us = rows[0].bridge_cpu.map(micros);
    // The same small call through a relay of bytes: what two more pipe
    // hops cost on this machine, whatever the bridge does.
    let mut relay = Peer::start(Side::Relay, &paths, &[])?;
    let relay_echo = Operation { name: "tools/call echo, relay", ..echo.clone() };
    rows.push(latency(&mut direct, &mut relay, &relay_echo, n, warmup)?);
    drop_peer(relay);
    figures.relay_added_p50_us = Some(added(&rows[2]));
    // Both again with every process on one CPU (`pin`).
    match std::thread::scope(|s| s.spawn(|| on_one_cpu(&paths, &echo, n, warmup)).join()) {
        Ok(Ok(pinned)) => {
            figures.one_cpu_added_p50_us = Some(added(&pinned[0]));
            figures.one_cpu_relay_added_p50_us = Some(added(&pinned[1]));
            figures.one_cpu_cpu_us = [pinned[0].bridge_cpu.map(micros), pinned[1].bridge_cpu.map(micros)];
            rows.extend(pinned);
        }
        Ok(Err(why)) => println!("note: no figures on one CPU: {why}"),
        Err(_) => return Err("the thread of the figures on one CPU panicked".into()),
    }
    std::thread::sleep(SETTLE);
    let rss_idle = [direct.status_kib("VmRSS"), bridged.status_kib("VmRSS")];
    figures.idle_rss_mib = rss_idle[1].map(mib);
    print_latency(&rows, n, warmup);
    println!();
    println!("{:<44} {:>10} {:>10} {:>8}", "memory (KiB) and size", "direct", "bridged", "ratio");
    println!("  (direct: the upstream process alone; bridged: the same upstream plus the bridge process)");
    print_memory("idle RSS after initialize (VmRSS)", rss_initialized);
    print_memory("idle RSS after the round trips (VmRSS)", rss_idle);
    println!("  {:<42} {:>21}", "bridge threads", bridged.threads().map_or("?".into(), |t| t.to_string()));
    println!("  {:<42} {:>21}", "bridge binary size", kib(file_kib(&paths.bridge)));

    // (3): throughput of big results, then the peak memory they cost.
    let big = throughput(&mut direct, &mut bridged, rounds.big, Duration::ZERO)?;
    figures.big_ratio = Some(big.ratio_at(0.5));
    let rss_peak = [direct.status_kib("VmHWM"), bridged.status_kib("VmHWM")];
    figures.peak_rss_mib = rss_peak[1].map(mib);
    std::thread::sleep(SETTLE);
    let rss_after_big = [direct.status_kib("VmRSS"), bridged.status_kib("VmRSS")];
    println!();
    print_throughput(&big);
    print_memory("peak RSS after it (VmHWM), KiB", rss_peak);
    print_memory("RSS 1 s later (VmRSS), KiB", rss_after_big);
    // The same line after the bridge was idle for longer than it keeps the
    // buffer of the line before (`framing::Spare`): a fresh buffer.
    let idle = throughput(&mut direct, &mut bridged, rounds.big.min(3), AFTER_IDLE)?;
    print_idle_throughput(&idle);

    // More shapes: a long list, a burst, the start.
    println!();
    println!("{:<44} {:>10} {:>10} {:>8}", "more (p50)", "direct", "bridged", "ratio");
    let flight = in_flight(&mut direct, &mut bridged, 256, rounds.other)?;
    print_pair("256 requests in flight, ms", flight);
    let notifications = direct.notifications + bridged.notifications;
    drop_peer(direct);
    drop_peer(bridged);
    let (long, long_cpu) = long_list(&paths, 2000, rounds.other)?;
    figures.long_list_ms = Some(long[1]);
    print_pair("tools/list of 2000 tools needing R6, ms", long);
    if let Some(cpu) = long_cpu {
        println!("  {:<42} {:>21.2}", "  the bridge's CPU per list (all threads), ms", cpu);
    }
    let start = startup(&paths, rounds.start)?;
    print_pair("start to first result, ms", start);
    println!("  {:<42} {:>21.2}", "  beyond the upstream's own discover, ms", start[1] - start[0]);
    if notifications > 0 {
        println!(
            "note: {notifications} notifications came between requests and responses (their parse is in the timings)"
        );
    }
    figures.print();
    Ok(())
}

/// The command line.
struct Options {
    iterations: usize,
    rounds: Rounds,
    bridge: Option<PathBuf>,
    upstream: Option<PathBuf>,
    build: bool,
}

impl Options {
    /// `None` for `--help`.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Options>> {
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
struct Rounds {
    /// Big results per side, after one for warm-up. The pipes of a small
    /// virtual machine vary by half from one result to the next: fewer
    /// rounds give a median that moves from run to run.
    big: usize,
    /// Bursts in flight and long lists.
    other: usize,
    /// Starts of each process.
    start: usize,
}

impl Rounds {
    const FULL: Rounds = Rounds { big: 10, other: 20, start: 10 };
    /// `--quick`: enough to show that every figure still works.
    const QUICK: Rounds = Rounds { big: 2, other: 2, start: 2 };
}

/// The executables the bench runs.
struct Paths {
    bridge: PathBuf,
    upstream: PathBuf,
    /// `relay`, beside `fast-upstream` (the same package).
    relay: PathBuf,
}

impl Paths {
    /// The given paths, or the binaries next to this executable, built
    /// first when cargo started the bench.
    fn locate(options: &Options) -> Result<Paths> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
        let dir = exe.parent().ok_or("this executable has no directory")?.to_path_buf();
        let sibling = |name: &str| dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        let mut targets = Vec::new();
        if options.bridge.is_none() {
            targets.push(("mcp-bridge-vscode", "mcp-bridge-vscode"));
        }
        if options.upstream.is_none() {
            targets.push(("mcp-bridge-bench", "fast-upstream"));
        }
        targets.push(("mcp-bridge-bench", "relay"));
        if options.build && !targets.is_empty() {
            if let Ok(cargo) = std::env::var("CARGO") {
                build(&cargo, &dir, &targets)?;
            }
        }
        let paths = Paths {
            bridge: options.bridge.clone().unwrap_or_else(|| sibling("mcp-bridge-vscode")),
            upstream: options.upstream.clone().unwrap_or_else(|| sibling("fast-upstream")),
            relay: sibling("relay"),
        };
        for (path, given) in
            [(&paths.bridge, &options.bridge), (&paths.upstream, &options.upstream), (&paths.relay, &None)]
        {
            if path.is_file() {
                continue;
            }
            return Err(if given.is_some() {
                format!("{} is not a file", path.display())
            } else {
                format!("{} is missing: run `cargo build --release --workspace` first", path.display())
            });
        }
        Ok(paths)
    }

    fn describe(&self) {
        let age = |path: &Path| {
            let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
            match modified.and_then(|m| m.elapsed().ok()) {
                Some(age) => format!("built {} s ago", age.as_secs()),
                None => "age unknown".into(),
            }
        };
        println!("bridge:   {} ({})", self.bridge.display(), age(&self.bridge));
        println!("upstream: {} ({})", self.upstream.display(), age(&self.upstream));
        if self.bridge.parent().and_then(Path::file_name).is_some_and(|name| name == "debug") {
            println!("warning: this is a debug build; its figures say little about the release");
        }
    }
}

/// The CPUs and how busy they are now: on a small machine, other work
/// moves the figures more than the bridge does. Measured over half a
/// second from `/proc/stat`, not from the load average, which still counts
/// the build that `cargo run` has just finished.
fn describe_machine() {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let Some(busy) = cpu_busy(Duration::from_millis(500)) else {
        println!("machine:  {cpus} CPUs");
        return;
    };
    println!("machine:  {cpus} CPUs, {:.0} % busy before the run", busy * 100.0);
    if busy > 0.2 {
        println!("warning: the machine is busy; the figures will be slower and noisier than on an idle one");
    }
}

/// The share of CPU time, all CPUs, that was not idle during `window`.
fn cpu_busy(window: Duration) -> Option<f64> {
    /// (busy, total) jiffies since boot, from the `cpu` line.
    fn sample() -> Option<(u64, u64)> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let fields: Vec<u64> =
            stat.lines().next()?.split_whitespace().skip(1).map(|f| f.parse().ok()).collect::<Option<_>>()?;
        let total: u64 = fields.iter().take(8).sum();
        // idle and iowait.
        let idle = fields.get(3)? + fields.get(4)?;
        Some((total - idle, total))
    }
    let (busy_before, total_before) = sample()?;
    std::thread::sleep(window);
    let (busy_after, total_after) = sample()?;
    let total = total_after.checked_sub(total_before).filter(|&t| t > 0)?;
    Some(busy_after.saturating_sub(busy_before) as f64 / total as f64)
}

/// Builds the binaries `targets` (package, binary) in the profile whose
/// output directory is `dir`, as `cargo run` leaves the bench in it.
fn build(cargo: &str, dir: &Path, targets: &[(&str, &str)]) -> Result<()> {
    let mut command = Command::new(cargo);
    command.arg("build");
    match dir.file_name().and_then(|name| name.to_str()) {
        Some("debug") => {}
        Some("release") => {
            command.arg("--release");
        }
        Some(profile) => {
            command.args(["--profile", profile]);
        }
        None => return Err(format!("cannot tell the cargo profile of {}", dir.display())),
    }
    if let Ok(manifest) = std::env::var("CARGO_MANIFEST_DIR") {
        command.arg("--manifest-path").arg(Path::new(&manifest).join("Cargo.toml"));
    }
    for (package, binary) in targets {
        command.args(["-p", package, "--bin", binary]);
    }
    eprintln!("mcp-bridge-bench: building {} first", targets.iter().map(|t| t.1).collect::<Vec<_>>().join(" and "));
    let status = command.status().map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo build failed ({status}); build by hand, or give --no-build"))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    /// `fast-upstream`, spoken to as a 2026-07-28 client.
    Direct,
    /// `mcp-bridge-vscode -- fast-upstream`, spoken to as a 2025-11-25 client.
    Bridged,
    /// `relay -- fast-upstream` (bytes copied, no JSON work), spoken to as
    /// a 2026-07-28 client: the floor of two more pipe hops.
    Relay,
}

/// A request prepared once: only the id changes between round trips, so
/// that building it costs the client almost nothing inside the timing.
struct Request {
    method: String,
    params: String,
}

impl Request {
    /// Directly, `params._meta` carries what a 2026-07-28 client sends on
    /// every request; through the bridge, the bridge adds it.
    fn new(side: Side, method: &str, mut params: Value) -> Request {
        if side != Side::Bridged {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        Request { method: Value::from(method).to_string(), params: params.to_string() }
    }

    fn line(&self, id: u64) -> Vec<u8> {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":{},\"params\":{}}}\n", self.method, self.params)
            .into_bytes()
    }
}

/// The outcome of one round trip.
struct Exchange {
    /// From before the write of the request to the end of the response
    /// line, before its parse: the client's JSON work is not in it.
    elapsed: Duration,
    /// The length of the response line.
    bytes: usize,
    result: Value,
}

/// One connection: a child process spoken to line by line.
struct Peer {
    side: Side,
    child: Child,
    /// `None` once closed, which is the child's end of input.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The last lines of the child's stderr, for error messages.
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: u64,
    line: Vec<u8>,
    /// Notifications read while waiting for responses (none are expected).
    notifications: u64,
}

impl Peer {
    /// Starts the side and opens the session: `server/discover` directly,
    /// `initialize` and `notifications/initialized` through the bridge.
    fn start(side: Side, paths: &Paths, upstream_args: &[&str]) -> Result<Peer> {
        let program = match side {
            Side::Direct => &paths.upstream,
            Side::Bridged => &paths.bridge,
            Side::Relay => &paths.relay,
        };
        let mut command = Command::new(program);
        if side != Side::Direct {
            command.arg("--").arg(&paths.upstream);
        }
        let mut child = command
            .args(upstream_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the pipes of the child are missing".into());
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(std::result::Result::ok) {
                let mut tail = keep.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if tail.len() == 20 {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let mut peer = Peer {
            side,
            child,
            stdin: Some(stdin),
            // Large enough that a big result is read in few calls.
            stdout: BufReader::with_capacity(1 << 20, stdout),
            stderr: tail,
            next_id: 0,
            line: Vec::new(),
            notifications: 0,
        };
        peer.open()?;
        Ok(peer)
    }

    fn open(&mut self) -> Result<()> {
        match self.side {
            Side::Direct | Side::Relay => {
                let result = self.exchange(&Request::new(self.side, "server/discover", json!({})))?.result;
                if !result["supportedVersions"].as_array().is_some_and(|v| v.iter().any(|v| v == "2026-07-28")) {
                    return Err(self.failure(format!("server/discover does not offer 2026-07-28: {result}")));
                }
            }
            Side::Bridged => {
                let params = json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"}
                });
                let result = self.exchange(&Request::new(self.side, "initialize", params))?.result;
                if result["protocolVersion"] != "2025-11-25" {
                    return Err(self.failure(format!("initialize did not agree on 2025-11-25: {result}")));
                }
                self.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
            }
        }
        Ok(())
    }

    fn send(&mut self, line: &[u8]) -> Result<()> {
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line).and_then(|()| stdin.flush()),
            None => return Err(self.failure("its stdin is closed")),
        };
        written.map_err(|e| self.failure(format!("cannot write to its stdin: {e}")))
    }

    /// Reads one line into `self.line`; returns its length.
    fn read_line(&mut self) -> Result<usize> {
        self.line.clear();
        match self.stdout.read_until(b'\n', &mut self.line) {
            Ok(0) => Err(self.failure("it closed its stdout")),
            Ok(n) => Ok(n),
            Err(e) => Err(self.failure(format!("cannot read its stdout: {e}"))),
        }
    }

    /// Sends the request and waits for its response.
    fn exchange(&mut self, request: &Request) -> Result<Exchange> {
        self.next_id += 1;
        let id = self.next_id;
        let line = request.line(id);
        let start = Instant::now();
        self.send(&line)?;
        loop {
            let bytes = self.read_line()?;
            let elapsed = start.elapsed();
            if let Some(result) = self.response(id)? {
                return Ok(Exchange { elapsed, bytes, result });
            }
        }
    }

    /// The result in `self.line` if it is the response to `id`, `None` for
    /// a notification, an error for anything else.
    fn response(&mut self, id: u64) -> Result<Option<Value>> {
        let message: Value = match serde_json::from_slice(&self.line) {
            Ok(message) => message,
            Err(e) => {
                let excerpt = excerpt(&self.line);
                return Err(self.failure(format!("it wrote a line that is not JSON ({e}): {excerpt}")));
            }
        };
        let Value::Object(mut message) = message else {
            let excerpt = excerpt(&self.line);
            return Err(self.failure(format!("it wrote a message that is not an object: {excerpt}")));
        };
        match (message.get("id"), message.get("method")) {
            (None, Some(_)) => {
                self.notifications += 1;
                return Ok(None);
            }
            (Some(got), None) if got.as_u64() == Some(id) => {}
            _ => {
                let excerpt = excerpt(&self.line);
                return Err(self.failure(format!("waiting for the response to id {id}, it wrote: {excerpt}")));
            }
        }
        if let Some(error) = message.get("error") {
            return Err(self.failure(format!("request {id} failed: {error}")));
        }
        match message.remove("result") {
            Some(result) => Ok(Some(result)),
            None => {
                let excerpt = excerpt(&self.line);
                Err(self.failure(format!("a response without result or error: {excerpt}")))
            }
        }
    }

    /// `message`, with the side, the exit status if the child ended, and
    /// the end of its stderr.
    fn failure(&mut self, message: impl Display) -> String {
        let mut text = format!("{:?} side: {message}", self.side);
        // A child that fails is often about to exit, and its last words
        // still on their way through the stderr thread: give both a moment.
        let deadline = Instant::now() + Duration::from_millis(200);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Ok(Some(status)) = self.child.try_wait() {
            text.push_str(&format!("\n  the process ended: {status}"));
        }
        let tail = self.stderr.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !tail.is_empty() {
            text.push_str("\n  the end of its stderr:");
            for line in tail.iter() {
                text.push_str("\n    ");
                text.push_str(line);
            }
        }
        text
    }

    /// A field of `/proc/<pid>/status` in KiB, such as `VmRSS` or `VmHWM`.
    fn status_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|line| line.strip_prefix(field).is_some_and(|rest| rest.starts_with(':')))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn threads(&self) -> Option<u64> {
        self.status_kib("Threads")
    }

    /// The CPU time of all the process's threads so far, from
    /// `/proc/<pid>/task/*/schedstat` (ns, unlike the 10 ms ticks of `stat`).
    fn cpu(&self) -> Option<Duration> {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id())).ok()?;
        let mut total = 0u64;
        for task in tasks {
            let schedstat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            total += schedstat.split_whitespace().next()?.parse::<u64>().ok()?;
        }
        Some(Duration::from_nanos(total))
    }

    /// Closes its stdin and waits for it to end, as a client that leaves
    /// would; reports a process that does not end or ends with an error.
    fn close(mut self) -> Option<String> {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return None,
                Ok(Some(status)) => {
                    return Some(format!("{:?} side ended with {status} at the end of its input", self.side))
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Some(format!("{:?} side: cannot wait for it: {e}", self.side)),
            }
        }
        Some(format!("{:?} side did not end within 3 s of the end of its input", self.side))
    }
}

impl Drop for Peer {
    /// No child outlives the bench, whatever path it leaves by.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Closes the peer, printing a warning if it did not end cleanly.
fn drop_peer(peer: Peer) {
    if let Some(warning) = peer.close() {
        println!("warning: {warning}");
    }
}

/// The first 300 bytes of a line, for error messages.
fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(300)]);
    let text = text.trim_end();
    if line.len() > 300 {
        format!("{text}… ({} bytes)", line.len())
    } else {
        text.to_owned()
    }
}

/// A request timed on both sides, with a check of its first result on each.
#[derive(Clone)]
struct Operation {
    name: &'static str,
    method: &'static str,
    params: Value,
    check: fn(&Value) -> Result<()>,
}

impl Operation {
    fn new(name: &'static str, method: &'static str, params: Value) -> Operation {
        Operation { name, method, params, check: |_| Ok(()) }
    }

    fn with_check(self, check: fn(&Value) -> Result<()>) -> Operation {
        Operation { check, ..self }
    }

    fn request(&self, side: Side) -> Request {
        Request::new(side, self.method, self.params.clone())
    }
}

fn expect_text(result: &Value, text: &str) -> Result<()> {
    match result["content"][0]["text"].as_str() {
        Some(got) if got == text => Ok(()),
        _ => Err(format!("expected the text {text:?}, got {}", excerpt(result.to_string().as_bytes()))),
    }
}

fn expect_tools(result: &Value, count: usize) -> Result<()> {
    match result["tools"].as_array() {
        Some(tools) if tools.len() == count => Ok(()),
        _ => Err(format!("expected {count} tools, got {}", excerpt(result.to_string().as_bytes()))),
    }
}

fn expect_big(result: &Value) -> Result<()> {
    let content = result["content"].as_array().map(Vec::as_slice).unwrap_or_default();
    let lengths: Vec<usize> = content.iter().filter_map(|block| block["text"].as_str().map(str::len)).collect();
    let structured = result["structuredContent"]["text"].as_str().map(str::len);
    if lengths == [BIG_BYTES] && structured == Some(BIG_BYTES) {
        Ok(())
    } else {
        Err(format!("expected one text of {BIG_BYTES} bytes and the same structuredContent, got text blocks of {lengths:?} bytes and structuredContent.text of {structured:?}"))
    }
}

/// The figures of one operation.
struct LatencyRow {
    name: &'static str,
    direct: Vec<Duration>,
    bridged: Vec<Duration>,
    /// The bridge's CPU time per round trip, warm-up included.
    bridge_cpu: Option<Duration>,
}

/// `n` timed round trips per side after `warmup` untimed ones, in
/// alternating blocks.
fn latency(
    direct: &mut Peer,
    bridged: &mut Peer,
    operation: &Operation,
    n: usize,
    warmup: usize,
) -> Result<LatencyRow> {
    let requests = [operation.request(Side::Direct), operation.request(Side::Bridged)];
    let cpu_before = bridged.cpu();
    for (peer, request) in [&mut *direct, &mut *bridged].into_iter().zip(&requests) {
        let first = peer.exchange(request)?;
        (operation.check)(&first.result).map_err(|e| format!("{:?} side, {}: {e}", peer.side, operation.name))?;
        for _ in 0..warmup {
            peer.exchange(request)?;
        }
    }
    let mut samples = [Vec::with_capacity(n), Vec::with_capacity(n)];
    while samples[1].len() < n {
        for ((peer, request), samples) in [&mut *direct, &mut *bridged].into_iter().zip(&requests).zip(&mut samples) {
            for _ in 0..BLOCK.min(n - samples.len()) {
                samples.push(peer.exchange(request)?.elapsed);
            }
        }
    }
    let bridge_cpu = match (cpu_before, bridged.cpu()) {
        (Some(before), Some(after)) => u32::try_from(n + warmup + 1).ok().map(|count| (after - before) / count),
        _ => None,
    };
    let [direct, bridged] = samples;
    Ok(LatencyRow { name: operation.name, direct, bridged, bridge_cpu })
}

/// The small call directly, through the bridge and through the relay, with
/// the client and every process on one CPU: a thread of its own binds
/// itself (`pin`) and starts fresh processes, which inherit its CPU.
fn on_one_cpu(paths: &Paths, echo: &Operation, n: usize, warmup: usize) -> Result<Vec<LatencyRow>> {
    pin::to_one_cpu()?;
    let mut direct = Peer::start(Side::Direct, paths, &[])?;
    let mut bridged = Peer::start(Side::Bridged, paths, &[])?;
    let mut relay = Peer::start(Side::Relay, paths, &[])?;
    let bridged_row =
        latency(&mut direct, &mut bridged, &Operation { name: "echo, one CPU", ..echo.clone() }, n, warmup);
    let relay_row =
        latency(&mut direct, &mut relay, &Operation { name: "echo, relay, one CPU", ..echo.clone() }, n, warmup);
    for peer in [direct, bridged, relay] {
        drop_peer(peer);
    }
    Ok(vec![bridged_row?, relay_row?])
}

/// The sample at rank `p` (nearest rank).
fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or_default()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_latency(rows: &[LatencyRow], n: usize, warmup: usize) {
    println!();
    println!("latency of sequential round trips, µs ({n} timed per operation and side, after {warmup} for warm-up)");
    println!(
        "{:<22} {:>10} {:>10} {:>11} {:>11} {:>9} {:>9} {:>10} {:>10}",
        "operation",
        "direct p50",
        "direct p99",
        "bridged p50",
        "bridged p99",
        "ratio p50",
        "ratio p99",
        "added p50",
        "bridge CPU"
    );
    for row in rows {
        let (d50, d99) = (micros(percentile(&row.direct, 0.5)), micros(percentile(&row.direct, 0.99)));
        let (b50, b99) = (micros(percentile(&row.bridged, 0.5)), micros(percentile(&row.bridged, 0.99)));
        let cpu = row.bridge_cpu.map_or("?".into(), |cpu| format!("{:.1}", micros(cpu)));
        println!(
            "{:<22} {d50:>10.1} {d99:>10.1} {b50:>11.1} {b99:>11.1} {:>9.2} {:>9.2} {:>10.1} {cpu:>10}",
            row.name,
            b50 / d50,
            b99 / d99,
            b50 - d50
        );
    }
    println!("(bridge CPU: CPU time of the bridge process per round trip, all threads)");
    println!("(the relay row: the same call through `relay`, which copies bytes and does no JSON work, in place of");
    println!(" the bridge: the floor of two more pipe hops on this machine; its columns are the relay's;");
    println!(" \"one CPU\": the client and every process on one CPU, so no wake-up crosses to another CPU)");
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn kib(value: Option<u64>) -> String {
    value.map_or("?".into(), |kib| format!("{kib} KiB"))
}

fn file_kib(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len() / 1024)
}

/// Per side: the time and length of each timed big result.
struct Throughput {
    line_bytes: [usize; 2],
    times: [Vec<Duration>; 2],
}

/// Big results, each `pause` after the one before (none for back to
/// back), after one for warm-up.
fn throughput(direct: &mut Peer, bridged: &mut Peer, rounds: usize, pause: Duration) -> Result<Throughput> {
    let params = json!({"name": "big", "arguments": {"bytes": BIG_BYTES}});
    let requests =
        [Request::new(Side::Direct, "tools/call", params.clone()), Request::new(Side::Bridged, "tools/call", params)];
    let mut line_bytes = [0; 2];
    for ((peer, request), bytes) in [&mut *direct, &mut *bridged].into_iter().zip(&requests).zip(&mut line_bytes) {
        let first = peer.exchange(request)?;
        expect_big(&first.result).map_err(|e| format!("{:?} side, big: {e}", peer.side))?;
        *bytes = first.bytes;
    }
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for ((peer, request), times) in [&mut *direct, &mut *bridged].into_iter().zip(&requests).zip(&mut times) {
            std::thread::sleep(pause);
            times.push(peer.exchange(request)?.elapsed);
        }
    }
    Ok(Throughput { line_bytes, times })
}

impl Throughput {
    /// The rate at rank `p` through the bridge over the rate directly.
    fn ratio_at(&self, p: f64) -> f64 {
        let rate = |side: usize| self.line_bytes[side] as f64 / percentile(&self.times[side], p).as_secs_f64();
        rate(1) / rate(0)
    }
}

fn print_throughput(big: &Throughput) {
    println!(
        "throughput of a big tools/call result: {} MiB of text + the same as structuredContent, {} rounds",
        BIG_BYTES >> 20,
        big.times[1].len()
    );
    println!("{:<44} {:>10} {:>10} {:>8}", "", "direct", "bridged", "ratio");
    println!("  {:<42} {:>10} {:>10}", "response line, bytes", big.line_bytes[0], big.line_bytes[1]);
    // The best round too: on a noisy machine it is the steadier figure.
    for (name, p) in [("p50", 0.5), ("best", 0.0)] {
        let times = [percentile(&big.times[0], p), percentile(&big.times[1], p)];
        let rates = [0, 1].map(|side| big.line_bytes[side] as f64 / times[side].as_secs_f64() / 1e6);
        let label = format!("time per result {name}, ms");
        let (direct, bridged) = (millis(times[0]), millis(times[1]));
        println!("  {label:<42} {direct:>10.1} {bridged:>10.1} {:>8.2}", bridged / direct);
        let label = format!("throughput at {name}, MB/s");
        println!("  {label:<42} {:>10.1} {:>10.1} {:>8.2}", rates[0], rates[1], rates[1] / rates[0]);
    }
}

/// The rows of the big results after a pause each: the p50 time and the
/// throughput ratio.
fn print_idle_throughput(idle: &Throughput) {
    let times = [percentile(&idle.times[0], 0.5), percentile(&idle.times[1], 0.5)];
    let label = format!("time per result p50 after {} s idle, ms", AFTER_IDLE.as_secs_f64());
    let (direct, bridged) = (millis(times[0]), millis(times[1]));
    println!("  {label:<42} {direct:>10.1} {bridged:>10.1} {:>8.2}", bridged / direct);
    let label = format!("throughput after {} s idle, ratio", AFTER_IDLE.as_secs_f64());
    println!("  {label:<42} {:>10} {:>10} {:>8.2}", "", "", idle.ratio_at(0.5));
}

/// A memory row: the upstream alone, and the upstream with the bridge (the
/// bridged side's upstream is the same program in the same state, so its
/// own figure stands for it).
fn print_memory(name: &str, [upstream, bridge]: [Option<u64>; 2]) {
    match (upstream, bridge) {
        (Some(upstream), Some(bridge)) => {
            let stack = upstream + bridge;
            println!("  {name:<42} {upstream:>10} {stack:>10} {:>8.2}", stack as f64 / upstream.max(1) as f64);
        }
        _ => println!("  {name:<42} {:>10} {:>10}", kib(upstream), kib(bridge)),
    }
}

fn print_pair(name: &str, [direct, bridged]: [f64; 2]) {
    println!("  {name:<42} {direct:>10.2} {bridged:>10.2} {:>8.2}", bridged / direct);
}

/// The p50 time, in ms, to write `count` echo requests at once and read all
/// the responses, in any order. A thread writes while this one reads, as a
/// client with requests in flight does, so that no pipe fills.
fn in_flight(direct: &mut Peer, bridged: &mut Peer, count: usize, rounds: usize) -> Result<[f64; 2]> {
    let mut medians = [0.0; 2];
    for (peer, median) in [direct, bridged].into_iter().zip(&mut medians) {
        let request = Request::new(peer.side, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
        let mut samples = Vec::with_capacity(rounds);
        for round in 0..=rounds {
            let first = peer.next_id + 1;
            peer.next_id += count as u64;
            let lines: Vec<Vec<u8>> = (first..=peer.next_id).map(|id| request.line(id)).collect();
            let start = Instant::now();
            burst(peer, &lines, first)?;
            // Round 0 is the warm-up.
            if round > 0 {
                samples.push(start.elapsed());
            }
        }
        *median = millis(percentile(&samples, 0.5));
    }
    Ok(medians)
}

fn burst(peer: &mut Peer, lines: &[Vec<u8>], first: u64) -> Result<()> {
    let Some(stdin) = peer.stdin.as_mut() else { return Err(peer.failure("its stdin is closed")) };
    let mut waiting: HashSet<u64> = (first..first + lines.len() as u64).collect();
    let written = std::thread::scope(|scope| {
        let writer =
            scope.spawn(|| lines.iter().try_for_each(|line| stdin.write_all(line).and_then(|()| stdin.flush())));
        let mut read = || -> Result<()> {
            while !waiting.is_empty() {
                peer.line.clear();
                match peer.stdout.read_until(b'\n', &mut peer.line) {
                    Ok(0) => return Err("it closed its stdout".into()),
                    Ok(_) => {}
                    Err(e) => return Err(format!("cannot read its stdout: {e}")),
                }
                let message: Value = serde_json::from_slice(&peer.line)
                    .map_err(|e| format!("it wrote a line that is not JSON ({e}): {}", excerpt(&peer.line)))?;
                let Some(id) = message.get("id").and_then(Value::as_u64) else { continue };
                if message.get("result").is_none() || !waiting.remove(&id) {
                    return Err(format!("an unexpected response: {}", excerpt(&peer.line)));
                }
            }
            Ok(())
        };
        let read = read();
        let write = writer.join().unwrap_or_else(|_| Err(std::io::Error::other("the writer thread panicked")));
        read.and(write.map_err(|e| format!("cannot write to its stdin: {e}")))
    });
    written.map_err(|e| peer.failure(e))
}

/// The p50 time, in ms, of a `tools/list` of `count` tools with nested
/// schemas, on fresh processes started with `--tools`, and the bridge's
/// mean CPU time per list, in ms (its own work, which an idle virtual CPU's
/// wake-up does not change, and which includes its 2,000 info lines).
fn long_list(paths: &Paths, count: usize, rounds: usize) -> Result<([f64; 2], Option<f64>)> {
    let tools = count.to_string();
    let args = ["--tools", tools.as_str()];
    let mut peers = [Peer::start(Side::Direct, paths, &args)?, Peer::start(Side::Bridged, paths, &args)?];
    let requests =
        [Request::new(Side::Direct, "tools/list", json!({})), Request::new(Side::Bridged, "tools/list", json!({}))];
    for (peer, request) in peers.iter_mut().zip(&requests) {
        let first = peer.exchange(request)?;
        expect_tools(&first.result, count + 3).map_err(|e| format!("{:?} side, long list: {e}", peer.side))?;
    }
    let mut samples = [Vec::new(), Vec::new()];
    let cpu_before = peers[1].cpu();
    for _ in 0..rounds {
        for ((peer, request), samples) in peers.iter_mut().zip(&requests).zip(&mut samples) {
            samples.push(peer.exchange(request)?.elapsed);
        }
    }
    // The last list's info lines are written after its response.
    std::thread::sleep(Duration::from_millis(50));
    let cpu = match (cpu_before, peers[1].cpu()) {
        (Some(before), Some(after)) if rounds > 0 => Some(millis(after.saturating_sub(before)) / rounds as f64),
        _ => None,
    };
    for peer in peers {
        drop_peer(peer);
    }
    Ok(([millis(percentile(&samples[0], 0.5)), millis(percentile(&samples[1], 0.5))], cpu))
}

/// The p50 time, in ms, from the spawn of the process to the result of
/// its first exchange (discover directly; initialize, which waits for the
/// upstream's discover, through the bridge).
fn startup(paths: &Paths, rounds: usize) -> Result<[f64; 2]> {
    let mut samples = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (side, samples) in [Side::Direct, Side::Bridged].into_iter().zip(&mut samples) {
            let start = Instant::now();
            let peer = Peer::start(side, paths, &[])?;
            samples.push(start.elapsed());
            drop_peer(peer);
        }
    }
    Ok([millis(percentile(&samples[0], 0.5)), millis(percentile(&samples[1], 0.5))])
}
