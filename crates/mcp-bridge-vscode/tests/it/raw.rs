//! The raw path of results, through the real binary: a result
//! line of a pipe goes to the client as the bytes that came when no rule
//! rewrites a member deeply, and through the full path otherwise. Big lines
//! (past the 64 KiB of the kept buffer and of the reader) and small ones
//! take it alike. Either way the client gets what the behaviour spec's result
//! rules ("Result rules (M1)") and error table say, and the bridge keeps
//! serving. The property tests (`crates/mcp-bridge/src/tests/properties_raw.rs`)
//! compare both paths on generated lines; this table checks the wire.

use crate::support::driver::Driver;
use crate::support::fake::fake_upstream;
use crate::support::{bridge_error, message};
use serde_json::{json, Value};

/// A string member that makes each line longer than the 64 KiB of the
/// reader's buffer and of the kept buffer (`pipe::KeptBuffer`).
fn pad() -> String {
    "p".repeat(70 * 1024)
}

/// One big result: the JSON text the upstream server writes, and what the
/// client must get.
struct Case {
    rule: &'static str,
    result_text: String,
    want: Result<Value, Value>,
}

/// The cases with `pad` in their long strings: empty for small lines,
/// [`pad`] for big ones.
fn cases(pad: &str) -> Vec<Case> {
    vec![
        Case {
            rule: "a tools/call result with a text block loses only the modern members and the server information",
            result_text: format!(
                r#"{{"resultType":"complete","content":[{{"type":"text","text":"{pad}"}}],"ttlMs":5,"structuredContent":{{"n":1e400,"z":-0,"u":123456789012345678901234567890}},"cacheScope":"x","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"s"}},"k":[1.50]}},"isError":false}}"#
            ),
            want: Ok(serde_json::from_str(&format!(
                r#"{{"content":[{{"type":"text","text":"{pad}"}}],"structuredContent":{{"n":1e400,"z":-0,"u":123456789012345678901234567890}},"_meta":{{"k":[1.50]}},"isError":false}}"#
            ))
            .unwrap_or_default()),
        },
        Case {
            rule: "a _meta left empty goes; escapes and whitespace keep their values",
            result_text: format!(
                "{{ \"content\" : [ {{\"type\":\"t\\u0065xt\", \"text\": \"a\\/b\\u00e9{pad}\"}} ] ,\t \
                 \"_meta\": {{\"io.modelcontextprotocol/serverInfo\": {{}}}} }}"
            ),
            want: Ok(json!({"content": [{"type": "text", "text": format!("a/bé{pad}")}]})),
        },
        Case {
            rule: "the text mirror still comes when no text block is there (the full path)",
            result_text: format!(r#"{{"content":[],"structuredContent":{{"big":"{pad}"}}}}"#),
            want: Ok(json!({"content": [{"type": "text", "text": format!(r#"{{"big":"{pad}"}}"#)}],
                "structuredContent": {"big": pad}})),
        },
        Case {
            rule: "a missing content array is added (the full path)",
            result_text: format!(r#"{{"structuredContent":null,"other":"{pad}"}}"#),
            want: Ok(json!({"structuredContent": null, "other": pad, "content": []})),
        },
        Case {
            rule: "a lone surrogate escape is a response that is not valid (parse_error)",
            result_text: format!(r#"{{"content":[{{"type":"text","text":"\ud800{pad}"}}]}}"#),
            want: Err(bridge_error(-32603, &message("invalid_response"), "invalid_response", Some("parse_error"))),
        },
        Case {
            rule: "a result deeper than 128 levels is a response that is not valid (too_deep)",
            result_text: format!(r#"{{"x":"{pad}","d":{}{}}}"#, "[".repeat(130), "]".repeat(130)),
            want: Err(bridge_error(-32603, &message("invalid_response"), "invalid_response", Some("too_deep"))),
        },
    ]
}

/// `ok:` or `error:` and the JSON text, with member order and number text.
fn texts(outcome: &Result<Value, Value>) -> String {
    match outcome {
        Ok(result) => format!("ok: {result}"),
        Err(error) => format!("error: {error}"),
    }
}

#[test]
fn each_result_small_or_big_gets_the_result_rules_or_the_error_and_the_bridge_keeps_serving() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    let all = cases("").into_iter().chain(cases(&pad()));
    for (n, case) in all.enumerate() {
        let id = json!(format!("case-{n}"));
        // `raw` answers with the text as the result's JSON text, byte for
        // byte.
        let response =
            bridge.request(id.clone(), "tools/call", json!({"name": "raw", "arguments": {"text": case.result_text}}));
        let got = match response.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(response["error"].clone()),
        };
        let (got, want) = (texts(&got), texts(&case.want));
        // Each text is 70 KiB: a mismatch shows where they part.
        let at = got.bytes().zip(want.bytes()).take_while(|(a, b)| a == b).count();
        let around = |t: &str| t.get(at.saturating_sub(80)..(at + 80).min(t.len())).unwrap_or("").to_owned();
        assert!(got == want, "{}: at byte {at}, got ...{}... want ...{}...", case.rule, around(&got), around(&want));
        assert_eq!(bridge.request(json!(format!("ping-{n}")), "ping", json!({}))["result"], json!({}), "{}", case.rule);
    }
}

/// What shows that the raw path ran: an untouched member of a result,
/// small or big, reaches the client byte for byte, with the escapes and
/// whitespace of the server (the full path would write `"text"` and
/// `"a/bé`), while the members a rule names are gone.
#[test]
fn an_untouched_member_of_a_result_reaches_the_client_byte_for_byte() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    for (id, pad) in [(1, String::new()), (2, pad())] {
        let block = format!(r#"{{"type":"t\u0065xt", "text": "a\/b\u00e9{pad}"}}"#);
        let text = format!(r#"{{"resultType":"complete","content":[ {block} ],"ttlMs":1}}"#);
        bridge.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "raw", "arguments": {"text": text}}}));
        let line = bridge.recv_text();
        let want = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[ {block} ]}}}}"#);
        assert!(line == want, "got {}...", line.get(..200).unwrap_or(&line));
    }
}

