//! The embedded bridge (behaviour spec, "The embedded bridge (M5)"), line
//! by line against the bundled demo server (`mcp-bridge-vscode
//! demo-server`), which serves through `mcp_bridge::embed`: the first line
//! table, the discover rule, the limits of each path, the order of a list
//! change and its call, and the end of the input on each path.

use crate::support::driver::{line, Driver};
use crate::support::{error_response, message};
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};

/// The demo server's line limit: `embed::Options::new`'s 64 MiB.
const LINE_LIMIT: usize = 64 * 1024 * 1024;
/// The demo server's shutdown grace: `embed::Options::new`'s 2 s.
const GRACE: Duration = Duration::from_secs(2);
/// The longest a clean exit may take after the end of the input.
const EXIT_LIMIT: Duration = Duration::from_secs(10);

fn demo(options: &[&str]) -> Driver {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.arg("demo-server").args(options);
    Driver::spawn(cmd)
}

/// The `_meta` a 2026-07-28 client puts on each request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "embed-test", "version": "1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A request of a 2026-07-28 client.
fn modern(id: Value, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn discover(id: i64) -> Value {
    modern(json!(id), "server/discover", json!({}))
}

fn add(id: i64) -> Value {
    modern(json!(id), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}))
}

/// The demo's answer to `add(id)` on the modern path, as rmcp writes it.
fn added(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "content": [], "structuredContent": {"sum": 3}, "isError": false}})
}

/// A line of `n` bytes before its newline, over the limit when `n` is.
fn long_line(n: usize) -> Vec<u8> {
    let mut bytes = vec![b' '; n];
    bytes[0] = b'"';
    bytes[n - 1] = b'"';
    bytes.push(b'\n');
    bytes
}

/// A discover answer keeps only what the test compares: the id and the
/// versions (the rest is the demo's, and rmcp's).
fn shape(mut message: Value) -> Value {
    if let Some(versions) = message.pointer("/result/supportedVersions").cloned() {
        message["result"] = json!({"supportedVersions": versions});
    }
    message
}

fn discovered(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"supportedVersions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]}})
}

#[derive(Debug, PartialEq)]
enum Path {
    Legacy,
    Modern,
}

/// Which path serves the connection, told by the schema repair R6: a
/// 2025-11-25 client sends `initialize`, `notifications/initialized` and
/// `tools/list`. The legacy path (the bridge) gives `tag_items` an `items`
/// schema; on the modern path rmcp answers unrepaired, or refuses the
/// request without `_meta`. When no path was chosen yet, this
/// `initialize` chooses the legacy one.
fn path_of(bridge: &mut Driver) -> Path {
    bridge.send(&json!({"jsonrpc": "2.0", "id": "probe-init", "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1.0"}}}));
    response(bridge, "probe-init");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": "probe-list", "method": "tools/list", "params": {}}));
    let list = response(bridge, "probe-list");
    let tags = list["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|tool| tool["name"] == "tag_items"))
        .map(|tool| tool["inputSchema"]["properties"]["tags"].clone());
    match tags {
        Some(tags) if tags.get("items").is_some() => Path::Legacy,
        _ => Path::Modern,
    }
}

/// The response with `id`; notifications before it are skipped, another
/// response fails the test.
fn response(bridge: &mut Driver, id: &str) -> Value {
    loop {
        let message = bridge.recv();
        if message.get("method").is_some() {
            continue;
        }
        assert_eq!(message["id"], id, "expected the response to {id}, got {message}");
        return message;
    }
}

struct Case {
    rule: &'static str,
    options: &'static [&'static str],
    /// Written in one write.
    input: Vec<u8>,
    /// The lines the server writes for `input`, in order (discover answers
    /// through [`shape`]).
    answers: Vec<Value>,
    then: Path,
}

