//! One run's figures: printed for a person, and appended as one JSON line
//! for `compare`.

use crate::hostile::Mode;
use crate::load::{percentile_ms, Tally};
use crate::options::Options;
use crate::soak::Soak;
use crate::tree::Snapshot;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

pub struct HostileRun {
    pub mode: Mode,
    pub tally: Tally,
    /// Requests it wrote, and connections the server ended under it.
    pub written: u64,
    pub ended: u64,
    /// The tree's peak while it ran.
    pub peak_kib: Option<u64>,
}

pub struct SoakRun {
    pub run: Soak,
    pub start: Option<Snapshot>,
    pub end: Option<Snapshot>,
    /// Whether the tree was known (a server started here, or `--pid`).
    pub measured: bool,
}

pub struct Figures {
    pub label: String,
    pub url: String,
    pub sessions: usize,
    pub active: usize,
    pub in_flight: usize,
    pub cap_kib: u64,
    pub start_ms: Option<f64>,
    /// The tree with its first session open, then with all of them open.
    pub base: Option<Snapshot>,
    pub idle: Option<Snapshot>,
    pub peak_kib: Option<u64>,
    pub load: Option<Tally>,
    pub hostile: Option<HostileRun>,
    pub soak: Option<SoakRun>,
    /// Why the run ended early.
    pub stopped: Option<String>,
}

/// The figures of a tally.
struct Summary {
    ok: u64,
    failed: u64,
    calls_per_s: f64,
    p50: Option<f64>,
    p99: Option<f64>,
}

