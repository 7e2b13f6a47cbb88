//! The latency of small round trips: the same request timed on both sides
//! in alternating blocks, and again with every process on one CPU.

use crate::peer::{drop_peer, excerpt, Peer, Request, Side};
use crate::pin;
use crate::setup::Paths;
use serde_json::Value;
use std::time::Duration;

/// Samples are taken in blocks that alternate between the two sides, so
/// that a drift of the machine (clock frequency, other load) falls on both.
const BLOCK: usize = 500;

/// A request timed on both sides, with a check of its first result on each.
#[derive(Clone)]
pub struct Operation {
    pub name: &'static str,
    pub method: &'static str,
    pub params: Value,
    pub check: fn(&Value) -> Result<(), String>,
}

impl Operation {
    pub fn new(name: &'static str, method: &'static str, params: Value) -> Operation {
        Operation { name, method, params, check: |_| Ok(()) }
    }

    pub fn with_check(self, check: fn(&Value) -> Result<(), String>) -> Operation {
        Operation { check, ..self }
    }

    fn request(&self, side: Side) -> Request {
        Request::new(side, self.method, self.params.clone())
    }
}

pub fn expect_text(result: &Value, text: &str) -> Result<(), String> {
    match result["content"][0]["text"].as_str() {
        Some(got) if got == text => Ok(()),
        _ => Err(format!("expected the text {text:?}, got {}", excerpt(result.to_string().as_bytes()))),
    }
}

pub fn expect_tools(result: &Value, count: usize) -> Result<(), String> {
    match result["tools"].as_array() {
        Some(tools) if tools.len() == count => Ok(()),
        _ => Err(format!("expected {count} tools, got {}", excerpt(result.to_string().as_bytes()))),
    }
}

/// The figures of one operation.
pub struct LatencyRow {
    pub name: &'static str,
    pub direct: Vec<Duration>,
    pub bridged: Vec<Duration>,
    /// The bridge's CPU time per round trip, warm-up included.
    pub bridge_cpu: Option<Duration>,
}

/// `n` timed round trips per side after `warmup` untimed ones, in
/// alternating blocks.
pub fn latency(
    direct: &mut Peer,
    bridged: &mut Peer,
    operation: &Operation,
    n: usize,
    warmup: usize,
) -> Result<LatencyRow, String> {
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
pub fn on_one_cpu(paths: &Paths, echo: &Operation, n: usize, warmup: usize) -> Result<Vec<LatencyRow>, String> {
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
