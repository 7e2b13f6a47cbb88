//! Faults of the client: the end of the input with requests in flight, the
//! limit of requests in flight, cancellations, answers to unknown ids, and
//! huge, deep or broken lines between valid ones.

use super::*;

/// "Cancellation (M1)": "At the end of the input, the front end cancels
/// each request in flight. These requests get no response." Exit code 0.
/// Half of them are answered by the upstream within the grace, when its
/// stdin ends: those late answers are dropped too.
#[test]
fn closing_stdin_with_256_requests_in_flight_answers_none_of_them_and_exits_0() {
    let record = Record::new("close");
    let mut driver = Driver::start_env(
        &["--test-shutdown-grace-ms", "1000"],
        &fake_upstream(&["--record", record.arg()]),
        &[("MCP_BRIDGE_LOG", "debug")],
    );
    driver.initialize();
    let in_flight = ids(0..256);
    let burst: Vec<Value> = in_flight
        .iter()
        .map(|id| {
            let n = id.as_i64().unwrap_or(0);
            if n % 2 == 0 {
                call_tool(id.clone(), "stall", json!({}))
            } else {
                call_tool(id.clone(), "at-eof", json!({}))
            }
        })
        .collect();
    driver.send_burst(&burst);
    driver.assert_alive_amid("p1");
    // All 256 are upstream, so all are in flight at the end of the input.
    record.wait_calls(256);
    let started = Instant::now();
    driver.close_stdin();
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "exit code; stderr:\n{}", ended.stderr);
    assert!(started.elapsed() < EXIT);
    // The 128 answers of the grace reached the bridge, which dropped them.
    let dropped = ended.stderr.matches(DROPPED_UNKNOWN).count();
    assert_eq!(dropped, 128, "late answers the bridge read and dropped");
    assert_never_answered(&driver.seen, &in_flight);
    // The upstream got one cancellation per call before its stdin ended.
    assert_eq!(record.cancels().len(), 256, "notifications/cancelled upstream");
    assert_answered_once(&driver.seen, &[json!("init"), json!("p1")]);
    assert_only_answered(&driver.seen, &[json!("init"), json!("p1")]);
}

/// "A request above the limit of 256 requests in flight" gets
/// too_many_requests at once and in order; the 256 in flight are then all
/// answered, in the reverse order, each with its own content.
#[test]
fn three_hundred_requests_at_once_give_256_results_and_44_too_many_requests() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let burst: Vec<Value> = (0..300).map(|i| call_tool(json!(i), "gather", json!({"count": 256, "tag": i}))).collect();
    driver.send_burst(&burst);
    let all = ids(0..300);
    driver.wait_responses(&all, STEP);
    end_of_input(&mut driver, 0);
    let responses: Vec<&Value> = driver.seen.iter().filter(|m| is_response(m) && m["id"] != "init").collect();
    let refused: Vec<i64> =
        responses.iter().filter(|r| r.get("error").is_some()).filter_map(|r| r["id"].as_i64()).collect();
    assert_eq!(refused, (256..300).collect::<Vec<i64>>(), "the extra requests are refused in order");
    for id in 256..300 {
        assert_eq!(
            responses_to(&driver.seen, &json!(id)),
            vec![&err(json!(id), bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None))]
        );
    }
    let answered: Vec<i64> =
        responses.iter().filter(|r| r.get("result").is_some()).filter_map(|r| r["id"].as_i64()).collect();
    assert_eq!(answered, (0..256).rev().collect::<Vec<i64>>(), "the upstream's reverse order");
    for id in 0..256 {
        assert_eq!(responses_to(&driver.seen, &json!(id)), vec![&text_response(json!(id), &format!("gather {id}"))]);
    }
    let mut everything = all.clone();
    everything.push(json!("init"));
    assert_answered_once(&driver.seen, &everything);
    assert_only_answered(&driver.seen, &everything);
}

