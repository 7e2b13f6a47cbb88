//! Big results: the throughput of a 16 MiB text result (and the same text
//! as `structuredContent`), back to back and after a pause each.

use crate::peer::{Peer, Request, Side};
use crate::units::percentile;
use serde_json::{json, Value};
use std::time::Duration;

/// The size of the text of the big result; the result line holds it twice.
pub const BIG_BYTES: usize = 16 << 20;

/// The pause before each big result of the idle rounds: longer than the
/// bridge keeps a big line's buffer (1 s).
pub const AFTER_IDLE: Duration = Duration::from_millis(1500);

/// The big result is one text block of [`BIG_BYTES`] and the same text as
/// `structuredContent`.
fn expect_big(result: &Value) -> Result<(), String> {
    let content = result["content"].as_array().map(Vec::as_slice).unwrap_or_default();
    let lengths: Vec<usize> = content.iter().filter_map(|block| block["text"].as_str().map(str::len)).collect();
    let structured = result["structuredContent"]["text"].as_str().map(str::len);
    if lengths == [BIG_BYTES] && structured == Some(BIG_BYTES) {
        Ok(())
    } else {
        Err(format!("expected one text of {BIG_BYTES} bytes and the same structuredContent, got text blocks of {lengths:?} bytes and structuredContent.text of {structured:?}"))
    }
}

/// Per side: the time and length of each timed big result.
pub struct Throughput {
    pub line_bytes: [usize; 2],
    pub times: [Vec<Duration>; 2],
}

/// Big results, each `pause` after the one before (none for back to
/// back), after one for warm-up.
pub fn throughput(direct: &mut Peer, bridged: &mut Peer, rounds: usize, pause: Duration) -> Result<Throughput, String> {
    let params = json!({"name": "big", "arguments": {"bytes": BIG_BYTES}});
    let requests =
        [Request::new(Side::Direct, "tools/call", params.clone()), Request::new(Side::Bridged, "tools/call", params)];
    let mut line_bytes = [0; 2];
    for ((peer, request), bytes) in [&mut *direct, &mut *bridged].into_iter().zip(&requests).zip(&mut line_bytes) {
        let first = peer.exchange(request)?;
        expect_big(&first.result).map_err(|e| format!("{:?} side, big: {e}", peer.side))?;
        *bytes = first.bytes;
    }
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for ((peer, request), times) in [&mut *direct, &mut *bridged].into_iter().zip(&requests).zip(&mut times) {
            std::thread::sleep(pause);
            times.push(peer.exchange(request)?.elapsed);
        }
    }
    Ok(Throughput { line_bytes, times })
}

impl Throughput {
    /// The rate at rank `p` through the bridge over the rate directly.
    pub fn ratio_at(&self, p: f64) -> f64 {
        let rate = |side: usize| self.line_bytes[side] as f64 / percentile(&self.times[side], p).as_secs_f64();
        rate(1) / rate(0)
    }
}