fn first_line_cases() -> Vec<Case> {
    let refuse: &[&str] = &["--refuse-discover"];
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{{\"x\":{}{}}}}}\n",
        "[".repeat(70),
        "]".repeat(70)
    );
    let discover_and = |next: Vec<u8>| [line(&discover(1)), next].concat();
    vec![
        Case {
            rule: "initialize first takes the legacy path",
            options: &[],
            input: vec![],
            answers: vec![],
            then: Path::Legacy,
        },
        Case {
            rule: "blank lines are skipped, without a response",
            options: &[],
            input: b"\n  \n\r\n\t\n".to_vec(),
            answers: vec![],
            then: Path::Legacy,
        },
        Case {
            rule: "a line over the line limit is dropped without a response, and the next line chooses",
            options: &[],
            input: long_line(LINE_LIMIT + 1),
            answers: vec![],
            then: Path::Legacy,
        },
        Case {
            rule: "a request other than initialize takes the modern path",
            options: &[],
            input: line(&add(1)),
            answers: vec![added(1)],
            then: Path::Modern,
        },
        Case {
            rule: "the word initialize in a value does not select the legacy path",
            options: &[],
            input: line(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"note": "initialize"}})),
            answers: vec![json!({"jsonrpc": "2.0", "id": 1, "result": {}})],
            then: Path::Modern,
        },
        Case {
            rule: "a notification takes the modern path",
            options: &[],
            input: line(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}})),
            answers: vec![],
            then: Path::Modern,
        },
        Case {
            rule: "a response takes the modern path",
            options: &[],
            input: line(&json!({"jsonrpc": "2.0", "id": 5, "result": {}})),
            answers: vec![],
            then: Path::Modern,
        },
        Case {
            rule: "invalid JSON takes the modern path, answered with the parse error",
            options: &[],
            input: b"{not json}\n".to_vec(),
            answers: vec![error_response(Value::Null, -32700, &message("parse_error"), "parse_error", None)],
            then: Path::Modern,
        },
        Case {
            rule: "a line deeper than the limit takes the modern path, answered with the depth error",
            options: &[],
            input: deep.into_bytes(),
            answers: vec![error_response(json!(7), -32600, &message("too_deep"), "too_deep", Some("limit: 64 levels"))],
            then: Path::Modern,
        },
        Case {
            rule: "JSON that is not JSON-RPC (an initialize without jsonrpc) takes the modern path, answered -32600",
            options: &[],
            input: line(&json!({"id": 1, "method": "initialize", "params": {}})),
            answers: vec![error_response(
                json!(1),
                -32600,
                &message("invalid_request_shape"),
                "invalid_request_shape",
                None,
            )],
            then: Path::Modern,
        },
        Case {
            rule: "a line that is not valid UTF-8 takes the modern path, answered with the parse error",
            options: &[],
            input: b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}\n".to_vec(),
            answers: vec![error_response(json!(1), -32700, &message("parse_error"), "parse_error", None)],
            then: Path::Modern,
        },
        Case {
            rule: "discover (answer) picks no path: initialize next takes the legacy path",
            options: &[],
            input: line(&discover(1)),
            answers: vec![discovered(1)],
            then: Path::Legacy,
        },
        Case {
            rule: "discover (answer) twice picks no path",
            options: &[],
            input: [line(&discover(1)), line(&discover(2))].concat(),
            answers: vec![discovered(1), discovered(2)],
            then: Path::Legacy,
        },
        Case {
            rule: "discover (answer), then a request in the same write takes the modern path",
            options: &[],
            input: discover_and(line(&add(2))),
            answers: vec![discovered(1), added(2)],
            then: Path::Modern,
        },
        Case {
            rule: "discover (answer), then a notification takes the modern path",
            options: &[],
            input: discover_and(line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))),
            answers: vec![discovered(1)],
            then: Path::Modern,
        },
        Case {
            rule: "discover (answer), then invalid JSON takes the modern path",
            options: &[],
            input: discover_and(b"[1,\n".to_vec()),
            answers: vec![
                discovered(1),
                error_response(Value::Null, -32700, &message("parse_error"), "parse_error", None),
            ],
            then: Path::Modern,
        },
        Case {
            rule: "discover (refuse) gets -32601 method_not_found and picks no path",
            options: refuse,
            input: line(&discover(1)),
            answers: vec![error_response(json!(1), -32601, &message("method_not_found"), "method_not_found", None)],
            then: Path::Legacy,
        },
        Case {
            rule: "discover (refuse), then a request in the same write takes the modern path",
            options: refuse,
            input: discover_and(line(&add(2))),
            answers: vec![
                error_response(json!(1), -32601, &message("method_not_found"), "method_not_found", None),
                added(2),
            ],
            then: Path::Modern,
        },
        Case {
            rule: "discover (refuse), then a response takes the modern path",
            options: refuse,
            input: discover_and(line(&json!({"jsonrpc": "2.0", "id": 5, "result": {}}))),
            answers: vec![error_response(json!(1), -32601, &message("method_not_found"), "method_not_found", None)],
            then: Path::Modern,
        },
        Case {
            rule: "discover (refuse), then a line over the limit is dropped and picks no path",
            options: refuse,
            input: discover_and(long_line(LINE_LIMIT + 1)),
            answers: vec![error_response(json!(1), -32601, &message("method_not_found"), "method_not_found", None)],
            then: Path::Legacy,
        },
    ]
}

