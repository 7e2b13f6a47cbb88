//! Golden fixtures of the result rules and of R6 (behaviour spec, "Result
//! rules (M1)", "The items rule for array schemas (R6)").
//!
//! Each case is `<name>.input.json` (`method`, optional `cursor`, optional
//! `profile` quirks, `result`) and `<name>.expected.json` (`result`, and the
//! `notes` as text). `UPDATE_FIXTURES=1` rewrites the expected files; a
//! review of their diff is then the test.

use mcp_bridge::translate::result::translate_result;
use mcp_bridge::{MetaPassthrough, Profile, Quirks};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn profile(quirks: Option<&Value>) -> Profile {
    let flag = |name: &str, default: bool| quirks.and_then(|q| q.get(name)).and_then(Value::as_bool).unwrap_or(default);
    Profile {
        name: "test".into(),
        version: "0".into(),
        reply_protocol_version: "2025-11-25".into(),
        request_id_prefix: "b-".into(),
        meta_passthrough: MetaPassthrough::default(),
        quirks: Quirks {
            normalize_array_items: flag("normalize_array_items", true),
            drop_non_object_output_schema: flag("drop_non_object_output_schema", true),
            strict_legacy_results: flag("strict_legacy_results", false),
        },
    }
}

fn run_dir(dir: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".input.json"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no fixtures in {}", root.display());
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let mut failures = Vec::new();
    for input_path in &inputs {
        let input = read(input_path);
        let (result, notes) = translate_result(
            input["method"].as_str().unwrap_or_default(),
            input.get("cursor"),
            input["result"].clone(),
            &profile(input.get("profile")),
        );
        let got = json!({"result": result, "notes": notes.iter().map(ToString::to_string).collect::<Vec<_>>()});
        let expected_path = PathBuf::from(input_path.to_string_lossy().replace(".input.json", ".expected.json"));
        if update {
            let text = serde_json::to_string_pretty(&got).unwrap_or_default() + "\n";
            std::fs::write(&expected_path, text).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
            continue;
        }
        let expected = read(&expected_path);
        // Compare the text: member order is part of the rule, and `Value`'s
        // equality ignores it.
        let (got_text, expected_text) = (serde_json::to_string(&got).ok(), serde_json::to_string(&expected).ok());
        if got_text != expected_text {
            failures.push(format!("{}\n  expected: {expected}\n  got:      {got}", input_path.display()));
        }
    }
    assert!(failures.is_empty(), "{} fixture(s) differ:\n{}", failures.len(), failures.join("\n"));
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn result_rules_match_their_golden_fixtures() {
    run_dir("results");
}

#[test]
fn the_items_rule_matches_its_golden_fixtures() {
    run_dir("items");
}
