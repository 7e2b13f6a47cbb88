//! JSON-RPC batches: revision 2025-03-26 defines `JSONRPCBatchRequest` and
//! requires a receiver to take them; 2025-06-18 removed them again. A
//! client that negotiated 2025-03-26 gets one array of the responses of a
//! batch's requests, in their order, once the last one is answered or
//! canceled (decisions.md, "Revisions of the client", "Batches"); every
//! other revision gets today's answer.

use super::{fake_client, valid};
use crate::support::driver::{call_tool, cancel, line, ok, request, Driver};
use crate::support::fake::Record;
use crate::support::{assert_json, error_response, message};
use serde_json::{json, Value};

/// The tools of the fake, so that a list's result is a list.
const TOOLS: &str = r#"{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}"#;

/// The batch of the brief: a ping, a list, an element that is no message,
/// a notification, a request of an unknown method; as one line.
fn mixed_batch() -> Vec<u8> {
    let elements = json!([
        request(json!(1), "ping", json!({})),
        request(json!(2), "tools/list", json!({})),
        5,
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        request(json!("a"), "no/such/method", json!({}))
    ]);
    line(&elements)
}

fn batch_client(revision: &str) -> Driver {
    fake_client(revision, json!({}), &["--tools-list", TOOLS])
}

/// The answer of a revision without batches to a batch: one -32600 whose
/// id is null.
fn refused() -> Value {
    error_response(Value::Null, -32600, &message("invalid_request_shape"), "invalid_request_shape", None)
}

/// Rule: "a non-empty array is read element by element ... and the
/// responses go out as one array in the order of the elements ...; an
/// element that is not valid gets its error there" (decisions.md,
/// "Batches"): one line, an array of 4 responses (ids 1, 2, null, "a"),
/// each with an id valid under 2025-03-26; the notification gets nothing.
#[test]
fn a_batch_of_a_2025_03_26_client_gets_one_array_in_the_order_of_its_requests() {
    let mut bridge = batch_client("2025-03-26");
    bridge.send_raw(&mixed_batch());
    let text = bridge.recv_text();
    let got: Value = serde_json::from_str(&text).unwrap_or_default();
    let tools: Value = serde_json::from_str(TOOLS).unwrap_or_default();
    let want = json!([
        ok(json!(1), json!({})),
        ok(json!(2), tools),
        error_response(Value::Null, -32600, &message("invalid_request_shape"), "invalid_request_shape", None),
        error_response(json!("a"), -32601, &message("method_not_found"), "method_not_found", None)
    ]);
    assert_json("the batch's array", &got, &want);
    for response in got.as_array().into_iter().flatten() {
        match (&response["id"], response.get("error")) {
            // The schema's RequestId has no null, which JSON-RPC 2.0 gives
            // a request whose id cannot be read: its shape is compared above.
            (Value::Null, _) => {}
            (_, Some(_)) => valid("2025-03-26", "JSONRPCError", response),
            (_, None) => valid("2025-03-26", "JSONRPCResponse", response),
        }
    }
    // Nothing else came of the batch: the next line is the ping's answer.
    bridge.assert_alive();
}

/// Rule: "a batch with no response to give gets nothing (JSON-RPC)", and
/// only "a non-empty array" is a batch (decisions.md, "Batches"): `[]` is
/// one request that is not valid, and gets one -32600 with the id null,
/// not an array (JSON-RPC 2.0, "Batch").
#[test]
fn a_batch_of_notifications_gets_no_line_and_an_empty_batch_one_error() {
    let mut bridge = batch_client("2025-03-26");
    let notifications = json!([
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99, "reason": "none"}}
    ]);
    bridge.send(&notifications);
    bridge.assert_alive();
    bridge.send_raw(b"[]\n");
    assert_json("[]", &bridge.recv(), &refused());
    bridge.assert_alive();
}

/// Rule: "each with the limits of a line of its own" (decisions.md,
/// "Batches"; ARCHITECTURE, "the 256 places in flight"): 300 calls of a
/// slow tool in one batch; the array has exactly one response per id, in
/// order, those beyond 256 -32603 `too_many_requests`.
#[test]
fn a_batch_beyond_the_places_in_flight_gets_too_many_requests_in_its_array() {
    let mut bridge = batch_client("2025-03-26");
    // Slow enough that the first 256 are in flight while the rest is read.
    let calls: Vec<Value> = (1..=300).map(|id| call_tool(json!(id), "late", json!({"ms": 3000}))).collect();
    bridge.send(&Value::Array(calls));
    let got = bridge.recv();
    let want: Vec<Value> = (1..=300)
        .map(|id| match id {
            1..=256 => ok(json!(id), json!({"content": [{"type": "text", "text": "late"}]})),
            _ => error_response(json!(id), -32603, &message("too_many_requests"), "too_many_requests", None),
        })
        .collect();
    assert_json("the array of 300", &got, &Value::Array(want));
    bridge.assert_alive();
}

