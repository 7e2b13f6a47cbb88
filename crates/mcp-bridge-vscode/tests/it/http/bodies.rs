//! The bodies of the upstream: what is not a JSON-RPC response, the size
//! limits, and every framing of an SSE stream ("Receiving Messages").

use super::headers::annotated_tools;
use super::*;

/// Error table, invalid_response: a success whose body is not a JSON-RPC
/// response to the request, or whose type is neither JSON nor an event
/// stream, fails the request; the connection goes on.
#[test]
fn a_success_body_that_is_not_a_json_rpc_response_gives_invalid_response() {
    let (_fake, mut driver) = session("bodies", &[], &[]);
    let cases = [
        (json!({"text": "{\"hello\": \"world\"}"}), invalid_response("the body holds no response to the request")),
        (json!({"text": "not json at all"}), invalid_response("the body holds no response to the request")),
        (json!({"text": "{\"jsonrpc\":\"2.0\",\"id\":{{id}},\"result\":{nope}}"}), invalid_response("parse_error")),
        (
            json!({"text": "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}"}),
            invalid_response("the body holds no response to the request"),
        ),
        (json!({"text": "<html></html>", "content_type": "text/html"}), invalid_response("HTTP status 200")),
    ];
    for (i, (arguments, expected)) in cases.into_iter().enumerate() {
        exchange(&mut driver, call(json!(i), "body", arguments), err(json!(i), expected));
    }
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "Forwarded requests (M1)", the limits: `--max-response-bytes` limits one
/// JSON response, "A larger message fails its request at once": a body of
/// exactly the limit passes, one byte more fails; a body over the limit
/// fails while the server still holds its connection (with a Content-Length
/// and chunked); the next requests are served.
#[test]
fn a_json_body_over_max_response_bytes_fails_at_once() {
    let (fake, mut driver) = session("json-limit", &[], &["--max-response-bytes", "4096"]);
    let sized = |id: i64, bytes: usize| call(json!(id), "sized", json!({"bytes": bytes}));
    driver.send(&sized(1, 4096));
    let response = driver.response(&json!(1));
    let x = "x".repeat(padding(&fake.call_of("sized"), 4096));
    assert_json("a body of 4096 bytes", &response, &text(json!(1), &x));
    exchange(&mut driver, sized(2, 4097), err(json!(2), invalid_response("limit: 4096 bytes")));
    for (id, shape) in [(3, "json"), (4, "chunked-json")] {
        let start = Instant::now();
        exchange(
            &mut driver,
            call(json!(id), "big", json!({"bytes": 8192, "as": shape, "finish": false})),
            err(json!(id), invalid_response("limit: 4096 bytes")),
        );
        assert!(start.elapsed() < Duration::from_secs(10), "{shape}: not at once ({:?})", start.elapsed());
    }
    exchange(
        &mut driver,
        call(json!(5), "big", json!({"bytes": 8192, "as": "json"})),
        err(json!(5), invalid_response("limit: 4096 bytes")),
    );
    driver.assert_alive_amid("ping");
    driver.send(&sized(6, 300));
    let response = driver.response(&json!(6));
    let x = "x".repeat(padding(&fake.call_of("sized"), 300));
    assert_json("a body of 300 bytes", &response, &text(json!(6), &x));
    finish(driver);
}

/// `--max-response-bytes` also limits "one event of a stream": an event over
/// the limit fails its request at once, also while the server holds the
/// stream without the end of the event; a stream of many small events
/// whose sum is over the limit passes.
#[test]
fn an_sse_event_over_max_response_bytes_fails_at_once() {
    let (_fake, mut driver) = session("event-limit", &[], &["--max-response-bytes", "4096"]);
    for (id, finish) in [(1, json!(false)), (2, json!(true))] {
        let start = Instant::now();
        exchange(
            &mut driver,
            call(json!(id), "big", json!({"bytes": 8192, "as": "event", "finish": finish})),
            err(json!(id), invalid_response("limit: 4096 bytes")),
        );
        assert!(start.elapsed() < Duration::from_secs(10), "not at once ({:?})", start.elapsed());
    }
    // 60 progress events of about 150 bytes each: 9 KB in all.
    driver.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "progress", "arguments": {"count": 60}, "_meta": {"progressToken": "p"}}}));
    let response = driver.response(&json!(3));
    assert_json("many small events", &response, &text(json!(3), "done"));
    finish(driver);
}

/// The length of the padding of the fake's `sized` answer of `bytes` bytes
/// to the recorded POST `post` (the upstream id is in the body).
fn padding(post: &Value, bytes: usize) -> usize {
    let skeleton =
        json!({"jsonrpc": "2.0", "id": post["body"]["id"], "result": {"content": [{"type": "text", "text": ""}]}});
    // The fake writes JSON with Python's separators ", " and ": ".
    let python = skeleton.to_string().replace(",\"", ", \"").replace("\":", "\": ");
    bytes - python.len()
}

