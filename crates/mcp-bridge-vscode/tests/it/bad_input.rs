//! The bad input that the module `lines` does not send yet, one test
//! per row of the README's "Reliability" table (behaviour spec, "Lines that
//! are not valid", the "Error table", "Forwarded requests (M1)", "Pending
//! requests of the bridge"). Each test checks the exact answer (or its
//! absence) and that the bridge still serves.

use crate::support::driver::Driver;
use crate::support::fake::*;
use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

/// The params the fake upstream received for a tools/call echo, from the
/// raw line it returns.
fn received_params(response: &Value) -> Value {
    let raw = response["result"]["structuredContent"]["raw"].as_str().unwrap_or_default();
    let line: Value = serde_json::from_str(raw).unwrap_or_default();
    line["params"].clone()
}

/// The raw text of the line the fake upstream received for an echo.
fn received_text(response_text: &str) -> String {
    let response: Value = serde_json::from_str(response_text).unwrap_or_default();
    response["result"]["structuredContent"]["raw"].as_str().unwrap_or_default().to_owned()
}

/// Invalid UTF-8 (a byte that starts no character, a UTF-8-encoded
/// surrogate, a cut sequence) is parse_error ("A line that is not valid
/// JSON, or that is not valid UTF-8"), with the id of the top-level
/// object found in its bytes, else null.
#[test]
fn invalid_utf8_anywhere_gets_parse_error_with_the_sniffed_id() {
    let mut bridge = ready_bridge(&[]);
    let cases: Vec<(&[u8], Value)> = vec![
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"s\":\"\xc0\xaf\"}},\"id\":\"tail\"}\n", json!("tail")),
        (b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":{\"s\":\"\xed\xa0\x80\"}}\n", json!(8)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"s\":\"\xe6\x97\"}}\n", json!(9)),
        (b"\xff\xfe\n", json!(null)),
    ];
    for (line, id) in cases {
        bridge.send_raw(line);
        assert_eq!(bridge.recv(), error_response(id, -32700, &message("parse_error"), "parse_error", None), "{line:?}");
    }
    bridge.assert_alive();
}

/// A lone surrogate escape (high or low, in a value or a key) is not valid
/// JSON for serde_json: parse_error with the id. A valid pair passes to the
/// upstream unchanged.
#[test]
fn a_lone_surrogate_escape_gets_parse_error_and_a_valid_pair_passes() {
    let mut bridge = ready_bridge(&[]);
    let cases: Vec<(&str, Value)> = vec![
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"\udc00"}}}"#,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"k","method":"tools/call","params":{"name":"echo","arguments":{"\ud800":1}}}"#,
            json!("k"),
        ),
        (r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"\ud800\u0041"}}"#, json!(3)),
    ];
    for (line, id) in cases {
        bridge.send_raw(format!("{line}\n").as_bytes());
        assert_eq!(bridge.recv(), error_response(id, -32700, &message("parse_error"), "parse_error", None), "{line}");
    }
    bridge.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"s\":\"\\ud83e\\udd80\"}}}\n",
    );
    let response = bridge.recv();
    assert_eq!(received_params(&response)["arguments"], json!({"s": "🦀"}));
    bridge.assert_alive();
}

/// Numbers beyond i64/u64/f64 as ids: an integer of any length is an id
/// and comes back with its exact text; `1e400` is not an integer, so the
/// request gets invalid_request_shape with the id null ("a request whose id
/// is not a string or an integer").
#[test]
fn ids_beyond_i64_and_u64_come_back_exactly_and_1e400_is_not_an_id() {
    let mut bridge = ready_bridge(&[]);
    for id in ["99999999999999999999", "-9223372036854775809", "-0"] {
        bridge.send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        assert_eq!(bridge.recv_text(), format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"));
    }
    // A forwarded request: the id of the response is the client's, exactly.
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":-99999999999999999999,\"method\":\"tools/list\"}\n");
    let text = bridge.recv_text();
    assert!(text.starts_with("{\"jsonrpc\":\"2.0\",\"id\":-99999999999999999999,\"result\":"), "{text}");
    for id in ["1e400", "1E2", "1.0", "-0.0"] {
        bridge.send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        assert_eq!(
            bridge.recv(),
            error_response(json!(null), -32600, &message("invalid_request_shape"), "invalid_request_shape", None),
            "{id}"
        );
    }
    bridge.assert_alive();
}