fn summary(tally: &Tally) -> Summary {
    let mut samples = tally.latencies.clone();
    Summary {
        ok: tally.ok(),
        failed: tally.failed,
        calls_per_s: tally.calls_per_s(),
        p50: percentile_ms(&mut samples, 0.5),
        p99: percentile_ms(&mut samples, 0.99),
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn ms(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{v:.2} ms"))
}

impl Figures {
    pub fn new(options: &Options, url: &str, cap_kib: u64) -> Figures {
        Figures {
            label: options.label.clone(),
            url: url.to_owned(),
            sessions: options.sessions,
            active: options.active.unwrap_or(options.sessions),
            in_flight: options.in_flight,
            cap_kib,
            start_ms: None,
            base: None,
            idle: None,
            peak_kib: None,
            load: None,
            hostile: None,
            soak: None,
            stopped: None,
        }
    }

    /// The tree's RSS per open session beyond the first, in KiB.
    fn per_session_kib(&self) -> Option<f64> {
        let (base, idle) = (self.base?, self.idle?);
        (self.sessions > 1).then(|| (idle.rss_kib as f64 - base.rss_kib as f64) / (self.sessions - 1) as f64)
    }

    /// Failed calls of every part of the run.
    pub fn failed(&self) -> u64 {
        [self.load.as_ref(), self.hostile.as_ref().map(|h| &h.tally), self.soak.as_ref().map(|s| &s.run.tally)]
            .into_iter()
            .flatten()
            .map(|t| t.failed)
            .sum()
    }

    pub fn print(&self) {
        if self.soak.is_some() {
            println!("{} ({}): soak, {} sessions at a time, coming and going", self.label, self.url, self.sessions);
        } else {
            println!(
                "{} ({}): {} sessions open, {} active, {} in flight each",
                self.label, self.url, self.sessions, self.active, self.in_flight
            );
        }
        println!("  {:<36} {}", "start to first result", ms(self.start_ms));
        if let Some(idle) = self.idle {
            let per = self
                .per_session_kib()
                .map_or(String::new(), |kib| format!(", {kib:.0} KiB per session beyond the first"));
            println!(
                "  {:<36} {:.1} MiB, {} processes, {} fds{per}",
                "tree idle, the sessions open",
                mib(idle.rss_kib),
                idle.processes,
                idle.fds
            );
        }
        if let Some(tally) = &self.load {
            print_tally("calls", tally);
        }
        if let Some(peak) = self.peak_kib {
            println!("  {:<36} {:.1} MiB", "tree at peak (sampled every 200 ms)", mib(peak));
        }
        if let Some(hostile) = &self.hostile {
            print_tally(&format!("with a hostile session ({})", hostile.mode.name()), &hostile.tally);
            let (without, with) = (self.load.as_ref().map(summary), summary(&hostile.tally));
            if let (Some(before), Some(after)) = (without.and_then(|s| s.p99), with.p99) {
                println!("  {:<36} {:.2}x", "  p99 with it / without it", after / before);
            }
            println!(
                "  {:<36} {} requests written, {} of its connections ended by the server",
                "  the hostile session", hostile.written, hostile.ended
            );
            if let Some(peak) = hostile.peak_kib {
                println!("  {:<36} {:.1} MiB", "  tree at peak with it", mib(peak));
            }
        }
        if let Some(soak) = &self.soak {
            print_tally("soak", &soak.run.tally);
            println!(
                "  {:<36} {} opened, {} did not open, {} DELETEs failed",
                "  sessions", soak.run.sessions, soak.run.open_failed, soak.run.close_failed
            );
            if let (Some(start), Some(end)) = (soak.start, soak.end) {
                if soak.run.sessions > 0 {
                    let per = (end.rss_kib as f64 - start.rss_kib as f64) / soak.run.sessions as f64;
                    println!("  {:<36} {per:.2} KiB per session that came and went", "  RSS growth, start to end");
                }
            }
            if soak.measured {
                for (name, snap) in [("start", soak.start), ("middle", Some(soak.run.middle)), ("end", soak.end)] {
                    if let Some(s) = snap {
                        println!(
                            "  {:<36} {:.1} MiB, {} fds, {} processes",
                            format!("  tree at the {name}"),
                            mib(s.rss_kib),
                            s.fds,
                            s.processes
                        );
                    }
                }
            }
        }
        if let Some(why) = &self.stopped {
            println!("  stopped early: {why}");
        }
        let failed = self.failed();
        println!("  {}", if failed == 0 { "no failed call".to_owned() } else { format!("{failed} FAILED calls") });
    }

    pub fn to_json(&self) -> Value {
        let snap =
            |s: Option<Snapshot>| s.map(|s| json!({"rss_kib": s.rss_kib, "fds": s.fds, "processes": s.processes}));
        json!({
            "label": self.label,
            "sessions": self.sessions,
            "active": self.active,
            "in_flight": self.in_flight,
            "start_ms": self.start_ms,
            "base": snap(self.base),
            "idle": snap(self.idle),
            "per_session_kib": self.per_session_kib(),
            "peak_rss_kib": self.peak_kib,
            "load": self.load.as_ref().map(tally_json),
            "hostile": self.hostile.as_ref().map(|h| {
                json!({
                    "mode": h.mode.name(),
                    "calls": tally_json(&h.tally),
                    "written": h.written,
                    "ended": h.ended,
                    "peak_rss_kib": h.peak_kib,
                })
            }),
            "soak": self.soak.as_ref().map(|s| json!({
                "calls": tally_json(&s.run.tally),
                "sessions": s.run.sessions,
                "open_failed": s.run.open_failed,
                "close_failed": s.run.close_failed,
                "start": snap(s.start),
                "middle": s.measured.then(|| snap(Some(s.run.middle))),
                "end": snap(s.end),
            })),
            "failed": self.failed(),
            "memory_cap_kib": self.cap_kib,
            "stopped": self.stopped,
        })
    }

    pub fn append_json(&self, file: &Path) -> Result<(), String> {
        let mut out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .map_err(|e| format!("cannot open {}: {e}", file.display()))?;
        writeln!(out, "{}", self.to_json()).map_err(|e| format!("cannot write {}: {e}", file.display()))
    }
}

fn print_tally(name: &str, tally: &Tally) {
    let s = summary(tally);
    println!(
        "  {:<36} {} ok, {} failed in {:.1} s: {:.0} calls/s, p50 {}, p99 {}",
        name,
        s.ok,
        s.failed,
        tally.elapsed.as_secs_f64(),
        s.calls_per_s,
        ms(s.p50),
        ms(s.p99)
    );
    for (kind, count) in &tally.kinds {
        println!("  {:<36} {count}", format!("  failed: {kind}"));
    }
    for text in &tally.first {
        println!("    e.g. {text}");
    }
}

fn tally_json(tally: &Tally) -> Value {
    let s = summary(tally);
    json!({
        "ok": s.ok,
        "failed": s.failed,
        "kinds": tally.kinds,
        "first_failures": tally.first,
        "elapsed_s": tally.elapsed.as_secs_f64(),
        "calls_per_s": s.calls_per_s,
        "p50_ms": s.p50,
        "p99_ms": s.p99,
    })
}
