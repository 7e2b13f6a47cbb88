//! The speed targets of the bridge, each beside its figure of this run,
//! so that one run says which are met.

/// The figures of one run that the targets name; `None` when the run
/// could not read one (a `/proc` file missing, say).
#[derive(Default)]
pub struct Figures {
    /// The median a small `tools/call` round trip gains through the bridge, µs.
    pub added_p50_us: Option<f64>,
    /// The bridge's CPU time per small `tools/call` round trip, µs.
    pub bridge_cpu_us: Option<f64>,
    /// The median the same round trip gains through a byte relay, µs:
    /// what two more pipe hops cost on this machine, whatever a bridge does.
    pub relay_added_p50_us: Option<f64>,
    /// The added p50 with the client and every process on one CPU, µs.
    pub one_cpu_added_p50_us: Option<f64>,
    /// The same through the relay, µs.
    pub one_cpu_relay_added_p50_us: Option<f64>,
    /// The CPU time per round trip on one CPU of the bridge and of the
    /// relay, µs.
    pub one_cpu_cpu_us: [Option<f64>; 2],
    /// Throughput of the 32 MiB result line at p50, bridged / direct.
    pub big_ratio: Option<f64>,
    /// `tools/list` of 2,000 tools that all need R6, bridged p50, ms.
    pub long_list_ms: Option<f64>,
    /// The bridge's own peak RSS after the big results, MiB.
    pub peak_rss_mib: Option<f64>,
    /// The bridge's idle RSS after the round trips, MiB.
    pub idle_rss_mib: Option<f64>,
}

/// How a figure compares with its bound.
#[derive(Clone, Copy)]
enum Bound {
    AtMost(f64),
    AtLeast(f64),
}

impl Figures {
    pub fn print(&self) {
        let rows = [
            ("small tools/call, added p50 (µs)", self.added_p50_us, Bound::AtMost(20.0)),
            ("small tools/call on one CPU, added p50 (µs)", self.one_cpu_added_p50_us, Bound::AtMost(20.0)),
            ("small tools/call, bridge CPU per round trip (µs)", self.bridge_cpu_us, Bound::AtMost(12.0)),
            ("small tools/call on one CPU, bridge CPU (µs)", self.one_cpu_cpu_us[0], Bound::AtMost(12.0)),
            ("32 MiB result line, throughput bridged/direct at p50", self.big_ratio, Bound::AtLeast(0.5)),
            ("tools/list of 2000 tools with R6, bridged p50 (ms)", self.long_list_ms, Bound::AtMost(5.0)),
            ("bridge peak RSS on the 32 MiB line (MiB)", self.peak_rss_mib, Bound::AtMost(64.0)),
            ("bridge idle RSS (MiB)", self.idle_rss_mib, Bound::AtMost(8.0)),
        ];
        println!();
        println!("{:<54} {:>10} {:>10} {:>8}", "targets (this run)", "figure", "target", "");
        for (name, figure, bound) in rows {
            let (target, met) = match bound {
                Bound::AtMost(limit) => (format!("≤ {limit}"), figure.map(|f| f <= limit)),
                Bound::AtLeast(limit) => (format!("≥ {limit}"), figure.map(|f| f >= limit)),
            };
            let figure = figure.map_or("?".into(), |f| format!("{f:.2}"));
            let verdict = match met {
                Some(true) => "met",
                Some(false) => "missed",
                None => "?",
            };
            println!("  {name:<52} {figure:>10} {target:>10} {verdict:>8}");
        }
        // With every CPU, where the scheduler wakes each process moves the
        // figures more than the bridge's work does: only the figures on one
        // CPU split.
        if let (Some(added), Some(floor)) = (self.one_cpu_added_p50_us, self.one_cpu_relay_added_p50_us) {
            println!(
                "  of the added p50 on one CPU, two more pipe hops (a byte relay) are {floor:.1} µs, the bridge's own work {:.1} µs",
                added - floor
            );
        }
        if let [Some(bridge), Some(relay)] = self.one_cpu_cpu_us {
            println!(
                "  of the bridge CPU on one CPU, a byte relay spends {relay:.1} µs (the pipes' system calls), the rest {:.1} µs",
                bridge - relay
            );
        }
        if let Some(floor) = self.relay_added_p50_us {
            println!(
                "  with every CPU, a byte relay adds {floor:.1} µs at p50: the wake-ups of processes on other CPUs"
            );
        }
    }
}
