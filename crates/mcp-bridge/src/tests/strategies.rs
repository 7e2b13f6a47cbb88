//! Strategies shared by the property tests: JSON values that lean toward
//! the members and the edge values the rules name, so that a few hundred
//! cases reach every rule (a uniform JSON generator would almost never
//! write `"type":"array"` or `"jsonrpc":"2.0"`).

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};

/// Number texts that are hard for an id or a rule: `-0`, beyond i64 and
/// u64, beyond f64, fractions and exponents that are 0 in JavaScript.
pub(super) const NUMBERS: [&str; 14] = [
    "0",
    "-0",
    "7",
    "-12",
    "1.5",
    "0.0",
    "0e5",
    "1e-400",
    "1e400",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "12345678901234567890123",
    "2",
];

/// Strings that are keys or values of the rules, and ones that are hard to
/// escape.
pub(super) const WORDS: [&str; 16] = [
    "",
    "id",
    "type",
    "array",
    "object",
    "text",
    "items",
    "c",
    "a\"b",
    "back\\slash",
    "tab\t",
    "~/",
    "é€😀",
    "[{",
    "2.0",
    "x",
];

pub(super) fn number() -> impl Strategy<Value = Value> {
    select(&NUMBERS[..]).prop_map(|t| serde_json::from_str(t).unwrap_or(Value::Null))
}

pub(super) fn word() -> BoxedStrategy<String> {
    prop_oneof![4 => select(&WORDS[..]).prop_map(str::to_owned), 1 => "\\PC{0,6}"].boxed()
}

pub(super) fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![Just(Value::Null), any::<bool>().prop_map(Value::Bool), number(), word().prop_map(Value::String),]
}

/// An object from members; a repeated key keeps its last value, as in
/// `serde_json`, at the place of its first.
pub(super) fn object_of(members: Vec<(String, Value)>) -> Value {
    let mut map = Map::new();
    for (key, value) in members {
        map.insert(key, value);
    }
    Value::Object(map)
}

/// Any JSON value, keys from `keys`, up to `depth` levels.
pub(super) fn json_with(keys: &'static [&'static str], depth: u32) -> impl Strategy<Value = Value> {
    let key = prop_oneof![4 => select(keys).prop_map(str::to_owned), 1 => word()];
    scalar().prop_recursive(depth, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(object_of),
        ]
    })
}

/// Any JSON value with the common keys.
pub(super) fn json() -> impl Strategy<Value = Value> {
    json_with(&WORDS, 4)
}

/// An object whose members come from the given strategies, each present
/// or not, in a random order, with extra members of other names.
pub(super) fn members(parts: Vec<BoxedStrategy<(String, Value)>>) -> impl Strategy<Value = Value> {
    members_weighted(parts.into_iter().map(|p| (0.6, p)).collect())
}

/// Like [`members`], each member present with its own probability: a
/// member a rule requires is present most of the time.
pub(super) fn members_weighted(parts: Vec<(f64, BoxedStrategy<(String, Value)>)>) -> impl Strategy<Value = Value> {
    let present: Vec<BoxedStrategy<Option<(String, Value)>>> =
        parts.into_iter().map(|(p, s)| prop::option::weighted(p, s).boxed()).collect();
    (present, prop::collection::vec((word(), json()), 0..3), any::<prop::sample::Index>()).prop_map(
        |(parts, extra, rotate)| {
            let mut all: Vec<(String, Value)> = parts.into_iter().flatten().chain(extra).collect();
            if !all.is_empty() {
                let by = rotate.index(all.len());
                all.rotate_left(by);
            }
            object_of(all)
        },
    )
}

/// One named member with a value of the strategy.
pub(super) fn member(
    name: &'static str,
    value: impl Strategy<Value = Value> + 'static,
) -> BoxedStrategy<(String, Value)> {
    value.prop_map(move |v| (name.to_owned(), v)).boxed()
}

/// A JSON Schema that leans toward array schemas with false `items`, in
/// every keyword the R6 walk goes through (and some it must not).
pub(super) fn schema(depth: u32) -> impl Strategy<Value = Value> {
    let falsy = prop_oneof![
        Just(Value::Null),
        Just(Value::Bool(false)),
        Just(Value::from("")),
        select(&["0", "-0", "0.0", "0e5", "1e-400", "1e400", "1"][..])
            .prop_map(|t| serde_json::from_str(t).unwrap_or(Value::Null)),
        Just(Value::Bool(true)),
    ];
    let leaf = prop_oneof![
        Just(serde_json::json!({"type": "string"})),
        Just(serde_json::json!({"type": "array"})),
        Just(serde_json::json!({"type": ["array", "null"]})),
        Just(Value::Bool(true)),
        falsy.clone().prop_map(|items| serde_json::json!({"type": "array", "items": items})),
    ];
    leaf.prop_recursive(depth, 64, 4, move |inner| {
        let map_of = prop::collection::vec((word(), inner.clone()), 0..3).prop_map(object_of);
        let list_of = prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array);
        members(vec![
            member(
                "type",
                prop_oneof![3 => Just(Value::from("array")), 1 => Just(Value::from("object")), 1 => scalar()],
            ),
            member("items", prop_oneof![falsy.clone(), inner.clone()]),
            member("prefixItems", prop_oneof![3 => list_of.clone(), 1 => scalar()]),
            member("maxItems", number()),
            member("properties", map_of.clone()),
            member("$defs", map_of.clone()),
            member("patternProperties", map_of),
            member("anyOf", list_of.clone()),
            member("oneOf", list_of),
            member("additionalProperties", inner.clone()),
            member("not", inner.clone()),
            member("if", inner.clone()),
            member("default", inner.clone()),
            member("const", inner),
        ])
    })
}

/// An array schema nested `levels` deep through `properties`, without
/// items at the bottom: the depth limit of R6.
pub(super) fn deep_schema(levels: usize) -> Value {
    let mut schema = serde_json::json!({"type": "array"});
    for _ in 0..levels {
        schema = serde_json::json!({"type": "object", "properties": {"p": schema}});
    }
    schema
}
