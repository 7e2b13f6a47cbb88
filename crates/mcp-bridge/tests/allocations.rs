//! The allocations of a small `tools/call` round trip through the front
//! end ("a small request pays a few microseconds"). Time on this
//! machine moves by microseconds from run to run; the number of
//! allocations does not, and each one costs tens of nanoseconds. The front
//! end runs in process over tokio's in-memory pipes with a scripted
//! upstream server that answers without parsing, on one thread, so that a
//! counter of that thread's allocations sees the bridge's work and the
//! script's, and nothing else.
//!
//! The budget is the count of the raw path's round trip with a little
//! room (the figure is in docs/benchmarks.md): a change
//! that brings back a `Value` tree for the envelope, or a `Map` built only
//! to be serialized, goes over it.

use mcp_bridge::{Config, MemoryLink, UpstreamSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// The most allocations one small round trip may cost.
const BUDGET: u64 = 40;

/// The system allocator, counting the allocations of each thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call goes to `System` unchanged; the counter is a
// thread-local `Cell` with a const initializer, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn count() {
    // `try_with`: a thread that is ending has no counter any more.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A 2026-07-28 server in a few lines: it finds the id and the method in
/// the text, so that its own allocations stay out of the count.
async fn script(stream: DuplexStream) {
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Some(at) = line.find("\"id\":") else { continue };
        let rest = &line[at + 5..];
        let id = &rest[..rest.find([',', '}']).unwrap_or(rest.len())];
        let result = if line.contains("\"server/discover\"") {
            r#"{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}"#
        } else if line.contains("\"tools/call\"") {
            r#"{"resultType":"complete","content":[{"type":"text","text":"hello"}]}"#
        } else if line.contains("\"method\"") {
            r#"{"resultType":"complete"}"#
        } else {
            continue;
        };
        let response = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n");
        if write.write_all(response.as_bytes()).await.is_err() {
            break;
        }
    }
}

#[test]
fn a_small_call_round_trip_stays_within_its_allocation_budget() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let Ok(runtime) = runtime else { panic!("no runtime") };
    let per_round = runtime.block_on(async {
        let link = MemoryLink::new(|| {
            let (client, server) = tokio::io::duplex(1 << 16);
            tokio::spawn(script(server));
            client
        });
        let mut config = Config::new(mcp_bridge::Profile::vscode(), UpstreamSpec::Memory(link));
        config.fallback_name = "s".into();
        config.max_line_bytes = 1 << 20;
        let (client, bridge) = tokio::io::duplex(1 << 16);
        let (bridge_read, bridge_write) = tokio::io::split(bridge);
        let serving = tokio::spawn(mcp_bridge::serve(config, bridge_read, bridge_write));
        let (read, mut write) = tokio::io::split(client);
        let mut read = BufReader::new(read);
        let mut line = String::new();
        let mut round_trip = async |message: String| {
            write.write_all(message.as_bytes()).await.map_err(|e| e.to_string())?;
            line.clear();
            read.read_line(&mut line).await.map_err(|e| e.to_string())?;
            Ok::<String, String>(line.clone())
        };
        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let answer = round_trip(format!("{initialize}\n")).await;
        assert!(answer.as_deref().is_ok_and(|a| a.contains("\"serverInfo\"")), "initialize: {answer:?}");
        let call = |id: u64| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}}}}}}"#) + "\n"
        };
        // Warm up: the tables and buffers reach their size.
        for id in 1..=100 {
            round_trip(call(id)).await.unwrap_or_default();
        }
        const ROUNDS: u64 = 1000;
        let mut messages: Vec<String> = (101..=100 + ROUNDS).map(call).collect();
        messages.reverse();
        let before = allocations();
        let mut last = String::new();
        while let Some(message) = messages.pop() {
            last = round_trip(message).await.unwrap_or_default();
        }
        let spent = allocations() - before;
        assert_eq!(
            last,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"hello\"}}]}}}}\n", 100 + ROUNDS),
            "the last response"
        );
        serving.abort();
        spent as f64 / ROUNDS as f64
    });
    println!("allocations per small round trip: {per_round:.1} (budget {BUDGET})");
    assert!(per_round > 0.0, "the counter counts");
    assert!(per_round <= BUDGET as f64, "{per_round:.1} allocations per round trip, over the budget of {BUDGET}");
}