/// Numbers beyond the ranges in params and in results keep their value and
/// every digit both ways (`serde_json` with `arbitrary_precision`; "a rule
/// touches only the members it names"); only the exponent is normalized.
#[test]
fn numbers_beyond_the_ranges_keep_their_text_to_the_upstream_and_back() {
    let mut bridge = ready_bridge(&[]);
    let numbers = r#"{"big":1e400,"z":-0,"u":99999999999999999999,"neg":-99999999999999999999,"tiny":1e-400,"f":0.1000000000000000000001}"#;
    bridge.send_raw(
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{numbers}}}}}\n")
            .as_bytes(),
    );
    // serde_json (1.0.154, arbitrary_precision) keeps every digit, but
    // writes an exponent as `e`, with its sign: `1e400` goes on as `1e+400`,
    // the same number.
    let written = numbers.replace("1e400", "1e+400");
    let raw = received_text(&bridge.recv_text());
    assert!(raw.contains(&format!("\"arguments\":{written}")), "the upstream got {raw}");
    let result = format!(r#"{{"content":[],"structuredContent":{numbers}}}"#);
    bridge.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "raw", "arguments": {"text": result}}}));
    let text = bridge.recv_text();
    assert!(text.contains(&format!("\"structuredContent\":{written}")), "the client got {text}");
    bridge.assert_alive();
}

/// Duplicate keys: the last one wins (serde_json), also for the method and
/// inside forwarded params.
#[test]
fn duplicate_keys_the_last_one_wins_for_the_method_and_in_params() {
    let mut bridge = ready_bridge(&[]);
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"method\":\"ping\"}\n");
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    bridge.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":1,\"a\":2}}}\n",
    );
    assert_eq!(received_params(&bridge.recv())["arguments"], json!({"a": 2}));
    bridge.assert_alive();
}

/// A UTF-8 BOM at the start of a line is not JSON: parse_error. The text
/// does not start with an object, and the end of a line within the limit
/// is not examined, so the id is null, also when it is the last member. A
/// BOM line between valid ones disturbs none.
#[test]
fn a_bom_at_the_start_of_a_line_gets_parse_error_with_the_id_null() {
    let mut bridge = ready_bridge(&[]);
    bridge.send_raw(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"bom\"}\n");
    assert_eq!(bridge.recv(), error_response(json!(null), -32700, &message("parse_error"), "parse_error", None));
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\xef\xbb\xbf\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    assert_eq!(bridge.recv()["id"], 1);
    assert_eq!(bridge.recv(), error_response(json!(null), -32700, &message("parse_error"), "parse_error", None));
    assert_eq!(bridge.recv()["id"], 2);
    bridge.assert_alive();
}

/// CRLF line ends: the `\r` is JSON whitespace, also in a forwarded request
/// and in a bad line (the walk from the start reads past it). It is a byte of the line,
/// so it counts toward --max-line-bytes.
#[test]
fn crlf_line_ends_are_json_whitespace_and_count_toward_the_limit() {
    // The limit applies to the upstream too: the discover result must fit.
    let limit = 1000;
    let mut bridge = ready_bridge(&["--max-line-bytes", "1000"]);
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r\n");
    assert!(bridge.recv().get("result").is_some());
    // The walk from the start breaks before the id, and the end of a line
    // within the limit is not examined: the id is null.
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\" bad}\r\n");
    assert_eq!(bridge.recv(), error_response(json!(2), -32700, &message("parse_error"), "parse_error", None));
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\" bad,\"id\":2}\r\n");
    assert_eq!(bridge.recv(), error_response(json!(null), -32700, &message("parse_error"), "parse_error", None));
    let base = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"p\":\"\"}}";
    let at_limit = base.replace("\"p\":\"\"", &format!("\"p\":\"{}\"", "x".repeat(limit - base.len())));
    assert_eq!(at_limit.len(), limit);
    bridge.send_raw(format!("{at_limit}\r\n").as_bytes());
    assert_eq!(
        bridge.recv(),
        error_response(json!(3), -32600, &message("line_too_long"), "line_too_long", Some("limit: 1000 bytes"))
    );
    bridge.assert_alive();
}

