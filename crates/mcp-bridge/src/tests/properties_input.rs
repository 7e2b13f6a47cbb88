//! Property tests of the input requests (behaviour spec, "Input requests
//! (M2)": the checks of a round, the URL rule, the questions and the
//! answers of the client). The properties are those of the fuzz targets
//! `input_round`, `url` and `answers` (`crate::props::input`).

use super::strategies::{json, member, members_weighted, scalar};
use crate::gate::url::CheckedUrl;
use crate::input::questions::{Answer, Expect};
use crate::props::input as props;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig { cases: n, failure_persistence: None, ..ProptestConfig::default() }
}

fn broken(check: Result<(), String>) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

fn requested_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
        Just(json!({"type": "object", "properties": {}})),
        Just(json!({"type": "object", "properties": {"n": {"type": 5}}})),
        Just(json!({"type": "object"})),
        Just(json!({"type": "array", "properties": {}})),
        json(),
    ]
}

fn block() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "text", "text": "hi"})),
        Just(json!({"type": "tool_use", "id": "u1", "name": "t", "input": {}})),
        Just(json!({"type": "tool_result", "toolUseId": "u1", "content": []})),
        Just(json!({"type": "tool_result", "toolUseId": "u2", "content": []})),
        Just(json!({"text": "no type"})),
    ]
}

fn message() -> impl Strategy<Value = Value> {
    let content =
        prop_oneof![3 => block(), 3 => prop::collection::vec(block(), 1..3).prop_map(Value::Array), 1 => scalar()];
    members_weighted(vec![
        (0.95, member("role", prop_oneof![4 => Just(json!("user")), 2 => Just(json!("assistant")), 1 => scalar()])),
        (0.95, member("content", content)),
    ])
}

/// A required member: present most of the time.
fn must(name: &'static str, value: impl Strategy<Value = Value> + 'static) -> (f64, BoxedStrategy<(String, Value)>) {
    (0.95, member(name, value))
}

fn maybe(name: &'static str, value: impl Strategy<Value = Value> + 'static) -> (f64, BoxedStrategy<(String, Value)>) {
    (0.3, member(name, value))
}

fn request(method: &'static str, params: impl Strategy<Value = Value> + 'static) -> impl Strategy<Value = Value> {
    members_weighted(vec![
        must("method", prop_oneof![9 => Just(Value::from(method)), 1 => scalar()]),
        must("params", params),
    ])
}

fn input_request() -> impl Strategy<Value = Value> {
    let form = members_weighted(vec![
        maybe("mode", prop_oneof![Just(json!("form")), scalar()]),
        must("message", prop_oneof![9 => Just(json!("Name?")), 1 => scalar()]),
        must("requestedSchema", requested_schema()),
        maybe("task", json()),
    ]);
    let url = members_weighted(vec![
        must("mode", prop_oneof![9 => Just(json!("url")), 1 => scalar()]),
        must("message", prop_oneof![9 => Just(json!("Sign in")), 1 => scalar()]),
        must("url", prop_oneof![Just(json!("https://example.com/a")), Just(json!("http://evil.com")), scalar()]),
        maybe("elicitationId", scalar()),
    ]);
    let sampling = members_weighted(vec![
        must(
            "messages",
            prop_oneof![6 => prop::collection::vec(message(), 0..4).prop_map(Value::Array), 1 => scalar()],
        ),
        must("maxTokens", prop_oneof![6 => Just(json!(100)), 1 => scalar()]),
        maybe("tools", json()),
        maybe("toolChoice", json()),
        maybe("task", json()),
    ]);
    prop_oneof![
        3 => request("elicitation/create", form),
        2 => request("elicitation/create", url),
        3 => request("sampling/createMessage", sampling),
        1 => prop_oneof![Just(json!({"method": "roots/list"})), request("roots/list", json())],
        1 => json(),
    ]
}

fn round() -> impl Strategy<Value = Value> {
    let requests = prop_oneof![
        8 => prop::collection::vec((select(&["a", "b", "c", "d", "it's"][..]).prop_map(str::to_owned), input_request()), 0..4)
            .prop_map(super::strategies::object_of),
        1 => (17usize..20).prop_map(|n| Value::Object((0..n).map(|i| (format!("k{i}"), json!({"method": "roots/list"}))).collect())),
        1 => scalar(),
    ];
    prop_oneof![
        8 => members_weighted(vec![
            maybe("resultType", Just(json!("input_required"))),
            must("inputRequests", requests),
            (0.6, member("requestState", prop_oneof![4 => Just(json!("s")), 1 => scalar()])),
        ]),
        1 => json(),
    ]
}

