//! Golden fixtures of the result rules and of R6 (behaviour spec, "Result
//! rules (M1)", "The items rule for array schemas (R6)").
//!
//! Each case is a pair under `tests/fixtures/<dir>/`:
//! - `<case>.input.json`: `method`, optional `cursor` (of the request),
//!   optional `profile` (quirks that differ from the vscode profile), and
//!   `result`;
//! - `<case>.expected.json`: the translated `result`, and the `notes` as
//!   `<level>: <note>` lines.
//!
//! The name of a case is the name of its test, and says the rule it checks.
//! `UPDATE_FIXTURES=1` rewrites the expected files from the code; the review
//! of their diff is then the test.

use crate::dialect::Dialect;
use crate::method::Method;
use crate::translate::note::{push_token, Level, Note};
use crate::translate::result::{is_input_required, translate_result};
use crate::{MetaPassthrough, Profile, Quirks, Revision};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The quirks a fixture may set. Anything else is a typo in the fixture.
const QUIRKS: [&str; 3] = ["normalize_array_items", "drop_non_object_output_schema", "strict_legacy_results"];

/// The vscode profile, with the quirks of the fixture on top.
fn dialect(quirks: Option<&Value>) -> Dialect {
    let quirks = quirks.map(|q| q.as_object().cloned().expect("profile is an object")).unwrap_or_default();
    for key in quirks.keys() {
        assert!(QUIRKS.contains(&key.as_str()), "unknown quirk in a fixture: {key}");
    }
    let flag = |name: &str, default: bool| quirks.get(name).map_or(default, |v| v.as_bool().expect("quirk is a bool"));
    let mut profile = Profile::vscode();
    profile.meta_passthrough = MetaPassthrough::default();
    profile.quirks = Quirks {
        normalize_array_items: flag("normalize_array_items", true),
        drop_non_object_output_schema: flag("drop_non_object_output_schema", true),
        strict_legacy_results: flag("strict_legacy_results", false),
        data_only_remote_icons: true,
    };
    Dialect::new(&profile, Revision::LATEST, false)
}

fn fixtures(dir: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir)
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs one case and compares the whole output with the expected file.
fn check(dir: &str, case: &str) {
    let root = fixtures(dir);
    let input = read(&root.join(format!("{case}.input.json")));
    let name = input.get("method").and_then(Value::as_str).expect("the fixture has a method");
    let method = Method::ALL.into_iter().find(|m| m.name() == name).expect("the fixture's method is forwarded");
    let result = input.get("result").cloned().expect("the fixture has a result");
    let (result, notes) = translate_result(method, input.get("cursor"), result, &dialect(input.get("profile")));
    let notes: Vec<String> = notes.iter().map(|note| format!("{}: {note}", note.level)).collect();
    let got = json!({"result": result, "notes": notes});
    let expected_path = root.join(format!("{case}.expected.json"));
    if updating() {
        let text = serde_json::to_string_pretty(&got).expect("a Value serializes") + "\n";
        std::fs::write(&expected_path, text).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        return;
    }
    // Compare the text, not the `Value`s: the order of the members is part
    // of the rules, and `Value`'s equality ignores it. Pretty text gives a
    // readable diff.
    let got = serde_json::to_string_pretty(&got).expect("a Value serializes");
    let expected = serde_json::to_string_pretty(&read(&expected_path)).expect("a Value serializes");
    assert!(got == expected, "{case}: the output differs\n--- expected\n{expected}\n--- got\n{got}");
}

fn updating() -> bool {
    std::env::var_os("UPDATE_FIXTURES").is_some_and(|v| v == "1")
}

/// Every pair on disk has a test, and every test has its pair, so that no
/// fixture sits there unchecked. While the fixtures are being rewritten, a
/// new case has no expected file yet, so only the inputs count.
fn check_listed(dir: &str, cases: &[&str]) {
    let mut on_disk: Vec<String> = std::fs::read_dir(fixtures(dir))
        .expect("the fixture directory exists")
        .map(|entry| entry.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|name| !updating() || name.ends_with(".input.json"))
        .collect();
    on_disk.sort();
    let suffixes: &[&str] = if updating() { &["input"] } else { &["expected", "input"] };
    let mut listed: Vec<String> =
        cases.iter().flat_map(|case| suffixes.iter().map(move |suffix| format!("{case}.{suffix}.json"))).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "the files of tests/fixtures/{dir} and the cases of result_rules.rs differ");
}