/// "Cancellation (M1)": canceling every request in flight answers none of
/// them, sends one notifications/cancelled upstream for each, and frees
/// every place: 256 new requests then fit and are all answered.
#[test]
fn canceling_everything_answers_nothing_and_frees_every_place() {
    let record = Record::new("cancel-all");
    let mut driver = Driver::start(&[], &fake_upstream(&["--record", record.arg()]));
    driver.initialize();
    let canceled = ids(0..256);
    let burst: Vec<Value> = canceled.iter().map(|id| call_tool(id.clone(), "stall", json!({}))).collect();
    driver.send_burst(&burst);
    driver.assert_alive_amid("p1");
    let cancels: Vec<Value> = canceled.iter().map(cancel).collect();
    driver.send_burst(&cancels);
    let upstream = record.wait_cancels(256);
    assert_eq!(upstream.len(), 256, "one cancellation upstream per request");
    assert!(upstream.iter().all(|c| c["params"]["reason"] == "the client canceled the request"));
    let calls: std::collections::BTreeSet<String> =
        record.messages().iter().filter(|m| m["method"] == "tools/call").map(|m| m["id"].to_string()).collect();
    let canceled_upstream: std::collections::BTreeSet<String> =
        upstream.iter().map(|c| c["params"]["requestId"].to_string()).collect();
    assert_eq!(calls, canceled_upstream, "each upstream call is canceled once");
    // Every place is free again.
    let again: Vec<Value> =
        (1000..1256).map(|i| call_tool(json!(i), "gather", json!({"count": 256, "tag": i}))).collect();
    driver.send_burst(&again);
    let later = ids(1000..1256);
    driver.wait_responses(&later, STEP);
    for id in 1000..1256 {
        assert_eq!(responses_to(&driver.seen, &json!(id)), vec![&text_response(json!(id), &format!("gather {id}"))]);
    }
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &canceled);
    let mut answered = later;
    answered.extend([json!("init"), json!("p1")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// "Cancellation (M1)": "The client of zig-sdk then sends
/// notifications/cancelled to the upstream server", also when the server
/// is busy: it stops reading for 1.5 s while 250 calls of 2 KiB fill the
/// pipe and the write queue, and the client cancels them all. Every call
/// that reached the upstream gets its cancellation once, after the call;
/// a call whose line never went out gets none.
#[test]
fn a_busy_upstream_gets_the_cancellation_of_every_call_that_reached_it() {
    let record = Record::new("cancel-busy");
    let mut driver = Driver::start(&[], &fake_upstream(&["--record", record.arg()]));
    driver.initialize();
    driver.send(&call_tool(json!("pause"), "pause", json!({"ms": 1500})));
    record.wait_calls(1);
    let canceled = ids(0..250);
    let padding = "x".repeat(2048);
    let burst: Vec<Value> =
        canceled.iter().map(|id| call_tool(id.clone(), "stall", json!({"padding": padding}))).collect();
    driver.send_burst(&burst);
    driver.assert_alive_amid("p1");
    driver.send_burst(&canceled.iter().map(cancel).collect::<Vec<_>>());
    assert_eq!(driver.response(&json!("pause")), text_response(json!("pause"), "paused"));
    // A request queued after everything: its answer means that the fake
    // has read every line before it, the cancellations that waited too.
    let last = driver.call(json!("last"), "tools/list", json!({}));
    assert_eq!(last["id"], "last", "{last}");
    let messages = record.messages();
    let calls: Vec<String> = messages
        .iter()
        .filter(|m| m["method"] == "tools/call" && m["params"]["name"] == "stall")
        .map(|m| m["id"].to_string())
        .collect();
    let cancels = record.wait_cancels(calls.len());
    let canceled_upstream: Vec<String> = cancels.iter().map(|c| c["params"]["requestId"].to_string()).collect();
    let sorted = |mut ids: Vec<String>| {
        ids.sort();
        ids
    };
    assert_eq!(sorted(canceled_upstream.clone()), sorted(calls.clone()), "each call that went out is canceled once");
    for id in &calls {
        let call_at = messages.iter().position(|m| m["method"] == "tools/call" && &m["id"].to_string() == id);
        let cancel_at = messages
            .iter()
            .position(|m| m["method"] == "notifications/cancelled" && &m["params"]["requestId"].to_string() == id);
        assert!(call_at < cancel_at || cancel_at.is_none(), "the cancellation of {id} came before its call");
    }
    assert!(cancels.iter().all(|c| c["params"]["reason"] == "the client canceled the request"));
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &canceled);
}

/// "Pending requests of the bridge": "The reader drops an answer whose id
/// is unknown, numeric, null or already resolved, with only a debug line.
/// The client gets no answer for it." A withdrawn question gets
/// notifications/cancelled with the reason of the event, and its late
/// answer is dropped.
#[test]
fn answers_to_unknown_or_resolved_bridge_ids_get_no_answer() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    let init = driver.initialize_with(json!({"elicitation": {"form": {}}}));
    assert!(init.get("result").is_some(), "{init}");
    let form = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let steps = json!([{"resultType": "input_required", "inputRequests": {"who": form}}]);
    // Answers to questions the bridge never asked, before any question.
    let strays = [
        json!({"jsonrpc": "2.0", "id": "b-1", "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": "b-999", "result": {}}),
        json!({"jsonrpc": "2.0", "id": "b-", "error": {"code": -1, "message": "no"}}),
        json!({"jsonrpc": "2.0", "id": "b-x", "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": null, "result": {}}),
    ];
    driver.send_burst(&strays);
    driver.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"b-77\",\"result\":{oops}\n");
    driver.assert_alive_amid("p1");

    driver.send(&call_tool(json!("ask"), "script", json!({"steps": steps})));
    let question = driver.recv();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let qid = question["id"].clone();
    assert_eq!(qid, "b-1", "the stray answers took no id");
    // Unknown ids around the real answer, then the answer twice and an
    // error for the same id: only the first counts.
    driver.send_burst(&[
        json!({"jsonrpc": "2.0", "id": "b-2", "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "accept", "content": {"name": "Ada"}}}),
        json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": qid, "error": {"code": -32000, "message": "late"}}),
    ]);
    driver.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"b-1\",\"result\":{oops}\n");
    let answer = driver.response(&json!("ask"));
    // The fake echoes the inputResponses it got as JSON text.
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
    let echoed: Value = serde_json::from_str(text).unwrap_or_default();
    assert_eq!(echoed, json!({"who": {"action": "accept", "content": {"name": "Ada"}}}), "{answer}");
    assert_eq!(answer, text_response(json!("ask"), text));

    // A question withdrawn by the cancel of its request; its late answer is dropped.
    driver.send(&call_tool(json!("gone"), "script", json!({"steps": steps})));
    let question = driver.recv();
    let qid = question["id"].clone();
    assert_eq!(qid, "b-2", "{question}");
    driver.cancel(&json!("gone"));
    let withdrawn = driver.recv();
    assert_eq!(
        withdrawn,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "b-2", "reason": "the client canceled the request"}})
    );
    driver.send(&json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "accept", "content": {"name": "Late"}}}));
    driver.assert_alive_amid("p2");
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &[json!("gone")]);
    let all = [json!("init"), json!("p1"), json!("ask"), json!("p2")];
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// "Lines that are not valid": huge lines (line_too_long, the id from
/// either end, else null) and deep lines (too_deep, without parsing them)
/// between valid requests; every line gets exactly its one answer, in the
/// order of the lines, and the valid ones are served.
#[test]
fn huge_and_deep_lines_between_valid_ones_each_get_their_one_answer() {
    let limit = 65_536;
    let mut driver = Driver::start(&["--max-line-bytes", &limit.to_string()], &fake_upstream(&[]));
    driver.initialize();
    let pad = "x".repeat(1 << 20);
    let deep = "[".repeat(60_000);
    let ping = |id: &str| format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"ping\"}}\n");
    let lines: Vec<String> = vec![
        ping("v1"),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":\"h-head\",\"method\":\"tools/call\",\"params\":{{\"p\":\"{pad}\"}}}}\n"),
        ping("v2"),
        format!("{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"p\":\"{pad}\"}},\"id\":\"h-tail\"}}\n"),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":\"d-open\",\"method\":\"ping\",\"params\":{deep}\n"),
        ping("v3"),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"d-closed\",\"method\":\"ping\",\"params\":{{\"a\":{}{}}}}}\n",
            "[".repeat(5000),
            "]".repeat(5000)
        ),
        format!("{{\"p\":\"{pad}\"}}\n"),
        format!("{deep}\n"),
        ping("v4"),
        format!("{pad}\n"),
        ping("v5"),
    ];
    let mut bytes = Vec::new();
    for line in &lines {
        bytes.extend_from_slice(line.as_bytes());
    }
    driver.send_raw(&bytes);
    driver.send(&call_tool(json!("v6"), "unknown-id", json!({})));
    let too_long =
        bridge_error(-32600, &message("line_too_long"), "line_too_long", Some(&format!("limit: {limit} bytes")));
    let too_deep = bridge_error(-32600, &message("too_deep"), "too_deep", Some("limit: 64 levels"));
    let ok = |id: &str| json!({"jsonrpc": "2.0", "id": id, "result": {}});
    let expected = vec![
        ok("v1"),
        err(json!("h-head"), too_long.clone()),
        ok("v2"),
        err(json!("h-tail"), too_long.clone()),
        err(json!("d-open"), too_deep.clone()),
        ok("v3"),
        err(json!("d-closed"), too_deep.clone()),
        err(json!(null), too_long.clone()),
        err(json!(null), too_deep),
        ok("v4"),
        err(json!(null), too_long),
        ok("v5"),
        text_response(json!("v6"), "real"),
    ];
    let got: Vec<Value> = expected.iter().map(|_| driver.recv()).collect();
    assert_eq!(got, expected);
    end_of_input(&mut driver, 0);
    let counts = responses_per_id(&driver.seen);
    assert_eq!(counts.get("null"), Some(&3), "three lines without an id");
    for id in ["v1", "v2", "v3", "v4", "v5", "v6", "h-head", "h-tail", "d-open", "d-closed", "init"] {
        assert_eq!(counts.get(&json!(id).to_string()), Some(&1), "{id}");
    }
    assert_eq!(counts.len(), 12, "{counts:?}");
}

