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
//! - the bridge's idle RSS (its binary as read from disk: `cold`) and its
//!   binary size;
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
//!
//! # Layout
//!
//! - `options`: the command line.
//! - `cold`: the bridge's binary dropped from the page cache.
//! - `setup`: the executables (built first when cargo started the bench)
//!   and how busy the machine is.
//! - `peer`: the child processes, one connection each, and the timed
//!   round trip.
//! - `latency`: small round trips, directly, bridged, through a byte
//!   relay, and on one CPU (`pin`).
//! - `big`: the throughput of big results.
//! - `shapes`: requests in flight, a long list, the start.
//! - `units`: percentiles and units.
//! - `report`: the printed rows.
//! - `targets`: the speed targets beside the figures of the run.

use big::{throughput, AFTER_IDLE};
use latency::{expect_text, expect_tools, latency, on_one_cpu, LatencyRow, Operation};
use options::{Options, USAGE};
use peer::{drop_peer, Peer, Side};
use report::{file_kib, kib, mib, print_idle_throughput, print_latency, print_memory, print_pair, print_throughput};
use serde_json::json;
use setup::{describe_machine, Paths};
use shapes::{in_flight, long_list, startup};
use std::time::Duration;
use units::{micros, percentile};

mod big;
mod cold;
mod latency;
mod options;
mod peer;
mod pin;
mod report;
mod setup;
mod shapes;
mod targets;
mod units;

type Result<T> = std::result::Result<T, String>;

/// How long a process is left alone before its RSS counts as idle.
const SETTLE: Duration = Duration::from_secs(1);

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

    if let Err(why) = cold::from_disk(&paths.bridge) {
        println!("note: the bridge's binary stays as the page cache holds it: {why}");
    }
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
    // buffer of the big line before: each is read into a fresh buffer.
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