/// One test per case, named after the case, and a test that the list and
/// the directory agree.
macro_rules! cases {
    ($dir:literal: $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                super::check($dir, stringify!($case));
            }
        )*

        #[test]
        fn every_fixture_pair_has_a_test() {
            super::check_listed($dir, &[$(stringify!($case)),*]);
        }
    };
}

mod results {
    cases! { "results":
        removal_of_modern_members_from_each_result,
        removal_of_modern_members_drops_a_meta_left_empty,
        removal_of_modern_members_drops_an_empty_meta,
        removal_of_modern_members_only_at_the_top_level,
        a_method_without_rules_only_loses_the_modern_members,
        member_order_kept_for_every_other_member,
        next_cursor_string_kept_in_resources_list,
        next_cursor_empty_string_kept_in_prompts_list,
        next_cursor_null_removed_from_tools_list,
        next_cursor_false_removed_from_prompts_list,
        next_cursor_object_removed_from_resources_list,
        next_cursor_number_removed_from_resources_templates_list,
        next_cursor_null_kept_outside_the_list_methods,
        paging_guard_removes_a_next_cursor_equal_to_the_request_cursor,
        paging_guard_removes_a_repeated_cursor_in_tools_list,
        paging_guard_keeps_a_new_next_cursor,
        paging_guard_ignores_a_request_cursor_that_is_not_a_string,
        paging_guard_not_outside_the_list_methods,
        output_schema_without_object_type_removed,
        output_schema_kept_without_the_quirk,
        content_added_when_missing,
        content_not_an_array_replaced_in_place,
        content_null_replaced_in_place,
        text_mirror_of_an_object_after_other_blocks,
        text_mirror_of_an_array_keeps_structured_content,
        text_mirror_of_a_string_keeps_structured_content,
        text_mirror_of_false_keeps_structured_content,
        text_mirror_keeps_member_order_and_number_text,
        text_mirror_not_for_null_structured_content,
        text_mirror_not_when_a_text_block_exists,
        text_mirror_not_without_structured_content,
        text_mirror_only_for_tools_call,
        strict_removes_structured_content_that_is_not_an_object_after_the_mirror,
        strict_keeps_structured_content_that_is_an_object,
        strict_removes_null_structured_content_without_a_mirror,
        strict_removes_each_output_schema_whose_root_is_not_an_object_schema,
        strict_rule_only_for_tools_call_and_tools_list,
        tools_list_applies_every_rule_in_one_result,
        result_that_is_not_an_object_goes_as_it_came,
    }
}

mod items {
    cases! { "items":
        r6_missing_items_gets_an_empty_schema,
        r6_walk_goes_through_each_schema_of_an_items_array,
        r6_items_null_gets_an_empty_schema_in_place,
        r6_items_zero_in_every_spelling_gets_an_empty_schema,
        r6_items_empty_string_gets_an_empty_schema,
        r6_falsy_items_with_prefix_items_get_no_max_items,
        r6_falsy_items_with_max_items_keep_it,
        r6_items_false_without_prefix_items_gets_max_items_0,
        r6_items_false_with_prefix_items_gets_max_items_of_its_length,
        r6_items_false_with_max_items_keeps_it,
        r6_items_false_with_prefix_items_not_an_array_gets_max_items_0,
        r6_truthy_items_left_alone,
        r6_only_the_type_string_array,
        r6_walk_goes_through_anyof_defs_prefixitems_additionalproperties,
        r6_walk_goes_through_if_then_else_not_contains_dependencies_allof_oneof,
        r6_walk_goes_through_items,
        r6_walk_skips_other_keywords,
        r6_walk_skips_members_that_are_not_schemas,
        r6_pointer_escapes_tilde_and_slash,
        r6_depth_limit_repairs_level_64_and_notes_level_65,
        r6_depth_limit_leaves_deeper_schemas_unchanged,
        r6_quirk_off_no_change,
        r6_root_array_schema,
        r6_notes_name_each_tool,
        r6_input_schema_that_is_not_an_object_unchanged,
        r6_only_in_tools_list,
    }
}

