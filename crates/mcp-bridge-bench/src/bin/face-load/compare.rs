//! Several runs of one benchmark side by side (the JSON lines `--json`
//! appended): for each number of sessions a row per way, the ratios of the
//! face to each other way, and the targets of issue 43, met or missed.
//! Ratios compare runs of one benchmark on one machine; a figure of
//! another day is no reference.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The way the ratios are of.
const FACE: &str = "face";
/// The sessions at which the throughput and memory targets hold.
const TARGET_SESSIONS: u64 = 200;

pub fn print(file: &Path, check: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let runs: Vec<Value> =
        text.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| serde_json::from_str(l).ok()).collect();
    if runs.is_empty() {
        return Err(format!("{} holds no runs", file.display()));
    }
    let (plain, scale): (Vec<&Value>, Vec<&Value>) =
        runs.iter().partition(|r| r["hostile"].is_null() && r["soak"].is_null());
    let mut by_sessions: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for run in plain {
        by_sessions.entry(run["sessions"].as_u64().unwrap_or(0)).or_default().push(run);
    }
    for (sessions, runs) in &by_sessions {
        println!();
        println!("{sessions} concurrent session(s)");
        println!(
            "  {:<14} {:>9} {:>9} {:>9} {:>10} {:>11} {:>11} {:>8} {:>7}",
            "way", "calls/s", "p50 ms", "p99 ms", "start ms", "idle MiB", "peak MiB", "KiB/ses", "failed"
        );
        for run in runs {
            println!(
                "  {:<14} {:>9} {:>9} {:>9} {:>10} {:>11} {:>11} {:>8} {:>7}{}",
                run["label"].as_str().unwrap_or("?"),
                num(&run["load"]["calls_per_s"], 0),
                num(&run["load"]["p50_ms"], 2),
                num(&run["load"]["p99_ms"], 2),
                num(&run["start_ms"], 0),
                mib(&run["idle"]["rss_kib"]),
                mib(&run["peak_rss_kib"]),
                num(&run["per_session_kib"], 0),
                run["failed"].as_u64().map_or("-".into(), |f| f.to_string()),
                run["stopped"].as_str().map_or(String::new(), |why| format!("  stopped: {why}")),
            );
        }
        print_ratios(runs);
    }
    print_targets(&by_sessions);
    if !scale.is_empty() {
        println!();
        println!("scale runs");
        for run in scale {
            print_scale(run);
        }
    }
    let face_failed =
        runs.iter().filter(|r| r["label"] == FACE).any(|r| r["failed"].as_u64() != Some(0) || !r["stopped"].is_null());
    if check && face_failed {
        return Err("a run of the face had a failed call or stopped early (--check)".into());
    }
    Ok(())
}

/// The face against each other way: calls/s, p50, p99, start, RSS.
fn print_ratios(runs: &[&Value]) {
    let Some(face) = runs.iter().find(|r| r["label"] == FACE) else { return };
    let others: Vec<_> = runs.iter().filter(|r| r["label"] != FACE).collect();
    if others.is_empty() {
        return;
    }
    println!("  face / way:    calls/s    p50    p99  start  idle RSS  peak RSS");
    for other in others {
        let ratio = |pick: fn(&Value) -> &Value| match (pick(face).as_f64(), pick(other).as_f64()) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
            _ => "-".into(),
        };
        println!(
            "    {:<12} {:>8} {:>6} {:>6} {:>6} {:>9} {:>9}",
            other["label"].as_str().unwrap_or("?"),
            ratio(|r| &r["load"]["calls_per_s"]),
            ratio(|r| &r["load"]["p50_ms"]),
            ratio(|r| &r["load"]["p99_ms"]),
            ratio(|r| &r["start_ms"]),
            ratio(|r| &r["idle"]["rss_kib"]),
            ratio(|r| &r["peak_rss_kib"]),
        );
    }
}

