//! Property tests of the translation functions (behaviour spec, "The
//! capabilities for the upstream server", "The initialize result",
//! "Forwarded requests (M1)", "Meta passthrough (M3)", "Result rules
//! (M1)", R6). The properties are those of the fuzz targets
//! `translate_result`, `items`, `capabilities`, `initialize_result` and
//! `forwarded` (`crate::props::translate` and `crate::props::handshake`).

use super::strategies::{json, json_with, member, members, number, scalar, schema, word};
use crate::props::handshake;
use crate::props::translate as props;
use crate::translate::meta::is_valid_key;
use crate::MetaPassthrough;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig { cases: n, failure_persistence: None, ..ProptestConfig::default() }
}

fn broken(check: Result<(), String>) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

const META_KEYS: [&str; 6] = [
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/subscriptionId",
    "x",
    "traceparent",
    "vscode.a",
    "com.example/k",
];

fn server_info() -> impl Strategy<Value = Value> {
    members(vec![
        member("name", prop_oneof![Just(json!("up")), Just(json!("")), scalar()]),
        member("version", prop_oneof![Just(json!("1.0")), scalar()]),
        member("title", scalar()),
        member("description", scalar()),
        member("websiteUrl", scalar()),
        member(
            "icons",
            prop_oneof![Just(json!([{"src": "data:x"}])), Just(json!([{"src": 1}])), Just(json!([])), json()],
        ),
    ])
}

fn meta() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop::collection::vec((select(&META_KEYS[..]).prop_map(str::to_owned), prop_oneof![server_info(), json()]), 0..4)
            .prop_map(super::strategies::object_of),
        1 => scalar(),
    ]
}

fn tool() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => members(vec![
            member("name", prop_oneof![word().prop_map(Value::from), scalar()]),
            member("inputSchema", schema(4)),
            member("outputSchema", schema(2)),
            member("description", scalar()),
        ]),
        1 => scalar(),
    ]
}

fn block() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "text", "text": "t"})),
        Just(json!({"type": "image", "data": "x", "mimeType": "image/png"})),
        json(),
    ]
}

fn result() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => members(vec![
            member("resultType", prop_oneof![Just(json!("complete")), scalar()]),
            member("ttlMs", number()),
            member("cacheScope", scalar()),
            member("_meta", meta()),
            member("nextCursor", prop_oneof![Just(json!("c")), Just(json!("d")), scalar()]),
            member("tools", prop_oneof![4 => prop::collection::vec(tool(), 0..4).prop_map(Value::Array), 1 => scalar()]),
            member("content", prop_oneof![4 => prop::collection::vec(block(), 0..3).prop_map(Value::Array), 1 => scalar()]),
            member("structuredContent", json()),
            member("isError", scalar()),
        ]),
        1 => json(),
    ]
}

fn capability_body() -> impl Strategy<Value = Value> {
    const KEYS: [&str; 7] =
        ["tools", "context", "form", "url", "listChanged", "io.modelcontextprotocol/tasks", "com.example/x"];
    json_with(&KEYS, 2)
}

fn client_capabilities() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => members(vec![
            member("sampling", capability_body()),
            member("elicitation", capability_body()),
            member("roots", capability_body()),
            member("experimental", capability_body()),
            member("extensions", capability_body()),
            member("tasks", capability_body()),
        ]),
        1 => json(),
    ]
}

fn discover() -> impl Strategy<Value = Value> {
    let capabilities = members(vec![
        member("tools", capability_body()),
        member("prompts", capability_body()),
        member("resources", capability_body()),
        member("completions", capability_body()),
        member("logging", capability_body()),
        member("experimental", capability_body()),
        member("extensions", capability_body()),
        member("tasks", capability_body()),
    ]);
    let meta = prop_oneof![
        4 => server_info().prop_map(|info| json!({"io.modelcontextprotocol/serverInfo": info})),
        1 => meta(),
    ];
    prop_oneof![
        6 => members(vec![
            member("capabilities", prop_oneof![4 => capabilities, 1 => scalar()]),
            member("_meta", meta),
            member("instructions", scalar()),
            member("supportedVersions", json()),
            member("resultType", scalar()),
        ]),
        1 => json(),
    ]
}

