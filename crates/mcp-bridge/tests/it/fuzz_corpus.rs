//! Replays the committed inputs of the fuzz targets through their
//! properties on stable Rust: the seed corpora (`fuzz/corpus/<target>/`)
//! and the inputs that once broke a property (`fuzz/regressions/<target>/`).
//! A regression input stays here after its fix, so the bug cannot return
//! unnoticed.
//!
//! The corpora are the workspace's, beside the crate, so the published
//! package has none: there the replay says so and checks nothing. In a
//! clone a missing `fuzz/` folder fails it.

use mcp_bridge::props::{auth, framing, handshake, http, input, listen, raw, redirect, translate};
use std::path::{Path, PathBuf};

type Check = fn(&[u8]) -> Result<(), String>;

/// Each fuzz target, by the name of its folders, with its property.
const TARGETS: [(&str, Check); 21] = [
    ("line_reader", framing::line_reader_bytes),
    ("depth", framing::depth_bytes),
    ("sniff", framing::sniff_bytes),
    ("decode", framing::decode_bytes),
    ("translate_result", translate::result_rules_bytes),
    ("items", translate::items_bytes),
    ("capabilities", handshake::capabilities_bytes),
    ("initialize_result", handshake::initialize_bytes),
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

/// The workspace's `fuzz/` folder; `None` in the published package, which
/// has no workspace.
fn fuzz_root() -> Option<PathBuf> {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = crate_dir.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    // A clone's manifest takes its version from the workspace; cargo writes
    // the value itself into the manifest of the published package.
    if !manifest.contains("version.workspace = true") {
        eprintln!("the published package has no fuzz/ folder (it is the workspace's): no corpus to replay");
        return None;
    }
    let root = crate_dir.join("../../fuzz");
    assert!(root.is_dir(), "{}: the workspace's fuzz folder is missing (the corpora and regressions)", root.display());
    Some(root)
}

/// Runs every file of `fuzz/<kind>/<target>/`; returns how many ran.
fn replay(root: &Path, kind: &str) -> usize {
    let mut count = 0;
    for (target, check) in TARGETS {
        // Not every target has a regression: a missing folder holds none.
        let Ok(entries) = std::fs::read_dir(root.join(kind).join(target)) else { continue };
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
    let Some(root) = fuzz_root() else { return };
    for (target, _) in TARGETS {
        let seeds = std::fs::read_dir(root.join("corpus").join(target)).map_or(0, Iterator::count);
        assert!(seeds > 0, "fuzz/corpus/{target} has no seed: run fuzz/seed.sh");
    }
    assert!(replay(&root, "corpus") > 0);
}

#[test]
fn every_input_that_once_broke_a_property_now_holds_it() {
    let Some(root) = fuzz_root() else { return };
    assert!(replay(&root, "regressions") > 0, "fuzz/regressions/ has no input");
}
