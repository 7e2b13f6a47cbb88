//! The checks of a 2026-07-28 client's request before it is relayed
//! (docs/decisions.md, "Clients of 2026-07-28"; the transport page of
//! 2026-07-28, "Server Validation"), in the conformance suite's order: the
//! `_meta` names a revision and the client's capabilities (400, -32602);
//! `MCP-Protocol-Version` is that revision (400, -32020); the revision is
//! 2026-07-28 (400, -32022 with `supported` and `requested`); `Mcp-Method`
//! and `Mcp-Name` are the body's (400, -32020; a Base64 sentinel decoded),
//! one of each; a `tools/call`'s `Mcp-Param-*` are its arguments' (400,
//! -32020). A method the bridge does not relay gets 404 with -32601.
//! Every error is JSON and carries the request's id.

use super::hardening::answer_of;
use super::modern::{json_answer, meta, modern, post, REVISION};
use super::*;
use crate::support::http::refusal;
use crate::support::{assert_json, bridge_error, message};

fn invalid_params(id: Value) -> Value {
    let error = bridge_error(-32602, &message("invalid_params"), "invalid_params", None);
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// -32020 of the face's table (header_mismatch), with the request's id.
fn mismatch(id: Value) -> Value {
    let row = refusal("header_mismatch");
    json!({"jsonrpc": "2.0", "id": id,
        "error": {"code": row.code, "message": row.message, "data": {"cause": "header_mismatch"}}})
}

fn unsupported(id: Value, requested: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022,
        "message": "The bridge speaks revision 2026-07-28 to a client that does not initialize.",
        "data": {"supported": ["2026-07-28"], "requested": requested}}})
}

/// The answer of `req` must be 400 with exactly `expected` as JSON.
#[track_caller]
fn assert_400(face: &Face, label: &str, req: Req, expected: &Value) {
    assert_json(label, &json_answer(&face.send(req), 400), expected);
}

/// tools/list of a client whose `_meta` is `meta`.
fn list_with(id: u64, meta: Value) -> Value {
    request(json!(id), "tools/list", json!({"_meta": meta}))
}

/// The `_meta` must name a revision and the client's capabilities: else
/// 400 with -32602 (also without params at all), before the headers are
/// looked at.
#[test]
fn the_meta_must_name_the_revision_and_the_clients_capabilities() {
    let face = Face::start(&[], &demo());
    let no_meta = request(json!(1), "tools/list", json!({}));
    assert_400(&face, "no _meta", post(&no_meta), &invalid_params(json!(1)));
    let no_params = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    assert_400(&face, "no params", post(&no_params), &invalid_params(json!(2)));
    let revision_only = list_with(3, json!({"io.modelcontextprotocol/protocolVersion": REVISION}));
    assert_400(&face, "no capabilities", post(&revision_only), &invalid_params(json!(3)));
    let mut not_an_object = meta(REVISION);
    not_an_object["io.modelcontextprotocol/clientCapabilities"] = json!(true);
    assert_400(&face, "capabilities not an object", post(&list_with(4, not_an_object)), &invalid_params(json!(4)));
    // First: a wrong MCP-Protocol-Version too is still -32602.
    let both = post(&revision_only).header("MCP-Protocol-Version", "2025-11-25");
    assert_400(&face, "no capabilities and another header", both, &invalid_params(json!(3)));
}

/// `MCP-Protocol-Version` must be the revision of the body's `_meta`:
/// another one, or none, is 400 with -32020; it is checked before the
/// revision itself (a body of v999 with a header of 2026-07-28).
#[test]
fn the_protocol_version_header_must_be_the_bodys_revision() {
    let face = Face::start(&[], &demo());
    let list = modern(json!("v"), "tools/list", json!({}));
    assert_400(
        &face,
        "another revision",
        post(&list).header("MCP-Protocol-Version", "2025-11-25"),
        &mismatch(json!("v")),
    );
    assert_400(&face, "no header", post(&list).without("MCP-Protocol-Version"), &mismatch(json!("v")));
    let v999 = list_with(5, meta("v999"));
    assert_400(&face, "a header of 2026-07-28, a body of v999", post(&v999), &mismatch(json!(5)));
    let twice = post(&list).also("MCP-Protocol-Version", REVISION);
    assert_400(&face, "two MCP-Protocol-Version", twice, &mismatch(json!("v")));
}