const CLIENT_META_KEYS: [&str; 16] = [
    "progressToken",
    "traceparent",
    "tracestate",
    "baggage",
    "vscode.conversationId",
    "vscode.mcp/x",
    "vscode.bad key",
    "vscode.",
    "vscode.a/b/c",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/other",
    "com.mcp.tools/x",
    "com.example.mcp/x",
    "com.example/",
    "1a/b",
    "a..b/c",
];

fn params() -> impl Strategy<Value = Option<Value>> {
    let client_meta = prop_oneof![
        4 => prop::collection::vec((prop_oneof![4 => select(&CLIENT_META_KEYS[..]).prop_map(str::to_owned), 1 => word()], json()), 0..5)
            .prop_map(super::strategies::object_of),
        1 => scalar(),
    ];
    prop::option::weighted(
        0.9,
        prop_oneof![
            6 => members(vec![
                member("task", json()),
                member("_meta", client_meta),
                member("name", scalar()),
                member("arguments", json()),
                member("cursor", scalar()),
            ]),
            1 => json(),
        ],
    )
}

fn passthrough() -> impl Strategy<Value = MetaPassthrough> {
    prop_oneof![
        Just(props::vscode_passthrough()),
        Just(MetaPassthrough { keys: Vec::new(), prefixes: vec![String::new()] }),
        Just(MetaPassthrough::default()),
    ]
}

/// A key of the `_meta` grammar: labels, a slash, a name.
const VALID_KEY: &str = "([a-zA-Z]([a-zA-Z0-9-]{0,3}[a-zA-Z0-9])?(\\.[a-zA-Z]([a-zA-Z0-9-]{0,3}[a-zA-Z0-9])?){0,2}/)?([a-zA-Z0-9]([a-zA-Z0-9._-]{0,4}[a-zA-Z0-9])?)?";

proptest! {
    #![proptest_config(cases(192))]

    #[test]
    fn result_rules_keep_every_member_no_rule_names_and_are_idempotent(
        method in select(&props::METHODS[..]),
        cursor in prop::option::of(prop_oneof![Just(json!("c")), scalar()]),
        result in result(),
        quirks in any::<u8>(),
    ) {
        broken(props::result_rules(method, cursor.as_ref(), &result, props::quirks_from(quirks)))?;
    }

    #[test]
    fn r6_gives_every_reachable_array_schema_a_true_items_and_changes_nothing_else(schema in schema(6)) {
        broken(props::items(&schema, Some("tool")))?;
    }

    #[test]
    fn client_capabilities_always_have_the_schema_shape_and_the_table_content(client in client_capabilities()) {
        broken(handshake::capabilities(&client))?;
    }

    #[test]
    fn initialize_result_has_the_listed_object_capabilities_and_valid_server_info(discover in discover()) {
        broken(handshake::initialize(&discover, "fallback"))?;
    }

    #[test]
    fn forwarded_params_lose_only_task_and_meta_and_meta_passes_only_allowed_valid_keys(
        params in params(),
        allowed in passthrough(),
    ) {
        broken(props::params(params.as_ref(), &allowed))?;
    }

    #[test]
    fn meta_keys_of_the_grammar_are_valid_and_every_valid_key_is_of_the_grammar(
        good in VALID_KEY,
        any_key in prop_oneof![select(&CLIENT_META_KEYS[..]).prop_map(str::to_owned), "[a-z0-9./_-]{0,8}", "\\PC{0,6}"],
    ) {
        prop_assert!(is_valid_key(&good), "{:?} follows the grammar", good);
        prop_assert_eq!(is_valid_key(&any_key), props::spec_key(&any_key), "{:?}", any_key);
    }

    #[test]
    fn fuzz_glue_of_the_translate_targets_holds_on_any_bytes(
        head in prop::collection::vec(any::<u8>(), 0..4),
        body in json(),
    ) {
        let mut data = head;
        data.extend(body.to_string().into_bytes());
        for check in [props::result_rules_bytes, props::items_bytes, handshake::capabilities_bytes, handshake::initialize_bytes, props::params_bytes] {
            broken(check(&data))?;
        }
    }
}

/// R6 at its depth limit: the schemas of level 64 are repaired and those
/// below are noted, never changed (the fixtures hold the exact notes).
#[test]
fn r6_depth_limit_notes_the_schemas_below_and_keeps_them() {
    for levels in [62, 63, 64, 65, 70] {
        let schema = super::strategies::deep_schema(levels);
        assert_eq!(props::items(&schema, None), Ok(()), "{levels} levels");
    }
}