/// Empty lines and lines of spaces or tabs are skipped without an answer,
/// in each state (here before initialize, and between requests).
#[test]
fn empty_and_blank_lines_are_skipped_in_each_state() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.send_raw(b"\n\n    \n\t\t\n \r\n");
    bridge.expect_silence(Duration::from_millis(200));
    bridge.initialize();
    bridge.send_raw(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n        \n\n");
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    bridge.expect_silence(Duration::from_millis(200));
    bridge.assert_alive();
}

/// A form feed is not JSON whitespace (RFC 8259): a line of form feeds is
/// not blank, and gets `parse_error` with the id null.
#[test]
fn a_line_of_form_feeds_is_not_blank_and_gets_parse_error() {
    let mut bridge = ready_bridge(&[]);
    bridge.send_raw(b"\x0c\x0c\n");
    assert_eq!(bridge.recv(), error_response(Value::Null, -32700, &message("parse_error"), "parse_error", None));
    bridge.assert_alive();
}

/// 64 and 65 levels with objects (not only arrays), and brackets inside
/// strings do not count.
#[test]
fn nesting_counts_objects_and_arrays_but_not_brackets_in_strings() {
    let mut bridge = ready_bridge(&[]);
    // The message object is level 1, params level 2.
    let nest = |levels: usize| format!("{}1{}", "{\"a\":".repeat(levels), "}".repeat(levels));
    bridge
        .send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{}}}\n", nest(63)).as_bytes());
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    bridge
        .send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{}}}\n", nest(64)).as_bytes());
    assert_eq!(
        bridge.recv(),
        error_response(json!(2), -32600, &message("too_deep"), "too_deep", Some("limit: 64 levels"))
    );
    let brackets = "[{".repeat(100);
    bridge.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"s": brackets}}));
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    bridge.assert_alive();
}

/// Ids that are arrays, `1.0` or exponents, and envelopes with `jsonrpc`
/// as a number or with a space: invalid_request_shape, id null.
#[test]
fn more_ids_and_envelopes_that_are_not_valid_get_invalid_request_shape() {
    let mut bridge = ready_bridge(&[]);
    let cases = [
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, json!(null)),
        (r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#, json!(null)),
        (r#"{"jsonrpc":2.0,"id":5,"method":"ping"}"#, json!(5)),
        (r#"{"jsonrpc":"2.0 ","id":6,"method":"ping"}"#, json!(6)),
        (r#"{"jsonrpc":"2.0","id":7,"method":null}"#, json!(7)),
    ];
    for (line, id) in cases {
        bridge.send_raw(format!("{line}\n").as_bytes());
        assert_eq!(
            bridge.recv(),
            error_response(id, -32600, &message("invalid_request_shape"), "invalid_request_shape", None),
            "{line}"
        );
    }
    bridge.assert_alive();
}

/// Params that are not an object: `{}` for a forwarded request (also a
/// string or a number), -32602 invalid_params for logging/setLevel.
#[test]
fn params_that_are_not_an_object_become_empty_or_get_invalid_params() {
    let mut bridge = ready_bridge(&[]);
    for (id, params) in [(1, json!("text")), (2, json!(5)), (3, json!([{"name": "x"}]))] {
        let response = bridge.request(json!(id), "tools/list", params);
        let params = &response["result"]["params"];
        assert_eq!(params.as_object().map(|p| p.keys().cloned().collect::<Vec<_>>()), Some(vec!["_meta".to_owned()]));
    }
    let response = bridge.request(json!(4), "logging/setLevel", json!(["debug"]));
    assert_eq!(response, error_response(json!(4), -32602, &message("invalid_params"), "invalid_params", None));
    bridge.assert_alive();
}

/// A notification with an id of null is a request whose id is not valid:
/// invalid_request_shape with the id null; a notifications/cancelled of
/// that shape cancels nothing.
#[test]
fn a_notification_with_an_id_of_null_gets_invalid_request_shape_and_cancels_nothing() {
    let mut bridge = ready_bridge(&[]);
    bridge.send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "late", "arguments": {"ms": 300}}}));
    bridge.send(
        &json!({"jsonrpc": "2.0", "id": null, "method": "notifications/cancelled", "params": {"requestId": "slow"}}),
    );
    assert_eq!(
        bridge.recv(),
        error_response(json!(null), -32600, &message("invalid_request_shape"), "invalid_request_shape", None)
    );
    let response = bridge.recv();
    assert_eq!(response["id"], "slow");
    assert_eq!(response["result"]["content"][0]["text"], "late", "not canceled: {response}");
    bridge.assert_alive();
}