fn url() -> impl Strategy<Value = String> {
    let scheme = select(&["https", "http", "HTTP", "hTTpS", "ftp", "javascript", "file", ""][..]);
    let sep = select(&["://", ":", ":///", ":\\\\", "//"][..]);
    let userinfo = select(&["", "u@", "u:p@", "@"][..]);
    let host = select(
        &[
            "localhost",
            "LOCALHOST",
            "127.0.0.1",
            "127.255.1.2",
            "127.1",
            "127.0.0.01",
            "128.0.0.1",
            "[::1]",
            "[0:0:0:0:0:0:0:1]",
            "[::2]",
            "[::ffff:127.0.0.1]",
            "[v1.x]",
            "example.com",
            "",
            "localhost.example.com",
            "%6cocalhost",
            "exa mple.com",
            "localhost.",
        ][..],
    );
    let port = select(&["", ":80", ":", ":99999"][..]);
    let rest = select(&["", "/", "/p?q=1#f", "\\@evil.com/", "#@evil.com", "?x=\\"][..]);
    prop_oneof![
        8 => (scheme, sep, userinfo, host, port, rest).prop_map(|(a, b, c, d, e, f)| format!("{a}{b}{c}{d}{e}{f}")),
        1 => "\\PC{0,20}",
    ]
}

fn expectation() -> impl Strategy<Value = Expect> {
    select(props::expectations().to_vec())
}

fn elicit_result() -> impl Strategy<Value = Value> {
    let content = prop_oneof![
        Just(json!({"name": "Ada"})),
        Just(json!({"name": "A"})),
        Just(json!({})),
        Just(json!({"continue": "Continue"})),
        json(),
    ];
    members_weighted(vec![
        must(
            "action",
            prop_oneof![6 => select(&["accept", "decline", "cancel"][..]).prop_map(Value::from), 1 => scalar()],
        ),
        (0.6, member("content", content)),
    ])
}

fn sampling_result() -> impl Strategy<Value = Value> {
    members_weighted(vec![
        must("model", prop_oneof![6 => Just(json!("m")), 1 => scalar()]),
        must("role", prop_oneof![3 => Just(json!("assistant")), 2 => Just(json!("user")), 1 => scalar()]),
        must(
            "content",
            prop_oneof![
                Just(json!({"type": "text", "text": "x"})),
                Just(json!([{"type": "text"}, {"x": 1}])),
                Just(json!([])),
                scalar()
            ],
        ),
        maybe("stopReason", scalar()),
    ])
}

fn roots_result() -> impl Strategy<Value = Value> {
    let root = prop_oneof![
        Just(json!({"uri": "file:///home/a", "name": "a"})),
        Just(json!({"uri": "https://example.com"})),
        Just(json!({"uri": "FILE:///x"})),
        Just(json!({"uri": "file://"})),
        Just(json!({"uri": 5})),
    ];
    members_weighted(vec![must(
        "roots",
        prop_oneof![6 => prop::collection::vec(root, 0..4).prop_map(Value::Array), 1 => scalar()],
    )])
}

/// An expectation and an answer, the answer mostly of the kind the
/// question asks for.
fn question_and_answer() -> impl Strategy<Value = (Expect, Answer)> {
    expectation().prop_flat_map(|expect| {
        let fitting = match expect {
            Expect::Sampling => sampling_result().boxed(),
            Expect::Roots => roots_result().boxed(),
            _ => elicit_result().boxed(),
        };
        let answer = prop_oneof![
            8 => fitting.prop_map(Answer::Result),
            1 => json().prop_map(Answer::Result),
            1 => json().prop_map(Answer::Error),
            1 => Just(Answer::Invalid),
        ];
        (Just(expect), answer)
    })
}

proptest! {
    #![proptest_config(cases(192))]

    #[test]
    fn a_round_passes_only_declared_requests_of_the_schema_shape_and_fails_with_a_row_of_the_tables(
        result in round(),
        declared in any::<u8>(),
    ) {
        broken(props::round(&result, props::declared_from(declared)))?;
    }

    #[test]
    fn url_rule_allows_only_https_or_http_to_loopback_without_userinfo_and_never_a_backslash(url in url()) {
        broken(props::url(&url))?;
    }

    #[test]
    fn answers_of_the_client_give_the_value_of_the_table_or_invalid_client_answer(
        (expect, answer) in question_and_answer(),
    ) {
        broken(props::answer("key", &expect, &answer))?;
    }

    #[test]
    fn every_https_url_with_a_host_and_every_http_url_to_a_loopback_host_is_allowed(
        host in select(&["example.com", "a.b-c.d", "localhost", "127.0.0.1", "[::1]", "127.200.3.4"][..]),
        port in select(&["", ":8080"][..]),
        path in select(&["", "/", "/cb?code=1#x"][..]),
    ) {
        let https = format!("https://{host}{port}{path}");
        prop_assert!(CheckedUrl::check(&https).is_ok(), "{}", https);
        let http = format!("http://{host}{port}{path}");
        let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "127.200.3.4");
        prop_assert_eq!(CheckedUrl::check(&http).is_ok(), loopback, "{}", http);
    }

    #[test]
    fn fuzz_glue_of_the_input_targets_holds_on_any_bytes(
        head in prop::collection::vec(any::<u8>(), 0..2),
        body in json(),
    ) {
        let mut data = head;
        data.extend(body.to_string().into_bytes());
        for check in [props::round_bytes, props::url_bytes, props::answer_bytes] {
            broken(check(&data))?;
        }
    }
}
