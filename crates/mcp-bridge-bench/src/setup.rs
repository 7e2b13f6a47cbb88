//! What the bench runs and where: the executables it measures, built
//! first when cargo started it, and how busy the machine is.

use crate::options::Options;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The executables the bench runs.
pub struct Paths {
    pub bridge: PathBuf,
    pub upstream: PathBuf,
    /// `relay`, beside `fast-upstream` (the same package).
    pub relay: PathBuf,
}

impl Paths {
    /// The given paths, or the binaries next to this executable, built
    /// first when cargo started the bench.
    pub fn locate(options: &Options) -> Result<Paths, String> {
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

    pub fn describe(&self) {
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
pub fn describe_machine() {
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
fn build(cargo: &str, dir: &Path, targets: &[(&str, &str)]) -> Result<(), String> {
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