/// The same at the default limit of 64 MiB: a line of exactly one byte
/// over `--max-line-bytes` (67108864) gets line_too_long with its id, and
/// the next line is served.
#[test]
fn a_line_one_byte_over_the_default_limit_gets_line_too_long_and_the_next_is_served() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let limit = 64 * 1024 * 1024;
    let head = "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"ping\",\"params\":{\"p\":\"";
    let tail = "\"}}";
    let mut line = String::with_capacity(limit + 2);
    line.push_str(head);
    line.push_str(&"x".repeat(limit + 1 - head.len() - tail.len()));
    line.push_str(tail);
    assert_eq!(line.len(), limit + 1);
    line.push('\n');
    line.push_str("{\"jsonrpc\":\"2.0\",\"id\":\"next\",\"method\":\"ping\"}\n");
    driver.send_raw(line.as_bytes());
    assert_eq!(
        driver.recv(),
        err(
            json!("big"),
            bridge_error(-32600, &message("line_too_long"), "line_too_long", Some("limit: 67108864 bytes"))
        )
    );
    assert_eq!(driver.recv(), json!({"jsonrpc": "2.0", "id": "next", "result": {}}));
    end_of_input(&mut driver, 0);
    assert_answered_once(&driver.seen, &[json!("init"), json!("big"), json!("next")]);
    assert_only_answered(&driver.seen, &[json!("init"), json!("big"), json!("next")]);
}

