//! The closed loop: sessions opened a few at a time, then each active one
//! keeps K calls in flight (K lanes, one keep-alive connection each), each
//! lane sending its next call when the last one's answer came, until the
//! calls of the phase are used up or its time is over.

use crate::client::{Call, Failure, Lane, Session, Target};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// How a phase ends.
#[derive(Clone, Copy)]
pub enum Until {
    /// After this many calls in all.
    Calls(u64),
    Elapsed(Duration),
}

/// What the calls of a phase gave.
#[derive(Default)]
pub struct Tally {
    pub latencies: Vec<Duration>,
    pub failed: u64,
    /// Each kind of failure and its count.
    pub kinds: BTreeMap<&'static str, u64>,
    /// The first failures, word for word.
    pub first: Vec<String>,
    pub elapsed: Duration,
}

impl Tally {
    pub fn ok(&self) -> u64 {
        self.latencies.len() as u64
    }

    pub fn fail(&mut self, failure: &Failure) {
        self.failed += 1;
        *self.kinds.entry(failure.kind()).or_default() += 1;
        if self.first.len() < 5 {
            self.first.push(failure.to_string());
        }
    }

    pub fn merge(&mut self, other: Tally) {
        self.latencies.extend(other.latencies);
        self.failed += other.failed;
        for (kind, count) in other.kinds {
            *self.kinds.entry(kind).or_default() += count;
        }
        for text in other.first {
            if self.first.len() < 5 {
                self.first.push(text);
            }
        }
    }

    pub fn calls_per_s(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.ok() as f64 / secs
        } else {
            0.0
        }
    }
}

/// What every task of a run shares.
pub struct Shared {
    pub target: Arc<Target>,
    pub call: Call,
    pub call_timeout: Duration,
    /// Raised by the memory guard or a lost server: every loop ends.
    pub stop: AtomicBool,
}

/// An open session and its lanes.
pub struct Open {
    pub session: Session,
    pub lanes: Vec<Lane>,
}

/// Opens `count` sessions, `parallel` at a time; the first failure ends it.
pub async fn open_sessions(shared: &Arc<Shared>, count: usize, parallel: usize) -> Result<Vec<Open>, String> {
    let mut opened = Vec::with_capacity(count);
    let mut tasks = JoinSet::new();
    let mut started = 0;
    while opened.len() < count {
        while started < count && tasks.len() < parallel.max(1) {
            let shared = shared.clone();
            tasks.spawn(async move {
                let mut lane = Lane::new(shared.target.clone());
                // A session of a gateway that starts a child for it takes
                // the child's start: the initialize gets the same limit as
                // a call, and at least a minute.
                let limit = shared.call_timeout.max(Duration::from_secs(60));
                match tokio::time::timeout(limit, lane.open()).await {
                    Ok(Ok(session)) => Ok(Open { session, lanes: vec![lane] }),
                    Ok(Err(failure)) => Err(failure.to_string()),
                    Err(_) => Err("initialize got no answer in time".to_owned()),
                }
            });
            started += 1;
        }
        if shared.stop.load(Ordering::Relaxed) {
            return Err(format!("stopped after {} sessions", opened.len()));
        }
        match tasks.join_next().await {
            Some(Ok(Ok(open))) => opened.push(open),
            Some(Ok(Err(why))) => return Err(format!("session {} did not open: {why}", opened.len() + 1)),
            Some(Err(e)) => return Err(format!("a task ended: {e}")),
            None => break,
        }
    }
    Ok(opened)
}

/// Gives each session `lanes` lanes (connections are opened on first use).
pub fn widen(sessions: &mut [Open], lanes: usize, target: &Arc<Target>) {
    for open in sessions {
        while open.lanes.len() < lanes {
            open.lanes.push(Lane::new(target.clone()));
        }
    }
}

/// Runs every lane of `sessions` until `until`; gives the sessions back.
pub async fn phase(shared: &Arc<Shared>, sessions: Vec<Open>, until: Until) -> (Vec<Open>, Tally) {
    let budget = Arc::new(AtomicI64::new(match until {
        Until::Calls(n) => i64::try_from(n).unwrap_or(i64::MAX),
        Until::Elapsed(_) => i64::MAX,
    }));
    let started = Instant::now();
    let deadline = match until {
        Until::Elapsed(d) => Some(started + d),
        Until::Calls(_) => None,
    };
    let mut tasks = JoinSet::new();
    for (index, open) in sessions.into_iter().enumerate() {
        let Open { session, lanes } = open;
        for lane in lanes {
            let (shared, budget, session) = (shared.clone(), budget.clone(), session.clone());
            tasks.spawn(async move {
                let (lane, tally) = run_lane(&shared, lane, &session, &budget, deadline).await;
                (index, session, lane, tally)
            });
        }
    }
    let mut total = Tally::default();
    let mut back: BTreeMap<usize, Open> = BTreeMap::new();
    while let Some(joined) = tasks.join_next().await {
        let Ok((index, session, lane, tally)) = joined else { continue };
        total.merge(tally);
        back.entry(index).or_insert_with(|| Open { session, lanes: Vec::new() }).lanes.push(lane);
    }
    total.elapsed = started.elapsed();
    (back.into_values().collect(), total)
}

async fn run_lane(
    shared: &Shared,
    mut lane: Lane,
    session: &Session,
    budget: &AtomicI64,
    deadline: Option<Instant>,
) -> (Lane, Tally) {
    let mut tally = Tally::default();
    loop {
        if shared.stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if budget.fetch_sub(1, Ordering::Relaxed) <= 0 {
            break;
        }
        let sent = Instant::now();
        match tokio::time::timeout(shared.call_timeout, lane.call(session, &shared.call)).await {
            Ok(Ok(())) => tally.latencies.push(sent.elapsed()),
            Ok(Err(failure)) => tally.fail(&failure),
            Err(_) => {
                lane.abandon();
                tally.fail(&Failure::Timeout);
            }
        }
    }
    (lane, tally)
}

/// The sample at rank `p` (nearest rank), in ms.
pub fn percentile_ms(samples: &mut [Duration], p: f64) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_unstable();
    let rank = ((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len());
    samples.get(rank - 1).map(|d| d.as_secs_f64() * 1e3)
}
