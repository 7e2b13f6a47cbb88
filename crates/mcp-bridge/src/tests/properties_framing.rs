//! Property tests of framing and of the envelope (behaviour spec, limits of
//! "Forwarded requests (M1)", "Lines that are not valid"). The properties
//! are those of the fuzz targets `line_reader`, `depth`, `sniff` and
//! `decode` (`crate::props::framing`); here they run on stable Rust
//! with proptest, so CI checks them on every run.

use super::strategies::{json, number, word};
use crate::props::framing as props;
use proptest::prelude::*;
use proptest::sample::select;

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig { cases: n, failure_persistence: None, ..ProptestConfig::default() }
}

/// Bytes from a small alphabet with many newlines, so that lines of every
/// length around the limit and around 256 bytes occur.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![3 => Just(b'a'), 1 => Just(b'\n'), 1 => Just(b'\r'), 1 => any::<u8>()];
    let run = (byte, 1usize..400).prop_map(|(b, n)| vec![b; n]);
    prop::collection::vec(run, 0..12).prop_map(|runs| runs.concat())
}

/// A JSON object as text, member by member, so that keys may repeat and be
/// written with escapes: the cases where text and parse can disagree.
fn object_text() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        4 => Just("\"id\"".to_owned()),
        1 => Just("\"\\u0069d\"".to_owned()),
        1 => Just("\"i\\u0064\"".to_owned()),
        3 => word().prop_map(|w| serde_json::Value::from(w).to_string()),
    ];
    let value = prop_oneof![
        number().prop_map(|v| v.to_string()),
        json().prop_map(|v| v.to_string()),
        select(&["\"b-1\"", "\"\\u0041\"", "true", "null", "{\"id\":9}", "[[[1]]]", "\"}\"", "\"a\\\\\""][..])
            .prop_map(str::to_owned),
    ];
    let ws = select(&["", " ", "\t", "\r\n ", "\n"][..]);
    prop::collection::vec((key, ws.clone(), value, ws), 0..6).prop_map(|members| {
        let body: Vec<String> = members.into_iter().map(|(k, w1, v, w2)| format!("{w1}{k}{w2}:{w1}{v}{w2}")).collect();
        format!("{{{}}}", body.join(","))
    })
}

/// A line that is valid JSON, cut short, or with garbage after a prefix.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => object_text().prop_map(String::into_bytes),
        2 => (object_text(), any::<prop::sample::Index>()).prop_map(|(t, at)| {
            let bytes = t.into_bytes();
            let cut = at.index(bytes.len() + 1);
            bytes[..cut].to_vec()
        }),
        2 => (object_text(), any::<prop::sample::Index>(), select(&[" bad", "}", "]]]", "\"", "\\", "\u{0}"][..])).prop_map(|(t, at, junk)| {
            let mut bytes = t.into_bytes();
            let cut = at.index(bytes.len() + 1);
            bytes.splice(cut..cut, junk.bytes());
            bytes
        }),
        1 => prop::collection::vec(any::<u8>(), 0..40),
    ]
}

/// Nested text: brackets inside and outside strings, escapes.
fn nested_text() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (json(), 0usize..80).prop_map(|(v, levels)| {
            let mut text = v.to_string();
            for i in 0..levels {
                text = if i % 2 == 0 { format!("[{text}]") } else { format!("{{\"k\":{text}}}") };
            }
            text.into_bytes()
        }),
        prop::collection::vec(select(&[b'[', b']', b'{', b'}', b'"', b'\\', b'a', b',', b':', b'1'][..]), 0..120),
    ]
}

/// A message: each envelope member present or not, valid or not.
fn message_text() -> impl Strategy<Value = Vec<u8>> {
    let jsonrpc = select(&["\"2.0\"", "\"1.0\"", "2.0", "null"][..]);
    let id = select(
        &["1", "-0", "\"a\"", "\"b-3\"", "12345678901234567890123", "1.5", "1e3", "null", "true", "{}", "[]"][..],
    );
    let method = select(&["\"tools/list\"", "\"\"", "5", "null"][..]);
    let body = select(&["{}", "[1,2]", "null", "{\"code\":-32042,\"message\":\"m\"}", "\"x\"", "[[[[]]]]"][..]);
    let part = |name: &'static str, value: BoxedStrategy<&'static str>| {
        prop::option::of(value.prop_map(move |v| format!("\"{name}\":{v}")))
    };
    (
        part("jsonrpc", jsonrpc.boxed()),
        part("id", id.boxed()),
        part("method", method.boxed()),
        part("params", body.clone().boxed()),
        part("result", body.clone().boxed()),
        part("error", body.boxed()),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(a, b, c, d, e, f, rotate)| {
            let mut all: Vec<String> = [a, b, c, d, e, f].into_iter().flatten().collect();
            if !all.is_empty() {
                let by = rotate.index(all.len());
                all.rotate_left(by);
            }
            format!("{{{}}}", all.join(",")).into_bytes()
        })
}

proptest! {
    #![proptest_config(cases(384))]

    #[test]
    fn line_reader_yields_no_line_over_the_limit_and_keeps_at_most_256_bytes_at_each_end(
        input in stream(),
        max in prop_oneof![0usize..64, 200usize..320, 500usize..1200],
        chunks in prop::collection::vec(1usize..700, 0..4),
    ) {
        if let Err(broken) = props::line_reader(&input, max, &chunks) {
            prop_assert!(false, "{}", broken);
        }
    }

    #[test]
    fn depth_prescan_agrees_with_the_nesting_of_the_parse(text in nested_text(), max in 0usize..80) {
        if let Err(broken) = props::depth(&text, max) {
            prop_assert!(false, "{}", broken);
        }
    }

    #[test]
    fn sniffed_id_is_valid_and_equals_the_parsed_id_of_a_valid_object(line in line()) {
        if let Err(broken) = props::sniff(&line) {
            prop_assert!(false, "{} in {:?}", broken, String::from_utf8_lossy(&line));
        }
    }

    #[test]
    fn decode_checks_blank_depth_parse_then_envelope_and_messages_round_trip(
        line in prop_oneof![3 => message_text(), 1 => line(), 1 => nested_text()],
        max_depth in prop_oneof![Just(64usize), 0usize..6],
    ) {
        if let Err(broken) = props::decode_line(&line, max_depth) {
            prop_assert!(false, "{} in {:?}", broken, String::from_utf8_lossy(&line));
        }
    }

    #[test]
    fn a_line_too_long_gets_line_too_long_with_the_id_of_its_start_else_its_end(
        head in line(),
        tail in line(),
    ) {
        let head = &head[..head.len().min(256)];
        let tail = &tail[tail.len().saturating_sub(256)..];
        if let Err(broken) = props::decode_too_long(head, tail) {
            prop_assert!(false, "{}", broken);
        }
    }

    #[test]
    fn fuzz_glue_of_the_framing_targets_holds_on_any_bytes(data in prop::collection::vec(any::<u8>(), 0..300)) {
        for check in [props::line_reader_bytes, props::depth_bytes, props::sniff_bytes, props::decode_bytes] {
            if let Err(broken) = check(&data) {
                prop_assert!(false, "{}", broken);
            }
        }
    }
}
