//! `mcp-bridge-bench`: the bridge beside a direct connection, in one run.
//!
//! The same client loop talks once directly to `fast-upstream` as a
//! 2026-07-28 client, and once to `mcp-bridge-vscode -- fast-upstream` as a
//! 2025-11-25 client. It prints latency (p50, p99) of small requests, the
//! throughput of 16 MiB results, a list of 2,000 tools, 256 requests in
//! flight, the time to the first result, the bridge's RSS and its binary
//! size, each with the ratio bridged/direct.
//!
//! Run `cargo build --release --workspace`, then
//! `cargo run --release -p mcp-bridge-bench [-- --iterations N]`.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// One connection: a child process spoken to line by line.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    modern: bool,
    next_id: u64,
    line: String,
}

impl Peer {
    fn spawn(program: &Path, args: &[&str], modern: bool) -> Peer {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("stdout is piped"));
        Peer { child, stdin, stdout, modern, next_id: 0, line: String::new() }
    }

    /// The first exchange: `server/discover` directly, `initialize` through
    /// the bridge.
    fn open(&mut self) {
        if self.modern {
            self.request("server/discover", json!({}));
        } else {
            self.request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
            );
            self.write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
    }

    fn message(&mut self, method: &str, mut params: Value) -> (u64, Value) {
        self.next_id += 1;
        if self.modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        (self.next_id, json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
    }

    fn write(&mut self, message: &Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.stdin.write_all(&line).and_then(|()| self.stdin.flush()).expect("the peer reads its stdin");
    }

    /// Reads lines until the response; returns the length of its line.
    fn read_response(&mut self) -> usize {
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).expect("the peer writes its stdout");
            assert!(n > 0, "the peer closed its stdout");
            let message: Value = serde_json::from_str(&self.line).expect("the peer writes JSON");
            if message.get("id").is_some() {
                assert!(
                    message.get("result").is_some(),
                    "the request failed: {}",
                    &self.line[..self.line.len().min(300)]
                );
                return n;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> usize {
        let (_, message) = self.message(method, params);
        self.write(&message);
        self.read_response()
    }

    fn rss_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples.get(index).copied().unwrap_or_default()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn time_requests(peer: &mut Peer, n: usize, method: &str, params: &Value) -> Vec<Duration> {
    for _ in 0..n / 10 {
        peer.request(method, params.clone());
    }
    (0..n)
        .map(|_| {
            let start = Instant::now();
            peer.request(method, params.clone());
            start.elapsed()
        })
        .collect()
}

struct Setup {
    bridge: PathBuf,
    upstream: PathBuf,
}

impl Setup {
    fn direct(&self, args: &[&str]) -> Peer {
        let mut peer = Peer::spawn(&self.upstream, args, true);
        peer.open();
        peer
    }

    fn bridged(&self, args: &[&str]) -> Peer {
        let upstream = self.upstream.to_string_lossy().into_owned();
        let mut all = vec!["--", upstream.as_str()];
        all.extend_from_slice(args);
        let mut peer = Peer::spawn(&self.bridge, &all, false);
        peer.open();
        peer
    }
}

fn row(name: &str, unit: &str, direct: f64, bridged: f64) {
    println!("{name:<34} {direct:>12.1} {bridged:>12.1} {:>8.2}  {unit}", bridged / direct);
}

fn latency(setup: &Setup, n: usize) {
    let cases = [
        ("tools/call echo", "tools/call", json!({"name": "echo", "arguments": {"text": "hello"}})),
        ("tools/list (3 tools)", "tools/list", json!({})),
    ];
    for (name, method, params) in cases {
        let mut direct = time_requests(&mut setup.direct(&[]), n, method, &params);
        let mut bridged = time_requests(&mut setup.bridged(&[]), n, method, &params);
        let (d50, b50) = (percentile(&mut direct, 0.5), percentile(&mut bridged, 0.5));
        let (d99, b99) = (percentile(&mut direct, 0.99), percentile(&mut bridged, 0.99));
        row(&format!("{name} p50"), "µs", micros(d50), micros(b50));
        row(&format!("{name} p99"), "µs", micros(d99), micros(b99));
        println!("{:<34} {:>12} {:>12.1}", format!("{name} added at p50"), "", micros(b50) - micros(d50));
    }
}

/// MB/s of `rounds` results of `bytes` each; returns the bridge's peak RSS.
fn throughput(setup: &Setup, bytes: usize, rounds: usize) -> Option<u64> {
    let params = json!({"name": "big", "arguments": {"bytes": bytes}});
    let mut rates = Vec::new();
    let mut peak = None;
    for bridged in [false, true] {
        let mut peer = if bridged { setup.bridged(&[]) } else { setup.direct(&[]) };
        peer.request("tools/call", params.clone());
        let start = Instant::now();
        let mut total = 0;
        for _ in 0..rounds {
            total += peer.request("tools/call", params.clone());
        }
        rates.push(total as f64 / start.elapsed().as_secs_f64() / 1e6);
        if bridged {
            peak = peer.rss_kib("VmHWM:");
        }
    }
    row(&format!("tools/call result of {} MiB", bytes >> 20), "MB/s", rates[0], rates[1]);
    peak
}

fn big_list(setup: &Setup, tools: usize, n: usize) {
    let count = tools.to_string();
    let args = ["--tools", count.as_str()];
    let mut direct = time_requests(&mut setup.direct(&args), n, "tools/list", &json!({}));
    let mut bridged = time_requests(&mut setup.bridged(&args), n, "tools/list", &json!({}));
    row(
        &format!("tools/list of {tools} tools p50"),
        "ms",
        micros(percentile(&mut direct, 0.5)) / 1e3,
        micros(percentile(&mut bridged, 0.5)) / 1e3,
    );
}

/// Time to send 256 requests at once and read all the responses.
fn concurrency(setup: &Setup, in_flight: usize, rounds: usize) {
    let mut times = Vec::new();
    for bridged in [false, true] {
        let mut peer = if bridged { setup.bridged(&[]) } else { setup.direct(&[]) };
        let mut samples = Vec::new();
        for _ in 0..rounds {
            let start = Instant::now();
            for _ in 0..in_flight {
                let (_, message) = peer.message("tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
                peer.write(&message);
            }
            for _ in 0..in_flight {
                peer.read_response();
            }
            samples.push(start.elapsed());
        }
        times.push(micros(percentile(&mut samples, 0.5)) / 1e3);
    }
    row(&format!("{in_flight} requests in flight, p50"), "ms", times[0], times[1]);
}

fn startup(setup: &Setup, rounds: usize) {
    let mut times = Vec::new();
    for bridged in [false, true] {
        let mut samples: Vec<Duration> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                let peer = if bridged { setup.bridged(&[]) } else { setup.direct(&[]) };
                let elapsed = start.elapsed();
                drop(peer);
                elapsed
            })
            .collect();
        times.push(micros(percentile(&mut samples, 0.5)) / 1e3);
    }
    row("start to discover/initialize result", "ms", times[0], times[1]);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iterations = args
        .iter()
        .position(|a| a == "--iterations")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5000);
    let dir = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or_default();
    let setup = Setup { bridge: dir.join("mcp-bridge-vscode"), upstream: dir.join("fast-upstream") };
    for path in [&setup.bridge, &setup.upstream] {
        if !path.exists() {
            eprintln!("{} is missing: run `cargo build --release --workspace` first", path.display());
            std::process::exit(2);
        }
    }
    println!("{:<34} {:>12} {:>12} {:>8}", "measure", "direct", "bridged", "ratio");
    latency(&setup, iterations);
    big_list(&setup, 2000, 20);
    concurrency(&setup, 256, 20);
    startup(&setup, 10);
    let peak = throughput(&setup, 16 << 20, 5);
    let idle = {
        let peer = setup.bridged(&[]);
        std::thread::sleep(Duration::from_millis(500));
        peer.rss_kib("VmRSS:")
    };
    println!("bridge idle RSS: {} KiB", idle.map_or("?".into(), |k| k.to_string()));
    println!("bridge peak RSS after 16 MiB results: {} KiB", peak.map_or("?".into(), |k| k.to_string()));
    let size = std::fs::metadata(&setup.bridge).map(|m| m.len()).unwrap_or(0);
    println!("bridge binary size: {} KiB", size / 1024);
}