/// A revision that is not 2026-07-28, in both the header and the body, is
/// 400 with -32022, whose data names the supported revisions and the one
/// requested; before `Mcp-Method` is looked at.
#[test]
fn another_revision_gets_32022_with_supported_and_requested() {
    let face = Face::start(&[], &demo());
    for requested in ["v999", "2025-11-25"] {
        let list = post(&list_with(6, meta(requested))).header("MCP-Protocol-Version", requested);
        assert_400(&face, requested, list.clone(), &unsupported(json!(6), requested));
        let wrong_method = list.header("Mcp-Method", "prompts/list");
        assert_400(&face, "and a wrong Mcp-Method", wrong_method, &unsupported(json!(6), requested));
    }
}

/// `Mcp-Method` and `Mcp-Name` must be the body's: another value, none,
/// or two headers is 400 with -32020. A Base64 sentinel that decodes to
/// the name passes (the call is answered); one that decodes to another
/// name, or does not decode, does not.
#[test]
fn mcp_method_and_mcp_name_must_be_the_bodys() {
    let face = Face::start(&[], &demo());
    let add = modern(json!(7), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}}));
    let cases = [
        ("another Mcp-Method", post(&add).header("Mcp-Method", "tools/list")),
        ("no Mcp-Method", post(&add).without("Mcp-Method")),
        ("two Mcp-Method", post(&add).also("Mcp-Method", "tools/call")),
        ("another Mcp-Name", post(&add).header("Mcp-Name", "list_primes")),
        ("no Mcp-Name", post(&add).without("Mcp-Name")),
        ("two Mcp-Name", post(&add).also("Mcp-Name", "add")),
        ("a sentinel of another name", post(&add).header("Mcp-Name", "=?base64?YWRkcw==?=")),
        ("a sentinel that is no Base64", post(&add).header("Mcp-Name", "=?base64?***?=")),
    ];
    for (label, req) in cases {
        assert_400(&face, label, req, &mismatch(json!(7)));
    }
    // "add" in Base64.
    let sentinel = post(&add).header("Mcp-Name", "=?base64?YWRk?=");
    let sum = json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete",
        "content": [], "structuredContent": {"sum": 2}, "isError": false}});
    assert_json("the sentinel of the name", &json_answer(&face.send(sentinel), 200), &sum);
    let list = modern(json!(8), "tools/list", json!({}));
    assert_400(
        &face,
        "tools/list with another Mcp-Method",
        post(&list).header("Mcp-Method", "tools/call"),
        &mismatch(json!(8)),
    );
}

/// A `tools/call` or `prompts/get` without its name, or a `resources/read`
/// without its uri, is 400 with -32602, before its headers are compared.
#[test]
fn a_request_without_its_name_is_invalid_params() {
    let face = Face::start(&[], &demo());
    for (id, method, params) in [
        (9, "tools/call", json!({"arguments": {}})),
        (10, "prompts/get", json!({})),
        (11, "resources/read", json!({})),
        (12, "tools/call", json!({"name": 42})),
    ] {
        let req = post(&modern(json!(id), method, params));
        assert_400(&face, method, req.clone(), &invalid_params(json!(id)));
        assert_400(&face, "with an Mcp-Name", req.header("Mcp-Name", "add"), &invalid_params(json!(id)));
    }
}

