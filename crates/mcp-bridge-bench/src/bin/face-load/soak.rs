//! The soak: sessions that come and go, as clients do, until a number of
//! calls. Each worker opens a session on a new connection, makes 1 to 40
//! calls, ends it with DELETE and starts over; the tree's RSS and fds are
//! taken at the start, when half the calls are done, and at the end, so a
//! leak of sessions, streams, children or connections shows as growth.

use crate::client::{Failure, Lane};
use crate::load::{Shared, Tally};
use crate::tree::{self, Snapshot};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// What the soak did.
#[derive(Default)]
pub struct Soak {
    pub tally: Tally,
    pub sessions: u64,
    /// Sessions that did not open, or whose DELETE failed.
    pub open_failed: u64,
    pub close_failed: u64,
    pub middle: Snapshot,
}

/// Runs `workers` sessions at a time until `calls` calls were made.
pub async fn run(shared: &Arc<Shared>, root: u32, workers: usize, calls: u64) -> Soak {
    let budget = Arc::new(AtomicI64::new(i64::try_from(calls).unwrap_or(i64::MAX)));
    let done = Arc::new(AtomicU64::new(0));
    let counts = Arc::new([AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)]);
    let started = Instant::now();
    let mut tasks = JoinSet::new();
    for worker in 0..workers.max(1) {
        let (shared, budget, done, counts) = (shared.clone(), budget.clone(), done.clone(), counts.clone());
        tasks.spawn(async move { work(&shared, worker as u64, &budget, &done, &counts).await });
    }
    // The middle: a snapshot once half the calls are answered.
    let middle = {
        let done = done.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            while done.load(Ordering::Relaxed) < calls / 2 && !shared.stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            tokio::task::spawn_blocking(move || tree::snapshot(root)).await.unwrap_or_default()
        })
    };
    let mut soak = Soak::default();
    while let Some(joined) = tasks.join_next().await {
        if let Ok(tally) = joined {
            soak.tally.merge(tally);
        }
    }
    soak.tally.elapsed = started.elapsed();
    soak.middle = middle.await.unwrap_or_default();
    soak.sessions = counts[0].load(Ordering::Relaxed);
    soak.open_failed = counts[1].load(Ordering::Relaxed);
    soak.close_failed = counts[2].load(Ordering::Relaxed);
    soak
}

/// One worker's sessions, one after another. `counts`: sessions opened,
/// opens failed, DELETEs failed.
async fn work(shared: &Shared, seed: u64, budget: &AtomicI64, done: &AtomicU64, counts: &[AtomicU64; 3]) -> Tally {
    let mut tally = Tally::default();
    let mut random = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let limit = shared.call_timeout.max(Duration::from_secs(60));
    while budget.load(Ordering::Relaxed) > 0 && !shared.stop.load(Ordering::Relaxed) {
        let mut lane = Lane::new(shared.target.clone());
        let session = match tokio::time::timeout(limit, lane.open()).await {
            Ok(Ok(session)) => session,
            Ok(Err(failure)) => {
                counts[1].fetch_add(1, Ordering::Relaxed);
                tally.fail(&failure);
                continue;
            }
            Err(_) => {
                counts[1].fetch_add(1, Ordering::Relaxed);
                tally.fail(&Failure::Timeout);
                continue;
            }
        };
        counts[0].fetch_add(1, Ordering::Relaxed);
        // A linear congruential step: the same sequence in every run.
        random = random.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let calls = 1 + (random >> 33) % 40;
        for _ in 0..calls {
            if budget.fetch_sub(1, Ordering::Relaxed) <= 0 || shared.stop.load(Ordering::Relaxed) {
                break;
            }
            let sent = Instant::now();
            match tokio::time::timeout(shared.call_timeout, lane.call(&session, &shared.call)).await {
                Ok(Ok(())) => tally.latencies.push(sent.elapsed()),
                Ok(Err(failure)) => tally.fail(&failure),
                Err(_) => {
                    lane.abandon();
                    tally.fail(&Failure::Timeout);
                }
            }
            done.fetch_add(1, Ordering::Relaxed);
        }
        if !matches!(tokio::time::timeout(limit, lane.close(&session)).await, Ok(Ok(()))) {
            counts[2].fetch_add(1, Ordering::Relaxed);
        }
    }
    tally
}