/// Bad lines of the client in the middle of requests in flight: a parse
/// error and a shape error each get their one answer, and do not disturb
/// the requests in flight (each answered once).
#[test]
fn bad_lines_during_requests_in_flight_do_not_disturb_them() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let mut burst = Vec::new();
    for i in 0..100 {
        burst.extend(line(&call_tool(json!(i), "gather", json!({"count": 100, "tag": i}))));
        if i % 10 == 0 {
            burst.extend(format!("{{\"jsonrpc\":\"2.0\",\"id\":\"bad-{i}\",oops}}\n").into_bytes());
            burst.extend(format!("{{\"jsonrpc\":\"1.0\",\"id\":\"shape-{i}\",\"method\":\"ping\"}}\n").into_bytes());
        }
    }
    driver.send_raw(&burst);
    let all = ids(0..100);
    driver.wait_responses(&all, STEP);
    end_of_input(&mut driver, 0);
    let mut answered = all.clone();
    answered.push(json!("init"));
    for i in (0..100).step_by(10) {
        let bad = json!(format!("bad-{i}"));
        let shape = json!(format!("shape-{i}"));
        assert_eq!(
            responses_to(&driver.seen, &bad),
            vec![&err(bad.clone(), bridge_error(-32700, &message("parse_error"), "parse_error", None))]
        );
        assert_eq!(
            responses_to(&driver.seen, &shape),
            vec![&err(
                shape.clone(),
                bridge_error(-32600, &message("invalid_request_shape"), "invalid_request_shape", None)
            )]
        );
        answered.extend([bad, shape]);
    }
    for i in 0..100 {
        assert_eq!(responses_to(&driver.seen, &json!(i)), vec![&text_response(json!(i), &format!("gather {i}"))]);
    }
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// "Pending requests of the bridge": "The reader puts each answer into the
/// table at once, also at the limit of requests in flight." 256 requests
/// each wait for an answer of the client; a 257th is refused; the 256
/// answers all get through, and each request is answered once.
#[test]
fn answers_of_the_client_get_through_at_the_limit_of_requests_in_flight() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    let init = driver.initialize_with(json!({"elicitation": {"form": {}}}));
    assert!(init.get("result").is_some(), "{init}");
    let form = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let steps = json!([{"resultType": "input_required", "inputRequests": {"who": form}}]);
    let burst: Vec<Value> = (0..256).map(|i| call_tool(json!(i), "script", json!({"steps": steps}))).collect();
    driver.send_burst(&burst);
    let deadline = Instant::now() + STEP;
    let questions = loop {
        let questions: Vec<Value> =
            driver.seen.iter().filter(|m| m["method"] == "elicitation/create").map(|m| m["id"].clone()).collect();
        if questions.len() == 256 {
            break questions;
        }
        assert!(Instant::now() < deadline, "{} of 256 questions came", questions.len());
        driver.drain_for(Duration::from_millis(50));
    };
    let extra = driver.call(json!("extra"), "tools/call", json!({"name": "unknown-id"}));
    assert_eq!(
        extra,
        err(json!("extra"), bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None))
    );
    let answers: Vec<Value> = questions
        .iter()
        .map(|q| json!({"jsonrpc": "2.0", "id": q, "result": {"action": "accept", "content": {"name": q}}}))
        .collect();
    driver.send_burst(&answers);
    let all = ids(0..256);
    driver.wait_responses(&all, STEP);
    for id in &all {
        let response = responses_to(&driver.seen, id)[0].clone();
        let text = response["result"]["content"][0]["text"].as_str().unwrap_or_default();
        let echoed: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(echoed["who"]["action"], "accept", "{response}");
    }
    end_of_input(&mut driver, 0);
    let mut answered = all;
    answered.extend([json!("init"), json!("extra")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}
