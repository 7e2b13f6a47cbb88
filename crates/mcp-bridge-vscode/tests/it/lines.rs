//! The front end's message table and "Lines that are not valid", line by
//! line against the real binary and the scripted fake upstream. Each test
//! checks the exact code, message, `data.cause` and id, then that the
//! bridge still serves.

use crate::support::driver::{call_tool, Driver};
use crate::support::fake::*;
use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

fn error_of(response: &Value) -> &Value {
    response.get("error").unwrap_or_else(|| panic!("expected an error: {response}"))
}

#[test]
fn ping_set_level_and_discover_follow_their_rules_before_initialize() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    assert_eq!(bridge.request(json!(1), "ping", json!({})), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(bridge.request(json!(2), "logging/setLevel", json!({"level": "warning"}))["result"], json!({}));
    let bad_level = bridge.request(json!(3), "logging/setLevel", json!({"level": "loud"}));
    assert_eq!(error_of(&bad_level), &bridge_error(-32602, &message("invalid_params"), "invalid_params", None));
    let discover = bridge.request(json!(4), "server/discover", json!({}));
    assert_eq!(error_of(&discover), &bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    bridge.initialize();
    let discover = bridge.request(json!(5), "server/discover", json!({}));
    assert_eq!(error_of(&discover), &bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    assert_eq!(bridge.request(json!(6), "logging/setLevel", json!({"level": "debug"}))["result"], json!({}));
    bridge.assert_alive();
}

#[test]
fn requests_before_ready_get_not_initialized_or_method_not_found_with_modern_meta() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    let legacy = bridge.request(json!(1), "tools/list", json!({}));
    assert_eq!(error_of(&legacy), &bridge_error(-32600, &message("not_initialized"), "not_initialized", None));
    let unknown = bridge.request(json!(2), "whatever/else", json!(null));
    assert_eq!(error_of(&unknown)["data"]["cause"], "not_initialized");
    let modern = bridge.request(
        json!(3),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
    );
    assert_eq!(error_of(&modern), &bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    bridge.assert_alive();
}

#[test]
fn a_second_initialize_gets_already_initialized_and_unknown_methods_get_method_not_found() {
    let mut bridge = ready_bridge(&[]);
    let again = bridge.request(
        json!(9),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    assert_eq!(error_of(&again), &bridge_error(-32600, &message("already_initialized"), "already_initialized", None));
    let unknown = bridge.request(json!(10), "tasks/list", json!({}));
    assert_eq!(error_of(&unknown), &bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    bridge.assert_alive();
}

#[test]
fn initialize_with_invalid_params_gets_invalid_params_and_a_later_initialize_works() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    for (id, params) in [(1, json!([1])), (2, json!({"capabilities": {}})), (3, json!(null))] {
        let response = bridge.request(json!(id), "initialize", params);
        assert_eq!(error_of(&response), &bridge_error(-32602, &message("invalid_params"), "invalid_params", None));
    }
    bridge.initialize();
    bridge.assert_alive();
}

#[test]
fn the_initialize_result_uses_the_upstream_server_info_and_drops_modern_members() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    let response = bridge.initialize();
    assert_eq!(
        response["result"],
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "completions": {}, "logging": {}},
            "serverInfo": {"name": "fake-upstream", "version": "0.0.1"},
            "instructions": "fake instructions"
        })
    );
}

#[test]
fn without_upstream_server_info_the_fallback_name_is_the_command_file_name_or_name() {
    let mut bridge = Driver::start(&[], &fake_upstream(&["--server-info", "none"]));
    let result = bridge.initialize()["result"].clone();
    assert_eq!(result["serverInfo"], json!({"name": "python3", "version": env!("CARGO_PKG_VERSION")}));
    let mut named = Driver::start(
        &["--name", "my-server"],
        &fake_upstream(&["--server-info", "{\"name\":\"\",\"version\":\"1\"}"]),
    );
    let result = named.initialize()["result"].clone();
    assert_eq!(result["serverInfo"], json!({"name": "my-server", "version": env!("CARGO_PKG_VERSION")}));
}

