//! `face-load`: the load generator of the HTTP face's benchmark
//! (`scripts/bench-face`). It drives many Streamable HTTP sessions of a
//! 2025-11-25 client against one server, the face or any other, and
//! measures what an operator asks of a public endpoint: calls/s, p50/p99,
//! failed calls, the start to the first result, and the RSS and fds of the
//! server's whole process tree, idle with the sessions open and at peak.
//! It reports; it asserts no timing (`face-load --help`).
//!
//! # Layout
//!
//! - `options`: the command line.
//! - `client`: one session's requests on keep-alive connections (`sse`:
//!   the events of an answer).
//! - `server`: the server under test, started and ended here.
//! - `tree`: its process tree's RSS and fds, the sampler and memory guard.
//! - `load`: sessions opened, the closed loop of calls.
//! - `hostile`: one session that floods or reads slowly.
//! - `soak`: sessions that come and go.
//! - `report`: one run's figures, printed and as a JSON line.
//! - `compare`: several runs side by side, the ratios and the targets.

mod client;
mod compare;
mod hostile;
mod load;
mod options;
mod report;
mod server;
mod soak;
mod sse;
mod tree;

use client::{Call, Failure, Lane, Target};
use load::{Open, Shared, Until};
use options::{Asked, Options};
use report::Figures;
use server::Server;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long the tree is left alone before its RSS counts as idle.
const SETTLE: Duration = Duration::from_secs(1);
/// How long a server may take to listen and give its first result.
const START: Duration = Duration::from_secs(60);

fn main() {
    let result = match options::parse(std::env::args().skip(1)) {
        Ok(Asked::Help) => {
            println!("{}", options::USAGE);
            Ok(())
        }
        Ok(Asked::Compare { file, check }) => compare::print(&file, check),
        Ok(Asked::Run(options)) => run(&options),
        Err(message) => Err(message),
    };
    if let Err(message) = result {
        eprintln!("face-load: {message}");
        std::process::exit(1);
    }
}

fn run(options: &Options) -> Result<(), String> {
    let runtime = if options.threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(options.threads).enable_all().build()
    }
    .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let figures = runtime.block_on(measure(options))?;
    figures.print();
    if let Some(file) = &options.json {
        figures.append_json(file)?;
    }
    Ok(())
}

async fn measure(options: &Options) -> Result<Figures, String> {
    let (mut server, url) = match &options.server {
        options::Server::Command { command, url } => {
            let wants_port = command.iter().chain(url).any(|a| a.contains("{port}"));
            let port = if wants_port { server::free_port()?.to_string() } else { String::new() };
            let command: Vec<String> = command.iter().map(|a| a.replace("{port}", &port)).collect();
            let mut server = Server::spawn(&command)?;
            let url = match url {
                Some(url) => url.replace("{port}", &port),
                None => server.url(START)?,
            };
            (Some(server), url)
        }
        options::Server::Running { url, .. } => (None, url.clone()),
    };
    let root = match (&server, &options.server) {
        (Some(server), _) => Some(server.pid),
        (None, options::Server::Running { pid, .. }) => *pid,
        _ => None,
    };
    let shared = Arc::new(Shared {
        target: Arc::new(Target::parse(&url)?),
        call: Call::new(&options.tool, &options.arguments),
        call_timeout: options.call_timeout,
        stop: AtomicBool::new(false),
    });
    let cap_kib = match options.max_tree_mib {
        Some(mib) => mib * 1024,
        None => tree::available_kib().map_or(u64::MAX, |kib| kib.saturating_sub(3 << 20).max(1 << 20)),
    };
    let sampler = root.map(|root| tree::Sampler::start(root, cap_kib));
    // The memory guard: past the cap every loop ends, and the run says so.
    if let Some(sampler) = &sampler {
        let (over, shared) = (sampler.over.clone(), shared.clone());
        tokio::spawn(async move {
            while !over.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            shared.stop.store(true, Ordering::Relaxed);
        });
    }
    let mut figures = Figures::new(options, &url, cap_kib);
    let outcome = match options.soak {
        Some(calls) => soak(options, &shared, server.as_mut(), root, calls, &mut figures).await,
        None => load(options, &shared, server.as_mut(), root, sampler.as_ref(), &mut figures).await,
    };
    if let Err(why) = outcome {
        figures.stopped = Some(why);
    }
    if sampler.as_ref().is_some_and(tree::Sampler::is_over) {
        figures.stopped = Some(format!(
            "the memory guard: the tree's RSS passed {} MiB (--max-tree-mib){}",
            cap_kib / 1024,
            figures.stopped.as_ref().map_or(String::new(), |why| format!("; {why}"))
        ));
    }
    if let Some(server) = &mut server {
        if let Err(why) = server.check() {
            figures.stopped.get_or_insert(why);
        }
    }
    drop(sampler);
    if let Some(server) = server {
        server.stop();
    }
    Ok(figures)
}