/// The default of `--max-response-bytes` is 64 MiB: a body of 3 MiB passes.
#[test]
fn the_default_response_limit_takes_a_body_of_3_mib() {
    let (fake, mut driver) = session("default-limit", &[], &[]);
    driver.send(&call(json!(1), "sized", json!({"bytes": 3 * 1024 * 1024})));
    let response = driver.response(&json!(1));
    let length = response["result"]["content"][0]["text"].as_str().map(str::len);
    let expected = padding(&fake.call_of("sized"), 3 * 1024 * 1024);
    assert_eq!(length, Some(expected), "{}", response.to_string().chars().take(300).collect::<String>());
    finish(driver);
}

// --- SSE framing ------------------------------------------------------------------------

/// "Receiving Messages" and the SSE format: whatever the framing (LF, CRLF
/// or CR line ends, comments, `retry:`, `id:` and `event:` fields, data over
/// two lines, no space after the colon, an event without data, an event
/// split across writes anywhere, also inside a CRLF), the progress of the
/// request's stream reaches the client with its token ("Progress (M1)"),
/// then the result.
#[test]
fn every_sse_framing_gives_the_progress_and_then_the_result() {
    let (_fake, mut driver) = session("framing", &[], &[]);
    let lf = json!(["event: message\ndata: {{progress}}\n\n", "event: message\ndata: {{result}}\n\n"]);
    let crlf = json!(["event: message\r\ndata: {{progress}}\r\n\r\n", "event: message\r\ndata: {{result}}\r\n\r\n"]);
    let cases = [
        ("lf", lf.clone(), json!({})),
        ("crlf", crlf.clone(), json!({})),
        ("cr", json!(["data: {{progress}}\r\r", "data: {{result}}\r\r"]), json!({})),
        (
            "comments and retry",
            json!([
                ": hello\n\n",
                "retry: 1000\n\n",
                "data: {{progress}}\n\n",
                ": ping\r\n\r\n",
                "retry: 10\ndata: {{result}}\n\n"
            ]),
            json!({}),
        ),
        (
            "id and event fields",
            json!(["id: 41\nevent: message\ndata: {{progress}}\n\n", "event: message\nid: 42\ndata: {{result}}\n\n"]),
            json!({}),
        ),
        ("no space after the colon", json!(["data:{{progress}}\n\n", "data:{{result}}\n\n"]), json!({})),
        (
            "an event without data",
            json!(["event: ping\n\n", "id: 1\n\n", "data: {{progress}}\n\n", "data: {{result}}\n\n"]),
            json!({}),
        ),
        ("lf in pieces of 1 byte", lf.clone(), json!({"split": 1})),
        ("crlf in pieces of 1 byte", crlf.clone(), json!({"split": 1})),
        ("crlf in pieces of 7 bytes", crlf, json!({"split": 7, "gap_ms": 2})),
        ("lf in pieces of 50 bytes", lf, json!({"split": 50, "gap_ms": 5})),
    ];
    for (i, (name, frames, extra)) in cases.into_iter().enumerate() {
        let mut arguments = json!({"frames": frames});
        for (key, value) in extra.as_object().into_iter().flatten() {
            arguments[key] = value.clone();
        }
        driver.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "sse", "arguments": arguments, "_meta": {"progressToken": format!("t{i}")}}}));
        assert_json(
            &format!("{name}: the progress"),
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": format!("t{i}"), "progress": 1, "total": 1, "message": "step 1"}}),
        );
        assert_json(&format!("{name}: the result"), &driver.recv(), &text(json!(i), "sse ok"));
    }
    // Data over two lines is one message, the lines joined with a line feed.
    let two_lines = "data: {\"jsonrpc\": \"2.0\",\ndata: \"id\": {{id}}, \"result\": {\"content\": []}}\n\n";
    exchange(
        &mut driver,
        call(json!("two"), "sse", json!({"frames": [two_lines]})),
        ok(json!("two"), json!({"content": []})),
    );
    finish(driver);
}