#[test]
fn forwarded_params_lose_task_and_meta_and_carry_the_modern_meta() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize_with(
        json!({"roots": {"listChanged": true}, "sampling": {}, "tasks": {}, "elicitation": {"form": {}}}),
    );
    // serde_json keeps the text of numbers here (arbitrary_precision).
    let arguments: Value =
        serde_json::from_str(r#"{"n": 1e400, "z": -0, "big": 123456789012345678901234567890}"#).unwrap_or_default();
    let response = bridge.request(
        json!(5),
        "tools/call",
        json!({"name": "echo", "arguments": arguments, "task": {"ttl": 5}, "extra": [1],
               "_meta": {"traceparent": "00-abc", "vscode.requestId": "r", "vscode.mcp/x": 1, "other": 2, "io.modelcontextprotocol/logLevel": "debug"}}),
    );
    // The fake upstream returns the line it received as text, so that the
    // numbers can be compared exactly.
    let raw = response["result"]["structuredContent"]["raw"].as_str().unwrap_or_default();
    let line: Value = serde_json::from_str(raw).unwrap_or_default();
    let received = &line["params"];
    assert_eq!(
        received,
        &json!({
            "name": "echo",
            "arguments": arguments,
            "extra": [1],
            "_meta": {
                "traceparent": "00-abc",
                "vscode.requestId": "r",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "harness", "version": "1.0"},
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "elicitation": {"form": {}}, "roots": {}}
            }
        })
    );
}

#[test]
fn params_that_are_not_an_object_become_an_empty_object() {
    let mut bridge = ready_bridge(&[]);
    let response = bridge.request(json!(1), "prompts/list", json!([1, 2]));
    let params = &response["result"]["params"];
    assert_eq!(params.as_object().map(|p| p.keys().cloned().collect::<Vec<_>>()), Some(vec!["_meta".to_string()]));
}

#[test]
fn a_line_that_is_not_json_gets_parse_error_with_the_sniffed_id_or_null() {
    let mut bridge = ready_bridge(&[]);
    let cases: Vec<(&[u8], Value)> = vec![
        (b"{bad\n", json!(null)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"ping\",oops}\n", json!(17)),
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"s-1\" oops}\n", json!("s-1")),
        // The walk from the start stops at the break, and the end of a line
        // within the limit is not examined: the id is null.
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\" oops, \"id\":\"s-2\"}\n", json!(null)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"p\xffng\"}\n", json!(3)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"s\":\"\\ud800\"}}\n", json!(4)),
        (b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n", json!(null)),
    ];
    for (line, id) in cases {
        bridge.send_raw(line);
        let response = bridge.recv();
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": id, "error": bridge_error(-32700, &message("parse_error"), "parse_error", None)}),
            "{:?}",
            String::from_utf8_lossy(line)
        );
        bridge.assert_alive();
    }
}

#[test]
fn blank_lines_crlf_and_duplicate_keys_are_read_as_json_reads_them() {
    let mut bridge = ready_bridge(&[]);
    bridge.send_raw(b"\n   \n\t\r\n");
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n");
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}\n");
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    bridge.assert_alive();
}

#[test]
fn valid_json_that_is_not_json_rpc_gets_invalid_request_shape() {
    let mut bridge = ready_bridge(&[]);
    let cases = [
        (json!([1, 2]), json!(null)),
        (json!("text"), json!(null)),
        (json!({"id": 5, "method": "ping"}), json!(5)),
        (json!({"jsonrpc": "1.0", "id": 6, "method": "ping"}), json!(6)),
        (json!({"jsonrpc": "2.0", "id": 7}), json!(7)),
        (json!({"jsonrpc": "2.0", "id": 8, "method": 5}), json!(8)),
        (json!({"jsonrpc": "2.0", "id": null, "method": "ping"}), json!(null)),
        (json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}), json!(null)),
        (json!({"jsonrpc": "2.0", "id": true, "method": "ping"}), json!(null)),
        (json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}), json!(null)),
        (json!({"jsonrpc": "2.0", "id": null, "method": "notifications/initialized"}), json!(null)),
    ];
    for (sent, id) in cases {
        bridge.send(&sent);
        let response = bridge.recv();
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": id, "error": bridge_error(-32600, &message("invalid_request_shape"), "invalid_request_shape", None)}),
            "{sent}"
        );
    }
    bridge.assert_alive();
}