/// Rule: "once the last is answered or canceled" (decisions.md,
/// "Batches"): a request of the batch that the client cancels while the
/// other one runs leaves no entry, and the array comes once the other
/// request is answered.
#[test]
fn a_canceled_request_of_a_batch_leaves_no_entry() {
    let record = Record::new("batch-cancel");
    let mut bridge = fake_client("2025-03-26", json!({}), &["--record", record.arg()]);
    let gather = |id: &str, tag: &str| call_tool(json!(id), "gather", json!({"count": 2, "tag": tag}));
    bridge.send(&json!([call_tool(json!("s"), "stall", json!({})), gather("g1", "one")]));
    record.wait_calls(2);
    bridge.send(&cancel(&json!("s")));
    // The second gather releases both: the fake answers it, then g1.
    bridge.send(&gather("g2", "two"));
    let (mut array, mut alone) = (None, None);
    while array.is_none() || alone.is_none() {
        let message = bridge.recv();
        match &message {
            Value::Array(_) if array.is_none() => array = Some(message),
            _ if message["id"] == "g2" && alone.is_none() => alone = Some(message),
            other => panic!("an unexpected line: {other}"),
        }
    }
    let gathered =
        |id: &str, tag: &str| ok(json!(id), json!({"content": [{"type": "text", "text": format!("gather {tag}")}]}));
    assert_json("the batch", &array.unwrap_or_default(), &json!([gathered("g1", "one")]));
    assert_json("the call on its own", &alone.unwrap_or_default(), &gathered("g2", "two"));
    bridge.assert_alive();
}

/// Rule: "Every other revision gets today's `-32600` with the id null"
/// (decisions.md, "Batches"): the same line from a client of 2025-06-18 or
/// 2025-11-25 gets that one error, and nothing else.
#[test]
fn a_batch_of_a_later_revision_gets_one_32600_with_id_null() {
    for revision in ["2025-06-18", "2025-11-25"] {
        let mut bridge = batch_client(revision);
        bridge.send_raw(&mixed_batch());
        assert_json(revision, &bridge.recv(), &refused());
        bridge.assert_alive();
    }
}

/// Rule: a batch that repeats an id "gets a response for each of its
/// requests, in turn" (decisions.md, "Batches"): two calls with the id 1,
/// a slow one and a quick one, give one array of two responses, and a
/// later single request of that id gets its own line.
#[test]
fn a_batch_that_repeats_an_id_gets_a_response_for_each_request() {
    let mut bridge = batch_client("2025-03-26");
    bridge.send(&json!([
        call_tool(json!(1), "late", json!({"ms": 300})),
        call_tool(json!(1), "late", json!({"ms": 10}))
    ]));
    let got: Value = serde_json::from_str(&bridge.recv_text()).unwrap_or_default();
    let late = ok(json!(1), json!({"content": [{"type": "text", "text": "late"}]}));
    assert_json("the batch's array", &got, &json!([late.clone(), late]));
    assert_json("a later ping of id 1", &bridge.request(json!(1), "ping", json!({})), &ok(json!(1), json!({})));
}

/// Rule: each element keeps "the limits of a line of its own" (decisions.md,
/// "Batches"): an element deeper than 64 levels gets its own `too_deep`,
/// with its id, and the other element its answer, in one array.
#[test]
fn an_element_too_deep_gets_its_own_error_beside_the_others_answers() {
    let mut bridge = batch_client("2025-03-26");
    let mut deep = json!({});
    for _ in 0..64 {
        deep = json!({"a": deep});
    }
    bridge.send(&json!([request(json!(1), "ping", json!({})), request(json!(2), "ping", deep)]));
    let got: Value = serde_json::from_str(&bridge.recv_text()).unwrap_or_default();
    let too_deep = error_response(json!(2), -32600, &message("too_deep"), "too_deep", Some("limit: 64 levels"));
    assert_json("the batch's array", &got, &json!([ok(json!(1), json!({})), too_deep]));
}

/// Rule: "the batches are taken from the moment the revision is
/// negotiated (before the initialize result)" (decisions.md, "Batches"):
/// a batch sent while the upstream is slow to answer server/discover gets
/// its array, not -32600.
#[test]
fn a_batch_before_the_initialize_result_is_taken() {
    let mut bridge = Driver::start(&[], &crate::support::fake::fake_upstream(&["--discover-delay-ms", "500"]));
    let params = json!({"protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "older", "version": "1"}});
    bridge.send(&request(json!("init"), "initialize", params));
    bridge.send(&json!([request(json!(1), "ping", json!({}))]));
    let first: Value = serde_json::from_str(&bridge.recv_text()).unwrap_or_default();
    assert_json("the batch's array", &first, &json!([ok(json!(1), json!({}))]));
    assert_eq!(bridge.recv()["result"]["protocolVersion"], "2025-03-26");
}