/// A `tools/list` result of more than 64 KiB and less than the 128 KiB of
/// one argument of the fake (`--tools-list`): each tool has two array
/// schemas for R6, one without `items` and one with `items: false`, and a
/// description with an `é`, which the fake writes as `\u00e9` and only the
/// raw path keeps so; `nextCursor` is null. The JSON text, and the result
/// the client must get.
fn big_list() -> (String, Value) {
    const TOOLS: usize = 380;
    let description = format!(r#""a\u00e9b {}""#, "d".repeat(150));
    let tools: Vec<String> = (0..TOOLS)
        .map(|i| {
            format!(
                r#"{{"name":"t{i}","description":{description},"inputSchema":{{"type":"object","properties":{{"v":{{"type":"array"}},"w":{{"type":"array","items":false}}}}}}}}"#
            )
        })
        .collect();
    let text = format!(r#"{{"resultType":"complete","tools":[{}],"nextCursor":null}}"#, tools.join(","));
    assert!((64 * 1024..128 * 1024).contains(&text.len()), "the list is {} bytes", text.len());
    let want_tools: Vec<Value> = (0..TOOLS)
        .map(|i| {
            json!({"name": format!("t{i}"), "description": format!("aéb {}", "d".repeat(150)),
                "inputSchema": {"type": "object", "properties": {"v": {"type": "array", "items": {}},
                "w": {"type": "array", "items": {}, "maxItems": 0}}}})
        })
        .collect();
    (text, json!({"tools": want_tools}))
}

/// R6 and the `nextCursor` rule on a big list (behaviour spec, "Result
/// rules (M1)", "The items rule for array schemas (R6)"): the client gets
/// every repair, and the untouched description comes with the escape of
/// the server, which shows that the raw path (`raw::list`) answered.
#[test]
fn a_big_tools_list_gets_r6_on_the_raw_path() {
    let (list, want) = big_list();
    let mut bridge = Driver::start(&[], &fake_upstream(&["--tools-list", &list]));
    bridge.initialize();
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}));
    let line = bridge.recv_text();
    // The raw path keeps the server's escape, and its spaces.
    assert!(line.contains(r#""a\u00e9b "#), "got {}...", line.get(..300).unwrap_or(&line));
    let got: Value = serde_json::from_str(&line).unwrap_or_default();
    assert!(got["result"] == want, "got {}...", line.get(..600).unwrap_or(&line));
    assert_eq!(bridge.request(json!(2), "ping", json!({}))["result"], json!({}));
}

/// "Each change gives one info line with the name of the tool and the JSON
/// pointer of the schema", on the raw path too: two per tool, in the
/// order of the tools and of their members.
#[test]
fn each_r6_repair_of_a_big_list_gives_its_info_line_in_order() {
    let (list, want) = big_list();
    let mut driver = Driver::start(&[], &fake_upstream(&["--tools-list", &list]));
    driver.initialize();
    let response = driver.call(json!(1), "tools/list", json!({}));
    assert!(response["result"] == want, "the result of the list differs");
    driver.close_stdin();
    let ended = driver.wait_exit(std::time::Duration::from_secs(10));
    assert_eq!(ended.status.code(), Some(0));
    let notes: Vec<&str> = ended.stderr.lines().filter(|l| l.contains(" inputSchema '")).collect();
    let count = want["tools"].as_array().map_or(0, Vec::len);
    assert_eq!(notes.len(), 2 * count, "stderr:\n{}", ended.stderr);
    for (i, pair) in notes.chunks(2).enumerate() {
        let v = format!("tool 't{i}', inputSchema '/properties/v': an array schema without items got items: {{}}");
        let w = format!(
            "tool 't{i}', inputSchema '/properties/w': an array schema with items: false got items: {{}} and maxItems: 0"
        );
        assert!(pair[0].contains("INFO") && pair[0].contains(&v), "{}", pair[0]);
        assert!(pair[1].contains("INFO") && pair[1].contains(&w), "{}", pair[1]);
    }
}