/// A response of the client to a request it never got (a result or an
/// error, a `b-` id never used, an id of another form): "The client gets
/// no answer for it."
#[test]
fn a_response_of_the_client_to_a_request_it_never_got_gets_no_answer() {
    let mut bridge = ready_bridge(&[]);
    for response in [
        json!({"jsonrpc": "2.0", "id": "b-1", "result": {"action": "accept"}}),
        json!({"jsonrpc": "2.0", "id": "b-1", "error": {"code": -32000, "message": "no"}}),
        json!({"jsonrpc": "2.0", "id": "other", "result": {}}),
        json!({"jsonrpc": "2.0", "id": -0, "error": {"code": 1, "message": "x"}}),
        json!({"jsonrpc": "2.0", "id": "b-1", "result": {}, "error": {"code": 1, "message": "both"}}),
    ] {
        bridge.send(&response);
    }
    bridge.expect_silence(Duration::from_millis(300));
    bridge.assert_alive();
}

/// A "response" whose error is not a JSON-RPC error object (no integer
/// code, no string message) is valid JSON that is not a valid JSON-RPC 2.0
/// message: invalid_request_shape with its id, as for an error that is a
/// string ("Error table"). With a `b-` id it is an answer that is not valid
/// for that request of the bridge, and without a valid id an error response
/// "gets no answer": the client gets nothing.
#[test]
fn a_response_whose_error_is_not_an_error_object_gets_invalid_request_shape() {
    let mut bridge = ready_bridge(&[]);
    for (id, bad) in [
        (json!("x"), json!({"message": "no code"})),
        (json!(7), json!("text")),
        (json!(8), json!({"code": 1.5, "message": "m"})),
    ] {
        bridge.send(&json!({"jsonrpc": "2.0", "id": id, "error": bad}));
        assert_eq!(
            bridge.recv(),
            error_response(id, -32600, &message("invalid_request_shape"), "invalid_request_shape", None)
        );
    }
    // Without a valid id, an error response gets no answer, whatever its error.
    bridge.send(&json!({"jsonrpc": "2.0", "id": "b-3", "error": {"message": "no code"}}));
    bridge.send(&json!({"jsonrpc": "2.0", "error": {"message": "no code"}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": null, "error": "text"}));
    bridge.expect_silence(Duration::from_millis(200));
    bridge.assert_alive();
}

/// "Lines that are not valid" lists the responses that get no answer: the
/// id null, an id that is not a string or an integer, and an error
/// response without an id. A result response without an id is not on the
/// list: it gets `-32600` (`invalid_request_shape`) with the id null; the
/// listed ones get nothing.
#[test]
fn a_result_response_without_an_id_gets_invalid_request_shape() {
    let mut bridge = ready_bridge(&[]);
    bridge.send(&json!({"jsonrpc": "2.0", "result": {}}));
    assert_eq!(
        bridge.recv(),
        error_response(json!(null), -32600, &message("invalid_request_shape"), "invalid_request_shape", None)
    );
    for unanswered in [
        json!({"jsonrpc": "2.0", "id": null, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1.5, "result": {}}),
        json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "m"}}),
    ] {
        bridge.send(&unanswered);
    }
    bridge.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "id": 3, "result": {}}), "the listed ones got no answer");
}