#[test]
fn the_first_line_table_chooses_the_path() {
    for case in first_line_cases() {
        let mut server = demo(case.options);
        server.send_raw(&case.input);
        for expected in &case.answers {
            assert_eq!(&shape(server.recv()), expected, "{}", case.rule);
        }
        assert_eq!(path_of(&mut server), case.then, "{}", case.rule);
    }
}

/// A rule, the options of the demo, the whole input, the lines written.
type EndCase = (&'static str, &'static [&'static str], Vec<u8>, Vec<Value>);

#[test]
fn the_end_of_the_input_before_a_request_writes_nothing_and_returns() {
    let cases: [EndCase; 6] = [
        ("an empty input", &[], vec![], vec![]),
        ("only blank lines", &[], b"\n \n\r\n".to_vec(), vec![]),
        ("only a line over the limit", &[], long_line(LINE_LIMIT + 1), vec![]),
        ("a discover answered, then the end", &[], line(&discover(1)), vec![discovered(1)]),
        (
            "a discover refused, then the end",
            &["--refuse-discover"],
            line(&discover(1)),
            vec![error_response(json!(1), -32601, &message("method_not_found"), "method_not_found", None)],
        ),
        // The framer reads a last line without its newline as a line (the
        // stdio bridge's framing): not the end before a request.
        (
            "a partial line at the end is a line: its parse error, then the return",
            &[],
            b"{\"jsonrpc\":\"2.0\"".to_vec(),
            vec![error_response(Value::Null, -32700, &message("parse_error"), "parse_error", None)],
        ),
    ];
    for (rule, options, input, answers) in cases {
        let mut server = demo(options);
        server.send_raw(&input);
        server.close_stdin();
        for expected in &answers {
            assert_eq!(&shape(server.recv()), expected, "{rule}");
        }
        let status = server.wait_exit(EXIT_LIMIT).status;
        assert!(status.success(), "{rule}: {status}");
        server.expect_silence(Duration::from_millis(100));
    }
}

#[test]
fn two_messages_in_one_write_both_reach_the_legacy_path() {
    let mut server = demo(&[]);
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    // ping is answered in each state of the front end, even during initialize.
    server.send_raw(&[line(&initialize), line(&json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"}))].concat());
    let mut ids: Vec<Value> = (0..2).map(|_| server.recv()["id"].clone()).collect();
    ids.sort_by_key(|id| id.to_string());
    assert_eq!(ids, [json!("init"), json!("ping")]);
}

#[test]
fn a_line_over_the_limit_gets_32600_on_the_legacy_path_and_nothing_on_the_modern_path() {
    let mut legacy = demo(&[]);
    legacy.initialize();
    legacy.send_raw(&long_line(LINE_LIMIT + 1));
    let mut answer = legacy.recv();
    while answer.get("method").is_some() {
        answer = legacy.recv();
    }
    assert_eq!(
        answer,
        error_response(
            Value::Null,
            -32600,
            &message("line_too_long"),
            "line_too_long",
            Some(&format!("limit: {LINE_LIMIT} bytes"))
        )
    );
    legacy.assert_alive();

    let mut modern_path = demo(&[]);
    modern_path.send(&add(1));
    assert_eq!(modern_path.recv(), added(1));
    modern_path.send_raw(&long_line(LINE_LIMIT + 1));
    modern_path.send(&add(2));
    assert_eq!(modern_path.recv(), added(2), "the line over the limit got no response");
}

#[test]
fn the_modern_path_answers_a_request_above_the_in_flight_limit_at_once() {
    let mut server = demo(&[]);
    let slow = |id: i64| {
        modern(json!(id), "tools/call", json!({"name": "slow_count", "arguments": {"steps": 1000, "delay_ms": 60000}}))
    };
    let burst: Vec<u8> = (1..=256).flat_map(|id| line(&slow(id))).collect();
    server.send_raw(&burst);
    server.send(&add(257));
    assert_eq!(
        server.recv(),
        error_response(json!(257), -32603, &message("too_many_requests"), "too_many_requests", None)
    );
    // A cancellation frees a place; the reader reads it though 256 wait.
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}}),
    );
    server.send(&add(258));
    assert_eq!(server.recv(), added(258));
    // The end of the input is read too: the 255 left are cancelled after
    // the grace, without responses.
    server.close_stdin();
    let status = server.wait_exit(EXIT_LIMIT).status;
    assert!(status.success(), "{status}");
    server.expect_silence(Duration::from_millis(100));
}

fn listen(id: &str) -> Value {
    modern(json!(id), "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}))
}

#[test]
fn a_list_change_of_a_call_reaches_the_client_before_its_result_on_both_paths() {
    let mut modern_path = demo(&[]);
    modern_path.send(&listen("listen"));
    let ack = modern_path.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    modern_path.send(&modern(json!(2), "tools/call", json!({"name": "add_tool", "arguments": {}})));
    let change = modern_path.recv();
    assert_eq!(change["method"], "notifications/tools/list_changed", "{change}");
    assert_eq!(change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen", "{change}");
    assert_eq!(modern_path.recv()["id"], 2);

    let mut legacy = demo(&[]);
    legacy.initialize();
    // The first listen stream's acknowledgment gives the change of the gap.
    assert_eq!(legacy.recv()["method"], "notifications/tools/list_changed");
    legacy.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add_tool", "arguments": {}}}),
    );
    assert_eq!(legacy.recv(), json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}));
    assert_eq!(legacy.recv()["id"], 2);
}