#[test]
fn ids_come_back_exactly_as_sent() {
    let mut bridge = ready_bridge(&[]);
    for id in ["123456789012345678901234567890", "-0", "18446744073709551615", "\"x\"", "0"] {
        bridge.send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        assert_eq!(bridge.recv_text(), format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"));
    }
}

#[test]
fn sixty_four_levels_pass_and_sixty_five_get_too_deep() {
    let mut bridge = ready_bridge(&[]);
    let line = |arrays: usize, id: u32| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"result\",\"arguments\":{{\"result\":{{\"x\":{}{}}}}}}}}}\n",
            "[".repeat(arrays),
            "]".repeat(arrays)
        )
    };
    // The message, params, arguments and result objects are 4 levels; the
    // arrays add the rest.
    bridge.send_raw(line(60, 1).as_bytes());
    assert!(bridge.recv().get("result").is_some(), "64 levels are allowed");
    bridge.send_raw(line(61, 2).as_bytes());
    let response = bridge.recv();
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 2, "error": bridge_error(-32600, &message("too_deep"), "too_deep", Some("limit: 64 levels"))})
    );
    bridge.assert_alive();
}

/// "The front end finds the id member of the top-level object in the
/// text", and only "for a line that is too long" also "examines the end of
/// the line": a notification cut short whose params end in `{"id":7}`,
/// sent while request 7 is in flight, gets `-32700` with the id null, and
/// request 7 gets its own result, once.
#[test]
fn a_nested_id_at_the_end_of_a_broken_line_is_not_its_id() {
    let mut bridge = ready_bridge(&[]);
    bridge.send(&call_tool(json!(7), "late", json!({"ms": 500})));
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/example\",\"params\":{\"ref\":{\"id\":7}\n");
    assert_eq!(bridge.recv(), error_response(json!(null), -32700, &message("parse_error"), "parse_error", None));
    // A `]` that closes a `{` breaks the text: the `id` after it is no
    // member of the top-level object either.
    bridge.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/example\",\"params\":{\"ref\":{\"x\":1]],\"id\":7,\"z\":\n",
    );
    assert_eq!(bridge.recv(), error_response(json!(null), -32700, &message("parse_error"), "parse_error", None));
    let result = bridge.recv();
    assert_eq!(result["id"], 7, "{result}");
    assert!(result.get("result").is_some(), "{result}");
    bridge.send(&json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 8, "result": {}}), "nothing more for 7");
}

/// The same at the end of a line over the limit: the bytes the reader
/// dropped tell that `{"id":7}` at the end is inside `params`, so the id
/// is null; a top-level `"id"` as the last member is still found.
#[test]
fn at_the_end_of_a_line_over_the_limit_only_a_top_level_id_counts() {
    let mut bridge = Driver::start(&["--max-line-bytes", "1000"], &fake_upstream(&[]));
    bridge.initialize();
    let pad = "x".repeat(2000);
    let cases = [
        (
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{{\"p\":\"{pad}\",\"ref\":{{\"id\":7}}\n"),
            json!(null),
        ),
        (
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{{\"p\":\"{pad}\",\"ref\":{{\"id\":7}}}}\n"),
            json!(null),
        ),
        (
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{{\"p\":\"{pad} {{\\\"a\\\":\"}},\"id\":9}}\n"),
            json!(9),
        ),
    ];
    for (line, id) in cases {
        bridge.send_raw(line.as_bytes());
        assert_eq!(
            bridge.recv(),
            json!({"jsonrpc": "2.0", "id": id, "error": bridge_error(-32600, &message("line_too_long"), "line_too_long", Some("limit: 1000 bytes"))}),
            "{}",
            &line[line.len() - 40..]
        );
    }
    bridge.assert_alive();
}

#[test]
fn a_line_over_the_limit_gets_line_too_long_with_the_id_from_either_end() {
    let mut bridge = Driver::start(&["--max-line-bytes", "1000"], &fake_upstream(&[]));
    bridge.initialize();
    let pad = "x".repeat(2000);
    let cases = [
        (format!("{{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"ping\",\"params\":{{\"p\":\"{pad}\"}}}}\n"), json!(41)),
        (
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"p\":\"{pad}\"}},\"id\":\"end\"}}\n"),
            json!("end"),
        ),
        (format!("{{\"p\":\"{pad}\"}}\n"), json!(null)),
    ];
    for (line, id) in cases {
        bridge.send_raw(line.as_bytes());
        assert_eq!(
            bridge.recv(),
            json!({"jsonrpc": "2.0", "id": id, "error": bridge_error(-32600, &message("line_too_long"), "line_too_long", Some("limit: 1000 bytes"))})
        );
        bridge.assert_alive();
    }
}

#[test]
fn a_line_exactly_at_the_limit_passes_and_one_byte_more_does_not() {
    let base = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"p\":\"\"}}";
    let limit = 200;
    let mut bridge = Driver::start(&["--max-line-bytes", &limit.to_string()], &fake_upstream(&[]));
    let at_limit = base.replace("\"p\":\"\"", &format!("\"p\":\"{}\"", "x".repeat(limit - base.len())));
    assert_eq!(at_limit.len(), limit);
    bridge.send_raw(format!("{at_limit}\n").as_bytes());
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let over = at_limit.replace("\"p\":\"", "\"p\":\"y");
    bridge.send_raw(format!("{over}\n").as_bytes());
    assert_eq!(
        bridge.recv()["error"]["data"],
        json!({"cause": "line_too_long", "detail": format!("limit: {limit} bytes")})
    );
    bridge.assert_alive();
}

#[test]
fn bad_lines_and_responses_with_bridge_ids_or_without_valid_ids_get_no_answer() {
    let mut bridge = ready_bridge(&[]);
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"b-1\",\"result\":{oops}\n");
    bridge.send(&json!({"jsonrpc": "2.0", "id": "b-7", "result": {}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": 99, "result": {}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": null, "result": {}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1.5, "result": {}}));
    bridge.send(&json!({"jsonrpc": "2.0", "error": {"code": 1, "message": "m"}}));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}));
    bridge.expect_silence(Duration::from_millis(300));
    bridge.assert_alive();
}

