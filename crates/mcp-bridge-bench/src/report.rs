//! The printing of the figures: the rows of each table of the report.

use crate::big::{Throughput, AFTER_IDLE, BIG_BYTES};
use crate::latency::LatencyRow;
use crate::units::{micros, millis, percentile};
use std::path::Path;

pub fn print_latency(rows: &[LatencyRow], n: usize, warmup: usize) {
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

pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

pub fn kib(value: Option<u64>) -> String {
    value.map_or("?".into(), |kib| format!("{kib} KiB"))
}

pub fn file_kib(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len() / 1024)
}

pub fn print_throughput(big: &Throughput) {
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
pub fn print_idle_throughput(idle: &Throughput) {
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
pub fn print_memory(name: &str, [upstream, bridge]: [Option<u64>; 2]) {
    match (upstream, bridge) {
        (Some(upstream), Some(bridge)) => {
            let stack = upstream + bridge;
            println!("  {name:<42} {upstream:>10} {stack:>10} {:>8.2}", stack as f64 / upstream.max(1) as f64);
        }
        _ => println!("  {name:<42} {:>10} {:>10}", kib(upstream), kib(bridge)),
    }
}

pub fn print_pair(name: &str, [direct, bridged]: [f64; 2]) {
    println!("  {name:<42} {direct:>10.2} {bridged:>10.2} {:>8.2}", bridged / direct);
}