/// slow_count with `steps` of `delay_ms`, as each path's client sends it.
fn slow_count(id: i64, steps: u64, delay_ms: u64, on_modern: bool) -> Value {
    let params = json!({"name": "slow_count", "arguments": {"steps": steps, "delay_ms": delay_ms}});
    if on_modern {
        modern(json!(id), "tools/call", params)
    } else {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }
}

/// Reads until the server closes its output; the messages it wrote.
fn drain(server: &mut Driver, limit: Duration) -> Vec<Value> {
    let start = Instant::now();
    let mut seen = Vec::new();
    while start.elapsed() < limit {
        match server.try_recv(Duration::from_millis(200)) {
            Some(message) => seen.push(message),
            None if server.exited() => break,
            None => {}
        }
    }
    seen
}

#[test]
fn the_end_of_the_input_on_the_modern_path_ends_the_listen_streams_then_waits_the_grace() {
    let mut server = demo(&[]);
    server.send(&listen("listen"));
    assert_eq!(server.recv()["method"], "notifications/subscriptions/acknowledged");
    // 2 steps of 300 ms end in the grace; 1000 steps of 60 s do not.
    server.send_raw(&[line(&slow_count(1, 2, 300, true)), line(&slow_count(2, 1000, 60_000, true))].concat());
    server.close_stdin();
    let closed = Instant::now();
    let seen = drain(&mut server, EXIT_LIMIT);
    let status = server.wait_exit(EXIT_LIMIT).status;
    let waited = closed.elapsed();
    assert!(status.success(), "{status}");
    let responses: Vec<&Value> = seen.iter().filter(|m| m.get("id").is_some()).collect();
    assert_eq!(responses.len(), 1, "only the request that ended in the grace is answered: {seen:?}");
    assert_eq!(responses[0]["id"], 1);
    assert_eq!(responses[0]["result"]["content"], json!([{"type": "text", "text": "counted to 2"}]));
    // The open request held the return for the grace, the listen stream did not hold it longer.
    assert!(waited >= GRACE - Duration::from_millis(100), "returned after {waited:?}, before the grace");
}

#[test]
fn the_end_of_the_input_on_the_legacy_path_cancels_each_request_without_a_response() {
    let mut server = demo(&[]);
    server.initialize();
    assert_eq!(server.recv()["method"], "notifications/tools/list_changed");
    server.send_raw(&[line(&slow_count(1, 2, 300, false)), line(&slow_count(2, 1000, 60_000, false))].concat());
    // Both calls are upstream before the end (the front end forwards in order).
    std::thread::sleep(Duration::from_millis(100));
    server.close_stdin();
    let seen = drain(&mut server, EXIT_LIMIT);
    let status = server.wait_exit(EXIT_LIMIT).status;
    assert!(status.success(), "{status}");
    assert!(seen.iter().all(|m| m.get("id").is_none()), "a request in flight at the end got a response: {seen:?}");
}
