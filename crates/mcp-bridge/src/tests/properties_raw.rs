//! Property tests of the raw path of results against the full path: the
//! property of the fuzz target `raw_path`
//! (`crate::props::raw`), on response lines written the ways a
//! server can write them: members in any order or twice, whitespace,
//! escapes, and each member that a result rule names.

use super::strategies::{deep_schema, json, member, members, scalar, schema, word};
use crate::props::raw::{raw_path, CURSOR};
use crate::props::translate::{quirks_from, METHODS};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig { cases: n, failure_persistence: None, ..ProptestConfig::default() }
}

/// Icons as a server writes them: a `data:` URI (the scheme in any case),
/// another scheme, or anything.
fn icons() -> impl Strategy<Value = Value> {
    let src = select(vec!["data:image/png;base64,AA", "DATA:image/svg+xml,x", "https://x/a.png", "file:///a"]);
    let icon = prop_oneof![3 => src.prop_map(|src| json!({"src": src})), 1 => json()];
    prop_oneof![3 => prop::collection::vec(icon, 0..3).prop_map(Value::Array), 1 => json()]
}

fn block() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        Just(json!("text")),
        Just(json!("image")),
        Just(json!("resource_link")),
        Just(json!("te\u{0078}t")),
        scalar()
    ];
    prop_oneof![
        5 => members(vec![member("type", kind), member("text", scalar()), member("icons", icons())]),
        1 => json(),
    ]
}

fn meta() -> impl Strategy<Value = Value> {
    prop_oneof![
        members(vec![
            member("io.modelcontextprotocol/serverInfo", json()),
            member("x", json()),
            member("io.modelcontextprotocol/subscriptionId", scalar()),
        ]),
        json(),
    ]
}

/// A tool of a list, with the members that R6 and the `outputSchema` rule
/// read; now and then a schema at the depth limit of R6 or one level less.
fn tool() -> impl Strategy<Value = Value> {
    let input = prop_oneof![
        12 => schema(4),
        1 => Just(deep_schema(63)),
        1 => Just(deep_schema(64)),
        1 => json(),
    ];
    let output = prop_oneof![3 => Just(json!({"type": "object"})), 1 => schema(2), 1 => json()];
    prop_oneof![
        8 => members(vec![
            member("name", prop_oneof![4 => word().prop_map(Value::String), 1 => scalar()]),
            member("inputSchema", input),
            member("outputSchema", output),
            member("icons", icons()),
        ]),
        1 => json(),
    ]
}

/// A result with the members that the result rules name.
fn result() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => members(vec![
            member("resultType", prop_oneof![Just(json!("complete")), Just(json!("input_required")), scalar()]),
            member("ttlMs", scalar()),
            member("cacheScope", scalar()),
            member("_meta", meta()),
            member("content", prop_oneof![4 => prop::collection::vec(block(), 0..4).prop_map(Value::Array), 1 => json()]),
            member("structuredContent", json()),
            member("isError", scalar()),
            member("nextCursor", prop_oneof![3 => scalar(), 1 => Just(json!(CURSOR))]),
            member("tools", prop_oneof![4 => prop::collection::vec(tool(), 0..5).prop_map(Value::Array), 1 => json()]),
            member("prompts", prop::collection::vec(members(vec![member("name", scalar()), member("icons", icons())]), 0..3).prop_map(Value::Array)),
            member("messages", prop::collection::vec(members(vec![member("role", scalar()), member("content", block())]), 0..3).prop_map(Value::Array)),
        ]),
        1 => json(),
    ]
}

/// JSON text of a value, in one of the ways a server can write it.
fn write(value: &Value, style: u8) -> String {
    let compact = value.to_string();
    match style % 4 {
        0 => compact,
        1 => serde_json::to_string_pretty(value).unwrap_or(compact),
        // Escapes where a serializer may use them: `/` and the letter `t`.
        2 => escaped(value),
        // Non-ASCII as escapes, as Python's json.dumps writes them.
        _ => compact.chars().fold(String::new(), |mut out, c| {
            if c.is_ascii() {
                out.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            out
        }),
    }
}

/// Compact JSON whose strings (keys too) escape `/` and `t`.
fn escaped(value: &Value) -> String {
    let string = |s: &str| Value::from(s).to_string().replace('/', "\\/").replace('t', "\\u0074");
    match value {
        Value::String(s) => string(s),
        Value::Array(items) => format!("[{}]", items.iter().map(escaped).collect::<Vec<_>>().join(",")),
        Value::Object(map) => {
            let members: Vec<String> = map.iter().map(|(k, v)| format!("{}:{}", string(k), escaped(v))).collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

/// An envelope around the result: the id, a decoy `result` before the real
/// one, members in another order, other members.
fn line() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        6 => (0u64..u64::MAX).prop_map(|n| n.to_string()),
        1 => select(vec!["\"7\"", "1.0", "-1", "null", "1e2", "18446744073709551616"]).prop_map(str::to_owned),
    ];
    let jsonrpc = prop_oneof![8 => Just("\"2.0\""), 1 => Just("\"2\\u002e0\""), 1 => Just("\"1.0\"")];
    let extra = prop_oneof![
        6 => Just(""),
        1 => Just(",\"error\":{\"code\":1,\"message\":\"m\"}"),
        1 => Just(",\"method\":\"x\""),
        1 => Just(",\"result\":null"),
        // A member that is null is there, for the full parse as for the
        // envelope's check.
        1 => Just(",\"method\":null"),
        1 => Just(",\"error\":null"),
        1 => Just(",\"params\":{}"),
        1 => Just(",\"id\":5"),
    ];
    (result(), any::<u8>(), id, jsonrpc, extra, any::<bool>(), any::<bool>()).prop_map(
        |(result, style, id, jsonrpc, extra, decoy, result_first)| {
            let result = write(&result, style);
            let decoy = if decoy { "\"result\":[1,2]," } else { "" };
            if result_first {
                format!("{{{decoy}\"result\" : {result},\"id\":{id}{extra},\"jsonrpc\":{jsonrpc}}}")
            } else {
                format!("{{\"jsonrpc\":{jsonrpc},{decoy}\"id\":{id},\"result\":{result}{extra}}}")
            }
        },
    )
}

proptest! {
    #![proptest_config(cases(3000))]

    #[test]
    fn the_raw_path_gives_what_the_full_path_gives_or_steps_aside(
        method in select(&METHODS[..]),
        quirks in any::<u8>(),
        cursor in prop::option::of(Just(json!(CURSOR))),
        remote in any::<bool>(),
        line in line(),
    ) {
        let rules = (quirks_from(quirks), remote);
        raw_path((method, cursor.as_ref()), rules, line.as_bytes()).map_err(TestCaseError::fail)?;
    }

    /// Bytes that are hardly JSON: the raw path must not take what the
    /// full path refuses.
    #[test]
    fn the_raw_path_takes_no_line_that_the_full_path_refuses(
        method in select(&METHODS[..]),
        line in line(),
        cut in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = line.into_bytes();
        let at = cut.index(bytes.len().max(1));
        if at < bytes.len() {
            bytes[at] = byte;
        }
        raw_path((method, None), (quirks_from(3), false), &bytes).map_err(TestCaseError::fail)?;
    }
}
