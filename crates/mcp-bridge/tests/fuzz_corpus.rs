//! Replays the committed inputs of the fuzz targets through their
//! properties on stable Rust: the seed corpora (`fuzz/corpus/<target>/`)
//! and the inputs that once broke a property (`fuzz/regressions/<target>/`).
//! A regression input stays here after its fix, so the bug cannot return
//! unnoticed.

use mcp_bridge::props::{auth, framing, http, input, listen, raw, redirect, translate};
use std::path::PathBuf;

type Check = fn(&[u8]) -> Result<(), String>;

/// Each fuzz target, by the name of its folders, with its property.
const TARGETS: [(&str, Check); 21] = [
    ("line_reader", framing::line_reader_bytes),
    ("depth", framing::depth_bytes),
    ("sniff", framing::sniff_bytes),
    ("decode", framing::decode_bytes),
    ("translate_result", translate::result_rules_bytes),
    ("items", translate::items_bytes),
    ("capabilities", translate::capabilities_bytes),
    ("initialize_result", translate::initialize_bytes),
    ("forwarded", translate::params_bytes),
    ("input_round", input::round_bytes),
    ("url", input::url_bytes),
    ("answers", input::answer_bytes),
    ("raw_path", raw::raw_path_bytes),
    ("challenge", auth::challenge_bytes),
    ("redirect_request", redirect::request_bytes),
    ("redirect_gate", redirect::gate_bytes),
    ("metadata", auth::metadata_bytes),
    ("registration", auth::registration_bytes),
    ("sse_limit", http::event_limit_bytes),
    ("mcp_headers", http::mcp_headers_bytes),
    ("listen_events", listen::events_bytes),
];

fn fuzz_dir(kind: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz").join(kind)
}

/// Runs every file of `fuzz/<kind>/<target>/`; returns how many ran.
fn replay(kind: &str) -> usize {
    let mut count = 0;
    for (target, check) in TARGETS {
        let Ok(entries) = std::fs::read_dir(fuzz_dir(kind).join(target)) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if let Err(broken) = check(&data) {
                panic!("{}: {broken}", path.display());
            }
            count += 1;
        }
    }
    count
}

#[test]
fn every_seed_of_the_fuzz_corpora_holds_its_property() {
    for (target, _) in TARGETS {
        let seeds = std::fs::read_dir(fuzz_dir("corpus").join(target)).map_or(0, Iterator::count);
        assert!(seeds > 0, "fuzz/corpus/{target} has no seed: run fuzz/seed.sh");
    }
    assert!(replay("corpus") > 0);
}

#[test]
fn every_input_that_once_broke_a_property_now_holds_it() {
    assert!(replay("regressions") > 0, "fuzz/regressions/ has no input");
}