/// "an SSE stream that ends before its response": the request fails with
/// transport_failed, after the progress it had; a stream that ends cleanly
/// and one whose connection closes mid-stream alike.
#[test]
fn an_sse_stream_that_ends_before_its_response_fails_with_transport_failed() {
    let (_fake, mut driver) = session("stream-ends", &[], &[]);
    for (i, end) in ["close", "abort"].into_iter().enumerate() {
        driver.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "sse", "arguments": {"frames": ["data: {{progress}}\n\n"], "end": end}, "_meta": {"progressToken": 0}}}));
        assert_json(
            &format!("{end}: the progress"),
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1, "total": 1, "message": "step 1"}}),
        );
        assert_json(
            &format!("{end}: the error"),
            &driver.recv(),
            &err(json!(i), transport_failed("the stream ended before its response")),
        );
    }
    // A JSON body that breaks off.
    exchange(
        &mut driver,
        call(json!("json"), "big", json!({"bytes": 100, "as": "json", "finish": "abort"})),
        err(json!("json"), transport_failed("the body broke off")),
    );
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// Each request has its own stream: a connection closed mid-stream fails
/// only its request; a request in flight beside it and the later ones are
/// answered.
#[test]
fn a_connection_closed_mid_stream_fails_only_that_request() {
    let (_fake, mut driver) = session("mid-stream", &[], &[]);
    driver.send(&call(json!("beside"), "slow", json!({"ms": 1500, "sse": true})));
    exchange(
        &mut driver,
        call(json!("broken"), "sse", json!({"frames": ["data: {{log}}\n\n", ": more to come\n"], "end": "abort"})),
        err(json!("broken"), transport_failed("the stream ended before its response")),
    );
    let at = driver.seen.iter().position(|m| is_response(m) && m["id"] == "broken").unwrap_or(0);
    assert_json(
        "the log message before the break",
        &driver.seen[at.saturating_sub(1)],
        &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "fake-http", "data": "log 1"}}),
    );
    exchange(
        &mut driver,
        call(json!("after"), "echo", json!({})),
        ok(
            json!("after"),
            json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}}),
        ),
    );
    assert_json("the request beside", &driver.response(&json!("beside")), &text(json!("beside"), "slow"));
    assert_answered_once(&driver.seen, &[json!("beside"), json!("broken"), json!("after")]);
    finish(driver);
}

/// "Progress (M1)" and "Logging (M3)" over HTTP: "request-scoped
/// notifications ... flow only on the response stream of the request": the
/// progress (token 0 of the client, the upstream's progress, total and
/// message) and the log message come before the result; after
/// logging/setLevel warning, the requests carry the level in their _meta
/// and the bridge drops a message below it.
#[test]
fn progress_with_token_0_and_log_messages_of_the_request_stream_come_before_the_result() {
    let (fake, mut driver) = session("progress", &[], &[]);
    driver.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "progress", "arguments": {"count": 3}, "_meta": {"progressToken": 0}}}));
    for k in 1..=3 {
        assert_json(
            "progress",
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": k, "total": 3, "message": format!("step {k}")}}),
        );
    }
    assert_json(
        "the log message",
        &driver.recv(),
        &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "fake-http", "data": "hello"}}),
    );
    assert_json("the result", &driver.recv(), &text(json!(7), "done"));
    exchange(&mut driver, request(json!(8), "logging/setLevel", json!({"level": "warning"})), ok(json!(8), json!({})));
    exchange(&mut driver, call(json!(9), "progress", json!({"count": 1, "level": "info"})), text(json!(9), "done"));
    exchange(&mut driver, call(json!(10), "progress", json!({"count": 1, "level": "error"})), text(json!(10), "done"));
    let without_token: Vec<Value> = driver.seen.iter().rev().take(3).rev().cloned().collect();
    assert_json(
        "after setLevel: no progress without a token, no info message, the error message",
        &Value::Array(without_token),
        &json!([
            text(json!(9), "done"),
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "fake-http", "data": "hello"}},
            text(json!(10), "done")
        ]),
    );
    let levels: Vec<Value> = fake
        .posts_of("tools/call")
        .iter()
        .map(|p| p["body"]["params"]["_meta"]["io.modelcontextprotocol/logLevel"].clone())
        .collect();
    assert_eq!(levels, [Value::Null, json!("warning"), json!("warning")], "the level in the _meta of each call");
    finish(driver);
}

/// "Receiving Messages": the client MUST support both a JSON body and an
/// event stream. A server that answers every request with a stream gives
/// the same results as one that answers with JSON.
#[test]
fn a_server_that_answers_every_request_with_a_stream_gives_the_same_results() {
    let list = annotated_tools().to_string();
    for mode in ["json", "sse"] {
        let (_fake, mut driver) =
            session(&format!("mode-{mode}"), &["--mode", mode, "--result", &format!("tools/list={list}")], &[]);
        exchange(&mut driver, request(json!(1), "tools/list", json!({})), ok(json!(1), annotated_tools()));
        exchange(
            &mut driver,
            request(json!(2), "prompts/list", json!({})),
            ok(json!(2), json!({"method": "prompts/list"})),
        );
        exchange(
            &mut driver,
            call(json!(3), "echo", json!({"a": 1})),
            ok(
                json!(3),
                json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {"a": 1}}}),
            ),
        );
        finish(driver);
    }
}
