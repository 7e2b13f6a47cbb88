//! One CPU for the client and the processes it starts (Linux): the latency
//! of a small call then has no wake-up of a process on another, idle CPU
//! in it. On a small virtual machine such a wake-up costs tens of µs and
//! lands wherever the scheduler puts each process, so the figures of a
//! run with every CPU move by more than the bridge's whole work; on one
//! CPU they are the CPU time of the round trip, and steady.

/// Binds the calling thread to the first CPU it may run on; the processes
/// it starts inherit that. Returns the CPU.
#[cfg(target_os = "linux")]
pub fn to_one_cpu() -> Result<usize, String> {
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
    let allowed = sched_getaffinity(None).map_err(|e| format!("cannot read the CPU affinity: {e}"))?;
    let cpu = (0..CpuSet::MAX_CPU).find(|&cpu| allowed.is_set(cpu)).ok_or("no CPU is allowed")?;
    let mut one = CpuSet::new();
    one.set(cpu);
    sched_setaffinity(None, &one).map_err(|e| format!("cannot bind to CPU {cpu}: {e}"))?;
    Ok(cpu)
}

/// Other systems: no figures on one CPU.
#[cfg(not(target_os = "linux"))]
pub fn to_one_cpu() -> Result<usize, String> {
    Err("binding to one CPU is done on Linux only".into())
}
