//! A session of Streamable HTTP at /mcp against the demo server
//! (docs/decisions.md, "The HTTP face", "Responses" and "The session's
//! stream"; the transport page of 2025-11-25): initialize gets JSON with
//! `Mcp-Session-Id`; every other request gets an SSE stream that carries
//! what relates to it and ends with its response; notifications and
//! responses of the client get 202; the GET stream carries the rest.

use super::*;
use crate::support::driver::Driver;

/// The stdio bridge in front of the demo: what a client of the same
/// revision gets there is what the face must give (one front end, two
/// links).
fn stdio() -> Driver {
    Driver::start(&[], &demo())
}

/// Initialize answers JSON (200, `application/json`) with a session id of
/// 64 hex digits, in the client's revision, with the result the stdio
/// bridge gives that revision; notifications/initialized gets 202 without
/// a body. Each session has an id of its own.
#[test]
fn initialize_answers_json_with_a_session_id_in_the_clients_revision() {
    let face = Face::start(&[], &demo());
    let mut ids = Vec::new();
    for revision in STREAMABLE {
        let init = request(json!(1), "initialize", init_params(revision, json!({"elicitation": {}})));
        let expected = stdio().request(json!(1), "initialize", init["params"].clone());
        let reply = face.send(Req::post(&init));
        assert_eq!(reply.status, 200, "{revision}: {reply}");
        assert_eq!(reply.header("content-type"), Some("application/json"), "{revision}");
        crate::support::assert_json(revision, &reply.json(), &expected);
        assert_eq!(reply.json()["result"]["protocolVersion"], revision);
        let id = reply.header("mcp-session-id").unwrap_or_default().to_owned();
        assert_session_id(&id);
        let session = Session { id: id.clone(), revision: revision.to_owned() };
        assert_accepted(&session.post(&face, &initialized()));
        ids.push(id);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), STREAMABLE.len(), "a session id of its own for each session");
}

/// A call gets an SSE stream with one event, the response with its id,
/// and then the stream ends (the transport: "After the JSON-RPC response
/// has been sent, the server SHOULD terminate the SSE stream").
#[test]
fn a_call_is_answered_on_its_own_stream_which_then_ends() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let response = session.answer(&face, &call(json!(2), "add", json!({"a": 2, "b": 3})));
    let expected = json!({"jsonrpc": "2.0", "id": 2, "result": {
        "content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}, "isError": false}});
    crate::support::assert_json("add", &response, &expected);
    let response = session.answer(&face, &request(json!("p"), "ping", json!({})));
    crate::support::assert_json("ping", &response, &json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
}

/// The progress of a call with a progress token comes on the call's own
/// stream, before its response, which ends the stream.
#[test]
fn progress_comes_on_the_calls_stream_before_its_response() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let slow = request(
        json!(3),
        "tools/call",
        json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 10}, "_meta": {"progressToken": "tok"}}),
    );
    let mut events = session.stream(&face, &slow);
    for step in [1.0, 2.0] {
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "tok", "progress": step, "total": 2.0, "message": format!("step {step} of 2")}});
        crate::support::assert_json("progress", &events.any_message(), &progress);
    }
    crate::support::assert_json("the response", &events.any_message(), &text_result(json!(3), "counted to 2"));
    events.assert_end();
}