#[test]
fn an_upstream_error_goes_to_the_client_unchanged_except_minus_32042() {
    let mut bridge = ready_bridge(&[]);
    let upstream = json!({"code": -32602, "message": "bad arguments", "data": {"why": [1]}});
    let response = bridge.request(json!(1), "tools/call", json!({"name": "error", "arguments": {"error": upstream}}));
    assert_eq!(response["error"], upstream);
    let url_required =
        json!({"code": -32042, "message": "open this", "data": {"elicitations": [{"url": "https://x"}]}});
    let response =
        bridge.request(json!(2), "tools/call", json!({"name": "error", "arguments": {"error": url_required}}));
    assert_eq!(response["error"], json!({"code": -32603, "message": "open this"}));
}

#[test]
fn a_request_without_response_in_its_limit_gets_timeout_with_method_and_limit() {
    let mut bridge = Driver::start(&["--test-request-timeout-ms", "300"], &fake_upstream(&[]));
    bridge.initialize();
    let response = bridge.request(json!(1), "tools/call", json!({"name": "stall"}));
    assert_eq!(
        response["error"],
        bridge_error(-32603, &message("timeout"), "timeout", Some("tools/call: no response in 300 ms"))
    );
    bridge.assert_alive();
}

#[test]
fn more_than_256_requests_in_flight_get_too_many_requests_at_once() {
    let mut bridge = ready_bridge(&[]);
    for i in 0..300 {
        bridge.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "stall"}}));
    }
    let mut refused = Vec::new();
    for _ in 0..44 {
        let response = bridge.recv();
        assert_eq!(response["error"], bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None));
        refused.push(response["id"].as_i64().unwrap_or(-1));
    }
    assert_eq!(refused, (256..300).collect::<Vec<i64>>());
    // The reader still reads: a cancellation frees a slot, and pings answer.
    bridge.assert_alive();
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}));
    // The slot is free once the canceled task ends, a moment later.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let echo = bridge.request(json!("after"), "tools/call", json!({"name": "unknown-id"}));
        if echo["error"]["data"]["cause"] == "too_many_requests" && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        assert_eq!(echo["result"]["content"][0]["text"], "real", "{echo}");
        break;
    }
}

#[test]
fn a_canceled_request_gets_no_response_and_the_upstream_gets_notifications_cancelled() {
    let dir = tempdir();
    let record = dir.join("record.jsonl");
    let mut bridge = Driver::start(&[], &fake_upstream(&["--record", record.to_str().unwrap_or_default()]));
    bridge.initialize();
    bridge.send(&json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {"name": "stall"}}));
    std::thread::sleep(Duration::from_millis(200));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c1", "reason": "stop"}}));
    bridge.expect_silence(Duration::from_millis(300));
    bridge.assert_alive();
    let lines = std::fs::read_to_string(&record).unwrap_or_default();
    let sent: Vec<Value> = lines.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let call_id = sent.iter().find(|m| m["method"] == "tools/call").map(|m| m["id"].clone());
    let cancel = sent.iter().find(|m| m["method"] == "notifications/cancelled").cloned();
    assert_eq!(
        cancel,
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": call_id.unwrap_or_default(), "reason": "the client canceled the request"}})
        )
    );
}

