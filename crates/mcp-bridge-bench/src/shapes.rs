//! More shapes of traffic: requests in flight at once, a long list on
//! fresh processes, and the start of a process to its first result.

use crate::latency::expect_tools;
use crate::peer::{drop_peer, Peer, Request, Side};
use crate::setup::Paths;
use crate::units::{millis, percentile};
use serde_json::json;
use std::time::{Duration, Instant};

/// The p50 time, in ms, to write `count` echo requests at once and read all
/// the responses, in any order (`Peer::burst`).
pub fn in_flight(direct: &mut Peer, bridged: &mut Peer, count: usize, rounds: usize) -> Result<[f64; 2], String> {
    let mut medians = [0.0; 2];
    for (peer, median) in [direct, bridged].into_iter().zip(&mut medians) {
        let request = Request::new(peer.side, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
        let mut samples = Vec::with_capacity(rounds);
        for round in 0..=rounds {
            let first = peer.next_id + 1;
            peer.next_id += count as u64;
            let lines: Vec<Vec<u8>> = (first..=peer.next_id).map(|id| request.line(id)).collect();
            let start = Instant::now();
            peer.burst(&lines, first)?;
            // Round 0 is the warm-up.
            if round > 0 {
                samples.push(start.elapsed());
            }
        }
        *median = millis(percentile(&samples, 0.5));
    }
    Ok(medians)
}

/// The p50 time, in ms, of a `tools/list` of `count` tools with nested
/// schemas, on fresh processes started with `--tools`, and the bridge's
/// mean CPU time per list, in ms (its own work, which an idle virtual CPU's
/// wake-up does not change, and which includes its 2,000 info lines).
pub fn long_list(paths: &Paths, count: usize, rounds: usize) -> Result<([f64; 2], Option<f64>), String> {
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
pub fn startup(paths: &Paths, rounds: usize) -> Result<[f64; 2], String> {
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