/// Many sessions open, some of them calling; with `--hostile`, timed
/// again with the hostile session among them.
async fn load(
    options: &Options,
    shared: &Arc<Shared>,
    server: Option<&mut Server>,
    root: Option<u32>,
    sampler: Option<&tree::Sampler>,
    figures: &mut Figures,
) -> Result<(), String> {
    let mut sessions = Vec::new();
    if let Some(server) = server {
        let (first, start) = first_result(shared, server).await?;
        figures.start_ms = Some(start);
        sessions.push(first);
        // The tree with one session: the base of the cost per session.
        tokio::time::sleep(SETTLE).await;
        figures.base = snapshot(root).await;
    }
    let more = load::open_sessions(shared, options.sessions - sessions.len(), options.open_parallel).await;
    sessions.extend(more?);
    tokio::time::sleep(SETTLE).await;
    figures.idle = snapshot(root).await;
    let active = options.active.unwrap_or(options.sessions);
    let idle_ones = sessions.split_off(active);
    load::widen(&mut sessions, options.in_flight, &shared.target);
    let lanes = (active * options.in_flight) as u64;
    let (sessions, _) = load::phase(shared, sessions, Until::Calls(2 * lanes)).await;
    let until = options.duration.map_or(Until::Calls(options.calls), Until::Elapsed);
    if let Some(sampler) = sampler {
        sampler.reset();
    }
    let (sessions, tally) = load::phase(shared, sessions, until).await;
    figures.peak_kib = peak(sampler, root).await;
    figures.load = Some(tally);
    if let Some(mode) = options.hostile {
        let hostile = hostile::Hostile::start(&shared.target, &shared.call, mode, options.hostile_connections).await?;
        // Let it fill what it fills before the others are timed.
        tokio::time::sleep(Duration::from_secs(1)).await;
        if let Some(sampler) = sampler {
            sampler.reset();
        }
        let (_sessions, tally) = load::phase(shared, sessions, until).await;
        let (written, ended) = (hostile.written.load(Ordering::Relaxed), hostile.ended.load(Ordering::Relaxed));
        let peak_kib = peak(sampler, root).await;
        hostile.stop().await;
        figures.hostile = Some(report::HostileRun { mode, tally, written, ended, peak_kib });
    }
    drop(idle_ones);
    Ok(())
}

/// Sessions that come and go until `calls` calls.
async fn soak(
    options: &Options,
    shared: &Arc<Shared>,
    server: Option<&mut Server>,
    root: Option<u32>,
    calls: u64,
    figures: &mut Figures,
) -> Result<(), String> {
    if let Some(server) = server {
        let (mut first, start) = first_result(shared, server).await?;
        figures.start_ms = Some(start);
        if let Some(lane) = first.lanes.first_mut() {
            lane.close(&first.session).await.map_err(|f| format!("the first session's DELETE failed: {f}"))?;
        }
    }
    tokio::time::sleep(SETTLE).await;
    let start = snapshot(root).await;
    let root_or_zero = root.unwrap_or(0);
    let run = soak::run(shared, root_or_zero, options.sessions, calls).await;
    tokio::time::sleep(SETTLE).await;
    let end = snapshot(root).await;
    figures.soak = Some(report::SoakRun { run, start, end, measured: root.is_some() });
    Ok(())
}

/// From the spawn to the first result: the server may not listen yet, so
/// a refused connection is tried again every 5 ms.
async fn first_result(shared: &Arc<Shared>, server: &mut Server) -> Result<(Open, f64), String> {
    loop {
        let mut lane = Lane::new(shared.target.clone());
        match tokio::time::timeout(START, lane.open()).await {
            Ok(Ok(session)) => {
                let called = tokio::time::timeout(shared.call_timeout, lane.call(&session, &shared.call)).await;
                return match called {
                    Ok(Ok(())) => {
                        Ok((Open { session, lanes: vec![lane] }, server.spawned.elapsed().as_secs_f64() * 1e3))
                    }
                    Ok(Err(failure)) => Err(format!("the first call failed: {failure}")),
                    Err(_) => Err("the first call got no answer in time".into()),
                };
            }
            Ok(Err(Failure::Connect(why))) => {
                server.check()?;
                if server.spawned.elapsed() > START {
                    return Err(format!("the server did not listen in {START:?}: {why}{}", server.tail()));
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Ok(Err(failure)) => return Err(format!("the first initialize failed: {failure}{}", server.tail())),
            Err(_) => return Err(format!("the first initialize got no answer in {START:?}")),
        }
    }
}

/// The sampler's peak, or the tree's RSS now if that is higher: a phase
/// shorter than the sampler's period may have no sample of its own.
async fn peak(sampler: Option<&tree::Sampler>, root: Option<u32>) -> Option<u64> {
    let sampled = sampler?.peak_kib();
    let now = snapshot(root).await.map_or(0, |s| s.rss_kib);
    Some(sampled.max(now))
}

async fn snapshot(root: Option<u32>) -> Option<tree::Snapshot> {
    let root = root?;
    tokio::task::spawn_blocking(move || tree::snapshot(root)).await.ok()
}