#[test]
fn progress_goes_to_the_client_with_its_token_before_the_response() {
    let mut bridge = ready_bridge(&[]);
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "progress", "arguments": {"count": 2}, "_meta": {"progressToken": 0}}}));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1, "total": 2, "message": "step 1"}})
    );
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 2, "total": 2, "message": "step 2"}})
    );
    assert_eq!(bridge.recv()["id"], 1);
    // Without a token, no progress.
    let response = bridge.request(json!(2), "tools/call", json!({"name": "progress", "arguments": {"count": 2}}));
    assert!(response.get("result").is_some());
}

#[test]
fn notifications_that_belong_to_no_request_are_dropped() {
    let mut bridge = ready_bridge(&[]);
    let response = bridge.request(json!(1), "tools/call", json!({"name": "stray"}));
    assert!(response.get("result").is_some(), "{response}");
    bridge.expect_silence(Duration::from_millis(200));
}

#[test]
fn log_messages_below_the_level_of_the_client_are_dropped_and_lose_their_meta() {
    let mut bridge = ready_bridge(&[]);
    bridge.request(json!(1), "logging/setLevel", json!({"level": "warning"}));
    let response = bridge.request(json!(2), "tools/call", json!({"name": "log", "arguments": {"level": "info"}}));
    assert!(response.get("result").is_some(), "{response}");
    bridge.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "log", "arguments": {"level": "error", "data": {"k": 1}}}}));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "fake", "data": {"k": 1}}})
    );
    assert_eq!(bridge.recv()["id"], 3);
}

#[test]
fn an_upstream_line_that_is_not_valid_fails_its_request_with_invalid_response() {
    let mut bridge = Driver::start(&["--max-line-bytes", "4096"], &fake_upstream(&[]));
    bridge.initialize();
    let invalid = bridge.request(json!(1), "tools/call", json!({"name": "invalid-json"}));
    assert_eq!(invalid["error"]["code"], -32603);
    assert_eq!(invalid["error"]["message"], message("invalid_response"));
    assert_eq!(invalid["error"]["data"]["cause"], "invalid_response");
    let huge = bridge.request(json!(2), "tools/call", json!({"name": "huge", "arguments": {"bytes": 10000}}));
    assert_eq!(huge["error"]["data"]["cause"], "invalid_response");
    let after = bridge.request(json!(3), "tools/call", json!({"name": "unknown-id"}));
    assert_eq!(after["result"]["content"], json!([{"type": "text", "text": "real"}]));
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-test-{}-{}", std::process::id(), rand_suffix()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

/// "The client of zig-sdk drops the progress above 50 notifications per
/// second for each request": a dropped notification is gone, none is kept
/// for the end, so no second carries more than 50.
#[test]
fn progress_above_fifty_a_second_is_dropped_and_none_is_kept_for_the_end() {
    let mut bridge = ready_bridge(&[]);
    let started = std::time::Instant::now();
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "progress", "arguments": {"count": 400}, "_meta": {"progressToken": "t"}}}));
    let mut progress = Vec::new();
    let response = loop {
        let message = bridge.recv();
        if message.get("id").is_some() {
            break message;
        }
        assert_eq!(message["params"]["progressToken"], "t");
        progress.push(message["params"]["progress"].as_i64().unwrap_or(-1));
    };
    let seconds = started.elapsed().as_secs();
    assert!(response.get("result").is_some(), "{response}");
    // The notifications of the request span at most `seconds` + 1 windows
    // of the throttle.
    let windows = usize::try_from(seconds + 1).unwrap_or(usize::MAX);
    assert!(progress.len() <= 50 * windows, "{} progress notifications in {seconds} s", progress.len());
    assert!(progress.len() >= 50, "the first fifty pass: {}", progress.len());
    assert_eq!(&progress[..50], &(1..=50).collect::<Vec<i64>>()[..]);
    if seconds == 0 {
        // The fake wrote all 400 within one window: only the first fifty.
        assert_eq!(progress.len(), 50, "the last one is not kept for the end");
    }
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "the order stays");
}

#[test]
fn an_input_required_result_never_reaches_the_client() {
    let mut bridge = ready_bridge(&[]);
    let input_required =
        json!({"resultType": "input_required", "inputRequests": {"q": {"method": "roots/list"}}, "requestState": "s"});
    let response =
        bridge.request(json!(1), "tools/call", json!({"name": "result", "arguments": {"result": input_required}}));
    assert_eq!(
        response["error"],
        bridge_error(
            -32603,
            &message("undeclared_input_request"),
            "undeclared_input_request",
            Some("input request 'q': the client did not declare roots")
        )
    );
    bridge.assert_alive();
}