/// The targets of issue 43, each with its figures: met or missed, never
/// asserted.
fn print_targets(by_sessions: &BTreeMap<u64, Vec<&Value>>) {
    println!();
    println!("targets (reported, not asserted)");
    let find = |sessions: u64, label: &str| {
        by_sessions.get(&sessions).and_then(|runs| runs.iter().find(|r| r["label"] == label).copied())
    };
    // At 200 sessions, or at the most this run measured.
    let most = by_sessions.keys().copied().filter(|&s| s <= TARGET_SESSIONS).max();
    if let Some(most) = most {
        if most == TARGET_SESSIONS {
            println!("  at {most} sessions:");
        } else {
            println!("  at {most} sessions (the targets are at {TARGET_SESSIONS}):");
        }
        let calls = |label| find(most, label).and_then(|r| r["load"]["calls_per_s"].as_f64());
        let peak = |label| find(most, label).and_then(|r| r["peak_rss_kib"].as_f64()).map(|kib| kib / 1024.0);
        target("face calls/s >= 1.2x supergateway's", "calls/s", calls(FACE), calls("supergateway"), |a, b| {
            a >= 1.2 * b
        });
        target("face calls/s >= 0.9x mcp-proxy's", "calls/s", calls(FACE), calls("mcp-proxy"), |a, b| a >= 0.9 * b);
        target("face tree RSS at peak <= 0.5x mcp-proxy's", "MiB", peak(FACE), peak("mcp-proxy"), |a, b| a <= 0.5 * b);
        match find(most, FACE) {
            Some(face) => {
                let failed = face["failed"].as_u64().unwrap_or(0);
                let stopped = face["stopped"].as_str();
                let met = failed == 0 && stopped.is_none();
                let figure = match stopped {
                    Some(_) => format!("{failed} failed, stopped early"),
                    None => format!("{failed} failed"),
                };
                row("the face: no failed call", &figure, met);
            }
            None => println!("    the face was not measured"),
        }
    }
    println!("  at 1 session:");
    let p50 = |label| find(1, label).and_then(|r| r["load"]["p50_ms"].as_f64());
    match (p50(FACE), p50("direct")) {
        (Some(face), Some(direct)) => row(
            "face p50 at most 0.5 ms over the direct floor",
            &format!("{:+.3} ms ({face:.3} vs {direct:.3})", face - direct),
            face - direct <= 0.5,
        ),
        _ => println!("    face p50 over the direct floor: not measured"),
    }
}

fn target(name: &str, unit: &str, face: Option<f64>, other: Option<f64>, met: fn(f64, f64) -> bool) {
    match (face, other) {
        (Some(a), Some(b)) if b > 0.0 => row(name, &format!("{:.2}x ({a:.0} vs {b:.0} {unit})", a / b), met(a, b)),
        _ => println!("    {name}: not measured"),
    }
}

fn row(name: &str, figure: &str, met: bool) {
    println!("    {name:<46} {figure:<30} {}", if met { "met" } else { "MISSED" });
}

/// A run with a hostile session or a soak.
fn print_scale(run: &Value) {
    let label = run["label"].as_str().unwrap_or("?");
    if !run["hostile"].is_null() {
        let (without, with) = (&run["load"], &run["hostile"]["calls"]);
        println!(
            "  {label}: {} open, {} active; p99 {} ms without, {} ms with a hostile session ({}); calls/s {} and {}; \
             {} MiB idle ({} KiB per session), {} MiB at peak; failed {}",
            run["sessions"],
            run["active"],
            num(&without["p99_ms"], 2),
            num(&with["p99_ms"], 2),
            run["hostile"]["mode"].as_str().unwrap_or("?"),
            num(&without["calls_per_s"], 0),
            num(&with["calls_per_s"], 0),
            mib(&run["idle"]["rss_kib"]),
            num(&run["per_session_kib"], 0),
            mib(&run["peak_rss_kib"]),
            run["failed"],
        );
    }
    let soak = &run["soak"];
    if !soak.is_null() {
        let at = |name: &str| format!("{} MiB, {} fds", mib(&soak[name]["rss_kib"]), soak[name]["fds"]);
        let growth =
            match (soak["start"]["rss_kib"].as_f64(), soak["end"]["rss_kib"].as_f64(), soak["sessions"].as_f64()) {
                (Some(start), Some(end), Some(n)) if n > 0.0 => format!("; {:.2} KiB per session", (end - start) / n),
                _ => String::new(),
            };
        println!(
            "  {label} soak: {} calls over {} sessions ({} at a time), {} calls/s, p99 {} ms, failed {}; \
             tree at start {}, middle {}, end {}{growth}",
            soak["calls"]["ok"],
            soak["sessions"],
            run["sessions"],
            num(&soak["calls"]["calls_per_s"], 0),
            num(&soak["calls"]["p99_ms"], 2),
            run["failed"],
            at("start"),
            at("middle"),
            at("end"),
        );
    }
    if let Some(why) = run["stopped"].as_str() {
        println!("    stopped early: {why}");
    }
}

fn num(value: &Value, decimals: usize) -> String {
    value.as_f64().map_or("-".into(), |v| format!("{v:.decimals$}"))
}

fn mib(kib: &Value) -> String {
    kib.as_f64().map_or("-".into(), |k| format!("{:.1}", k / 1024.0))
}