/// A method the bridge does not relay (`initialize`, `ping` and
/// `logging/setLevel` of the earlier revisions, an unknown one) gets 404
/// with -32601 (the transport page), with the request's id, also when it
/// has the 2026-07-28 `_meta` and headers.
#[test]
fn a_method_the_bridge_does_not_relay_gets_404() {
    let face = Face::start(&[], &demo());
    for (id, method, params) in [
        (json!(13), "initialize", init_params("2025-11-25", json!({}))),
        (json!("p"), "ping", json!({})),
        (json!(14), "logging/setLevel", json!({"level": "info"})),
        (json!("u"), "tools/frobnicate", json!({})),
    ] {
        let expected = json!({"jsonrpc": "2.0", "id": id,
            "error": bridge_error(-32601, &message("method_not_found"), "method_not_found", None)});
        assert_json(method, &json_answer(&face.send(post(&modern(id.clone(), method, params))), 404), &expected);
    }
}

/// A client of 2026-07-28 has no session: its `Mcp-Session-Id` is ignored,
/// whether no session's or a session's of Streamable HTTP; the request is
/// served as a 2026-07-28 one, and that session goes on.
#[test]
fn an_mcp_session_id_on_a_2026_request_is_ignored() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let add = modern(json!(15), "tools/call", json!({"name": "add", "arguments": {"a": 20, "b": 22}}));
    let sum = json!({"jsonrpc": "2.0", "id": 15, "result": {"resultType": "complete",
        "content": [], "structuredContent": {"sum": 42}, "isError": false}});
    for id in ["not-a-session", session.id.as_str()] {
        assert_json(id, &json_answer(&face.send(post(&add).session(id)), 200), &sum);
    }
    let pong = answer_of(&face, &session, &request(json!(16), "ping", json!({})));
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 16, "result": {}}));
}

/// `Mcp-Param-*` (the transport page, "Custom Headers from Tool
/// Parameters"; SEP-2243): the upstream behind the face may not see HTTP,
/// so the face holds each header of a relayed `tools/call` to the argument
/// that the tool's `x-mcp-header` names: missing, different or not
/// decodable is 400 with -32020; the plain value and the Base64 sentinel
/// pass. The face learnt the tool with one `tools/list` of its own; calls
/// of a tool that the list does not have are relayed (the upstream
/// refuses them) without another listing (at most one every 5 s).
#[test]
fn mcp_param_headers_are_held_to_the_arguments_they_mirror() {
    let record = crate::support::fake::Record::new("mcp-param");
    let tools = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]});
    let tools = tools.to_string();
    let face =
        Face::start(&[], &crate::support::fake::fake_upstream(&["--record", record.arg(), "--tools-list", &tools]));
    let call = |id: u64, tool: &str| {
        modern(json!(id), "tools/call", json!({"name": tool, "arguments": {"region": "us-west1"}}))
    };
    let served = |reply: &Reply, id: u64| {
        let answer = json_answer(reply, 200);
        assert_eq!((answer["id"].clone(), answer.get("error")), (json!(id), None), "{answer}");
    };
    served(&face.send(post(&call(1, "echo")).header("Mcp-Param-Region", "us-west1")), 1);
    served(&face.send(post(&call(2, "echo")).header("Mcp-Param-Region", "=?base64?dXMtd2VzdDE=?=")), 2);
    assert_400(&face, "no header", post(&call(3, "echo")), &mismatch(json!(3)));
    assert_400(
        &face,
        "another value",
        post(&call(4, "echo")).header("Mcp-Param-Region", "eu-west1"),
        &mismatch(json!(4)),
    );
    let undecodable = post(&call(5, "echo")).header("Mcp-Param-Region", "=?base64?dXMtd2VzdDE?=");
    assert_400(&face, "not Base64", undecodable, &mismatch(json!(5)));
    let twice = post(&call(6, "echo")).header("Mcp-Param-Region", "us-west1").also("Mcp-Param-Region", "us-west1");
    assert_400(&face, "twice", twice, &mismatch(json!(6)));
    // The fake refuses a tool it does not have with -32602: 400.
    for id in [7, 8] {
        let reply = face.send(post(&call(id, "nope")));
        let refused = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "unknown tool nope"}});
        assert_json("a tool the list does not have", &json_answer(&reply, 400), &refused);
    }
    assert_eq!(record.count("tools/list"), 1, "one listing of the face's own");
    assert_eq!(record.count("tools/call"), 4, "the calls that passed, relayed");
}