/// A question of the upstream (the demo's form) comes on the stream of
/// the call that it belongs to; the client POSTs its answer, a JSON-RPC
/// response (202, no body); the call's result then comes on the first
/// stream, which ends.
#[test]
fn a_question_comes_on_the_calls_stream_and_its_answer_is_posted() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({"elicitation": {}}));
    let mut events = session.stream(&face, &call(json!(4), "ask_name", json!({})));
    let question = events.any_message();
    let expected = json!({"jsonrpc": "2.0", "id": question["id"], "method": "elicitation/create", "params": {
        "mode": "form", "message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}}});
    crate::support::assert_json("the question", &question, &expected);
    assert!(question["id"].is_string() || question["id"].is_i64(), "{question}");
    let answer =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    assert_accepted(&session.post(&face, &answer));
    crate::support::assert_json("the result", &events.any_message(), &text_result(json!(4), "Hello, Ada!"));
    events.assert_end();
}

/// A list change is no request's: it comes on the session's GET stream
/// (opened first), and only there, not on the stream of the call that
/// caused it.
#[test]
fn a_list_change_comes_on_the_get_stream() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let mut listen = session.listen(&face);
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}});
    // The demo declares tools.listChanged: its first listen stream's
    // acknowledgment gives the change of the gap (as on stdio).
    crate::support::assert_json("the change of the gap", &listen.any_message(), &changed);
    let response = session.answer(&face, &call(json!(5), "add_tool", json!({})));
    crate::support::assert_json("add_tool", &response, &text_result(json!(5), "added the tool extra"));
    crate::support::assert_json("the change", &listen.any_message(), &changed);
    let tools = session.answer(&face, &request(json!(6), "tools/list", json!({})));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"extra"), "{tools}");
}

/// A batch of a session of 2025-03-26 (the one revision with batches)
/// gets one SSE stream that holds one response per request id, each as
/// the stdio bridge gives it in that revision, and nothing for its
/// notification; then the stream ends.
#[test]
fn a_batch_of_a_2025_03_26_session_gets_one_stream_with_each_response() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-03-26", json!({}));
    let batch = json!([
        call(json!(1), "add", json!({"a": 1, "b": 2})),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        request(json!("two"), "ping", json!({})),
        call(json!(3), "list_primes", json!({"limit": 10})),
    ]);
    let mut driver = stdio();
    driver.request(json!(0), "initialize", init_params("2025-03-26", json!({})));
    driver.send(&initialized());
    driver.send(&batch);
    // The list change of the gap may come first.
    driver.wait_for(Value::is_array, "the array of the batch's responses");
    let arrays: Vec<&Value> = driver.seen.iter().filter(|m| m.is_array()).collect();
    let expected = arrays[0].as_array().cloned().unwrap_or_default();
    let mut events = session.stream(&face, &batch);
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(events.any_message());
    }
    events.assert_end();
    for id in [json!(1), json!("two"), json!(3)] {
        let on_stream: Vec<&Value> = got.iter().filter(|r| r["id"] == id).collect();
        let on_stdio: Vec<&Value> = expected.iter().filter(|r| r["id"] == id).collect();
        assert_eq!(on_stream.len(), 1, "one response to {id}: {got:?}");
        assert_eq!(on_stdio.len(), 1, "one response to {id} on stdio: {expected:?}");
        crate::support::assert_json(&id.to_string(), on_stream[0], on_stdio[0]);
    }
}

/// A client cancels with notifications/cancelled (the transport: "To
/// cancel, the client SHOULD explicitly send an MCP CancelledNotification"):
/// 202, and the call's stream ends without a response (the behaviour
/// spec: a canceled request gets none); the session goes on.
#[test]
fn a_canceled_call_ends_its_stream_without_a_response() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let mut slow = session.stream(&face, &call(json!(8), "slow_count", json!({"steps": 100, "delay_ms": 100})));
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8, "reason": "stop"}});
    assert_accepted(&session.post(&face, &cancel));
    slow.assert_end();
    let response = session.answer(&face, &request(json!(9), "ping", json!({})));
    assert_eq!(response, json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
}