/// A chain of `depth` array schemas, each the `items` of the one above.
fn items_chain(depth: usize) -> Value {
    let mut schema = json!({"type": "array"});
    for _ in 1..depth {
        let mut parent = Map::new();
        parent.insert("type".into(), json!("array"));
        parent.insert("items".into(), schema);
        schema = Value::Object(parent);
    }
    schema
}

/// A schema deeper than a parser would let through (`serde_json` stops at
/// 128 levels), built in code: the walk stops at the limit, so neither the
/// recursion nor the notes grow with the depth.
#[test]
fn r6_depth_limit_bounds_the_walk_of_a_schema_nested_500_levels() {
    let result = json!({"tools": [{"name": "deep", "inputSchema": items_chain(500)}]});
    let (got, notes) = translate_result(Method::ToolsList, None, result, &dialect(None));
    // The innermost schema lacks items, but it lies below the limit.
    let expected = json!({"tools": [{"name": "deep", "inputSchema": items_chain(500)}]});
    assert!(got == expected, "a schema below the limit changed");
    let expected_notes = vec![Note {
        level: Level::Info,
        tool: Some("deep".into()),
        pointer: Some("/items".repeat(64)),
        text: "the schema is deeper than 64 levels; the bridge did not examine it or its subschemas".into(),
    }];
    assert_eq!(notes, expected_notes);
}

#[test]
fn is_input_required_only_for_result_type_input_required() {
    let cases = [
        (json!({"resultType": "input_required", "inputRequests": {}}), true),
        (json!({"resultType": "complete"}), false),
        (json!({}), false),
        (json!({"resultType": ["input_required"]}), false),
        (json!({"_meta": {"resultType": "input_required"}}), false),
        (json!("input_required"), false),
    ];
    for (result, expected) in cases {
        assert_eq!(is_input_required(&result), expected, "{result}");
    }
}

#[test]
fn input_required_result_passed_by_mistake_only_loses_the_modern_members() {
    // The caller never passes such a result on; if it did, the result would
    // lose its resultType like any other, and nothing else.
    let result = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}});
    let (got, notes) = translate_result(Method::ToolsCall, None, result, &dialect(None));
    let expected = json!({"inputRequests": {"a": {"method": "roots/list"}}, "content": []});
    assert_eq!(serde_json::to_string(&got).ok(), serde_json::to_string(&expected).ok());
    assert_eq!(notes, vec![]);
}

#[test]
fn note_display_names_the_tool_and_the_pointer_where_there_are_some() {
    let text = "an array schema without items got items: {}";
    let cases = [
        (
            Note::info(text).for_tool(Some("search")).at("/properties/tags"),
            format!("tool 'search', inputSchema '/properties/tags': {text}"),
        ),
        (Note::info(text).for_tool(Some("search")), format!("tool 'search': {text}")),
        (Note::info(text).at(""), format!("inputSchema '': {text}")),
        (Note::warn(text), text.to_owned()),
    ];
    for (note, expected) in cases {
        assert_eq!(note.to_string(), expected);
    }
    assert_eq!(format!("{}/{}", Level::Info, Level::Warn), "info/warn");
}

#[test]
fn json_pointer_token_escapes_tilde_before_slash() {
    let cases = [("a/b~c", "a~1b~0c"), ("~1", "~01"), ("/", "~1"), ("~", "~0"), ("", ""), ("plain", "plain")];
    for (token, expected) in cases {
        let mut pointer = String::from("/x");
        push_token(&mut pointer, token);
        assert_eq!(pointer, format!("/x{expected}"), "{token}");
    }
}