/// A request's stream is resumable (the transport, "Resumability and
/// Redelivery"): every event has an id; when the connection breaks before
/// the response, a GET with `Last-Event-ID` gets the events after that id,
/// of that stream only, then the rest and the response. A 2025-06-18
/// session's stream has the ids but no priming event, which came with
/// 2025-11-25 (`Session::stream` checks both).
#[test]
fn a_broken_request_stream_is_taken_up_again_with_last_event_id() {
    let face = Face::start(&[], &demo());
    for revision in ["2025-11-25", "2025-06-18"] {
        let session = Session::open(&face, revision, json!({}));
        let progress = |step: f64| {
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "tok", "progress": step, "total": 4.0, "message": format!("step {step} of 4")}})
        };
        let params = json!({"name": "slow_count", "arguments": {"steps": 4, "delay_ms": 150},
            "_meta": {"progressToken": "tok"}});
        let mut events = session.stream(&face, &request(json!(5), "tools/call", params));
        let first = events.next();
        let seen = first.id.clone().unwrap_or_else(|| panic!("{revision}: an event without an id: {first:?}"));
        crate::support::assert_json("the first progress", &serde_json::from_str(&first.data).unwrap(), &progress(1.0));
        drop(events);
        let get = session.req(Req::get("/mcp")).header("Last-Event-ID", &seen);
        let mut resumed = sse(face.send(get));
        let mut ids = vec![seen];
        for expected in [progress(2.0), progress(3.0), progress(4.0), text_result(json!(5), "counted to 4")] {
            let event = resumed.next();
            let id = event.id.clone().unwrap_or_else(|| panic!("{revision}: an event without an id: {event:?}"));
            assert!(!ids.contains(&id), "{revision}: the id {id} came twice: {ids:?}");
            ids.push(id);
            crate::support::assert_json(revision, &serde_json::from_str(&event.data).unwrap(), &expected);
        }
        resumed.assert_end();
        // Its stream was taken up once: the id is unknown now, and a GET
        // with it is the session's own stream.
        let again = session.req(Req::get("/mcp")).header("Last-Event-ID", &ids[1]);
        let reply = face.send(again.header("Connection", "close"));
        assert_eq!(reply.status, 200, "{reply}");
    }
}

/// A client may reconnect before the face has seen its old connection
/// break: the GET with `Last-Event-ID` takes the stream over. The old
/// connection's stream ends, and the GET goes on from the event after the
/// id, each event once.
#[test]
fn a_get_with_last_event_id_takes_a_stream_over_from_its_old_connection() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let progress = |step: f64| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 7, "progress": step, "total": 3.0, "message": format!("step {step} of 3")}})
    };
    let params =
        json!({"name": "slow_count", "arguments": {"steps": 3, "delay_ms": 200}, "_meta": {"progressToken": 7}});
    let mut old = session.stream(&face, &request(json!(6), "tools/call", params));
    let first = old.next();
    crate::support::assert_json("the first progress", &serde_json::from_str(&first.data).unwrap(), &progress(1.0));
    let seen = first.id.unwrap_or_else(|| panic!("an event without an id"));
    let mut resumed = sse(face.send(session.req(Req::get("/mcp")).header("Last-Event-ID", &seen)));
    old.assert_end();
    for expected in [progress(2.0), progress(3.0), text_result(json!(6), "counted to 3")] {
        crate::support::assert_json("after the take-over", &resumed.any_message(), &expected);
    }
    resumed.assert_end();
}

/// A stream that waits to be taken up again is in use: its session does
/// not end for the idle time while it waits (the session ends "unused for
/// the idle time"; the stream waits up to 5 minutes). With an idle time of
/// 300 ms, a call whose connection broke is taken up after 1.5 s and goes
/// on to its response.
#[test]
fn a_stream_that_waits_keeps_its_session_open() {
    let face = Face::start(&["--test-session-idle-ms", "300"], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let params =
        json!({"name": "slow_count", "arguments": {"steps": 3, "delay_ms": 600}, "_meta": {"progressToken": 1}});
    let mut events = session.stream(&face, &request(json!(9), "tools/call", params));
    let first = events.next();
    let seen = first.id.unwrap_or_else(|| panic!("an event without an id"));
    drop(events);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut resumed = sse(face.send(session.req(Req::get("/mcp")).header("Last-Event-ID", &seen)));
    let mut last = resumed.any_message();
    while last.get("method").is_some() {
        last = resumed.any_message();
    }
    crate::support::assert_json("the response", &last, &text_result(json!(9), "counted to 3"));
    resumed.assert_end();
}
