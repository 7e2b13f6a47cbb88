//! The tables of the older revisions, rule by rule.

use super::*;
use crate::jsonrpc::ClientRequest;
use crate::profile::Revision::{V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25};
use serde_json::json;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn translated(method: Method, value: Value, revision: Revision) -> (Value, Vec<String>) {
    let mut result = object(value);
    let mut notes = Vec::new();
    super::result(method, &mut result, revision, &mut notes);
    (Value::Object(result), notes.iter().map(ToString::to_string).collect())
}

/// Each member of a tool goes for the revisions before the one that
/// added it; every other member stays, in its place.
#[test]
fn a_tool_keeps_only_the_members_of_the_clients_revision() {
    let tool = json!({"name": "t", "title": "T", "description": "d", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}, "icons": [{"src": "data:x"}],
        "execution": {"taskSupport": "optional"}, "_meta": {"k": 1}, "x-other": 2});
    let result = json!({"tools": [tool.clone()], "nextCursor": "n"});
    for (revision, gone) in [
        (V2025_11_25, vec![]),
        (V2025_06_18, vec!["icons", "execution"]),
        (V2025_03_26, vec!["icons", "execution", "title", "outputSchema"]),
        (V2024_11_05, vec!["icons", "execution", "title", "outputSchema", "annotations"]),
    ] {
        let mut want = tool.clone();
        for member in &gone {
            want.as_object_mut().map(|t| t.shift_remove(*member));
        }
        let (got, notes) = translated(Method::ToolsList, result.clone(), revision);
        assert_eq!(got, json!({"tools": [want], "nextCursor": "n"}), "{revision}");
        assert!(notes.is_empty(), "{notes:?}");
    }
}

/// A call result before 2025-06-18 loses `structuredContent` (the text
/// mirror carries it) and a resource link becomes a text block with its
/// URI; audio becomes one before 2025-03-26. Each change gives a note.
#[test]
fn content_blocks_of_a_type_the_revision_lacks_become_text() {
    let call = json!({"content": [
        {"type": "text", "text": "{\"a\":1}"},
        {"type": "resource_link", "uri": "file:///r.txt", "name": "r", "icons": [{"src": "data:x"}]},
        {"type": "audio", "data": "AA", "mimeType": "audio/wav", "annotations": {"priority": 1, "lastModified": "2025-01-01T00:00:00Z"}}
    ], "structuredContent": {"a": 1}, "isError": false});
    let (got, notes) = translated(Method::ToolsCall, call.clone(), V2025_06_18);
    assert_eq!(
        got,
        json!({"content": [
            {"type": "text", "text": "{\"a\":1}"},
            {"type": "resource_link", "uri": "file:///r.txt", "name": "r"},
            {"type": "audio", "data": "AA", "mimeType": "audio/wav", "annotations": {"priority": 1, "lastModified": "2025-01-01T00:00:00Z"}}
        ], "structuredContent": {"a": 1}, "isError": false})
    );
    assert!(notes.is_empty());
    let (got, notes) = translated(Method::ToolsCall, call.clone(), V2025_03_26);
    assert_eq!(
        got,
        json!({"content": [
            {"type": "text", "text": "{\"a\":1}"},
            {"type": "text", "text": "A link to the resource r: file:///r.txt"},
            {"type": "audio", "data": "AA", "mimeType": "audio/wav", "annotations": {"priority": 1}}
        ], "isError": false})
    );
    assert_eq!(
        notes,
        ["a resource_link block became a text block: revision 2025-03-26 of the client has no resource_link blocks"]
    );
    let (got, notes) = translated(Method::ToolsCall, call, V2024_11_05);
    assert_eq!(
        got["content"][2],
        json!({"type": "text", "text": "An audio clip (audio/wav) that this client cannot play"})
    );
    assert_eq!(notes.len(), 2);
    assert_eq!(notes[1], "an audio block became a text block: revision 2024-11-05 of the client has no audio blocks");
}

/// The texts of the server in a block that the bridge writes pass the
/// gate: a line break cannot forge a second link, and a block without
/// a URI or a name still says what it was.
#[test]
fn a_converted_block_shows_the_servers_texts_through_the_gate() {
    let call = json!({"content": [
        {"type": "resource_link", "uri": "https://a.example/\nA link to the resource x: javascript:y", "name": "n\r\n\u{202e}"},
        {"type": "resource_link", "uri": 7},
        {"type": "audio", "data": "AA", "mimeType": "audio/wav\r\n\u{1b}[2J"}
    ]});
    let (got, _) = translated(Method::ToolsCall, call, V2024_11_05);
    assert_eq!(
        got["content"],
        json!([
            {"type": "text", "text": r"A link to the resource n\r\n\u{202e}: https://a.example/\nA link to the resource x: javascript:y"},
            {"type": "text", "text": "A link to a resource"},
            {"type": "text", "text": r"An audio clip (audio/wav\r\n\x1b[2J) that this client cannot play"}
        ])
    );
}

/// A prompt message holds one block (or, in 2025-11-25, an array).
#[test]
fn a_prompt_messages_block_is_replaced_in_place() {
    let prompt = json!({"messages": [
        {"role": "user", "content": {"type": "resource_link", "uri": "u://1"}},
        {"role": "user", "content": [{"type": "audio", "data": "AA", "mimeType": "audio/ogg"}]}
    ]});
    let (got, _) = translated(Method::PromptsGet, prompt, V2024_11_05);
    assert_eq!(
        got,
        json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "A link to the resource u://1"}},
            {"role": "user", "content": [{"type": "text", "text": "An audio clip (audio/ogg) that this client cannot play"}]}
        ]})
    );
}

#[test]
fn the_initialize_result_keeps_what_the_revision_defines() {
    let result = json!({"protocolVersion": "x", "capabilities": {"tools": {}, "completions": {}, "logging": {}},
        "serverInfo": {"name": "n", "title": "T", "version": "1", "icons": [], "description": "d", "websiteUrl": "https://w"},
        "instructions": "i"});
    for (revision, want) in [
        (
            V2025_06_18,
            json!({"protocolVersion": "x", "capabilities": {"tools": {}, "completions": {}, "logging": {}},
            "serverInfo": {"name": "n", "title": "T", "version": "1"}, "instructions": "i"}),
        ),
        (
            V2024_11_05,
            json!({"protocolVersion": "x", "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "n", "version": "1"}, "instructions": "i"}),
        ),
    ] {
        let mut got = object(result.clone());
        initialize(&mut got, revision);
        assert_eq!(Value::Object(got), want, "{revision}");
    }
}

/// A 2025-06-18 form: no `mode`, no `$schema`, no default but on a
/// boolean, a titled single-select as `enum` and `enumNames`; a
/// multi-select cannot be carried.
#[test]
fn a_form_of_2025_11_25_reaches_a_2025_06_18_client_as_its_revision_has_it() {
    let mut params = json!({"mode": "form", "message": "m", "requestedSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {
        "name": {"type": "string", "title": "Name", "default": "Ada"},
        "age": {"type": "integer", "minimum": 0, "default": 3},
        "ok": {"type": "boolean", "default": true},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "s"},
        "plain": {"type": "string", "enum": ["a", "b"], "default": "a"}
    }, "required": ["name"]}});
    question(ClientRequest::ElicitationCreate, &mut params, V2025_06_18);
    assert_eq!(
        params,
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "title": "Name"},
            "age": {"type": "integer", "minimum": 0},
            "ok": {"type": "boolean", "default": true},
            "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]},
            "plain": {"type": "string", "enum": ["a", "b"]}
        }, "required": ["name"]}})
    );
    let multi = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}});
    assert_eq!(carries_form(&multi, V2025_11_25), Ok(()));
    assert_eq!(
        carries_form(&multi, V2025_06_18),
        Err("the client's revision 2025-06-18 has no multi-select enums".into())
    );
}

#[test]
fn sampling_messages_of_older_revisions_hold_one_block() {
    let params =
        object(json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "maxTokens": 5}));
    assert_eq!(carries_sampling(&params, V2025_06_18), Ok(()));
    let mut value = Value::Object(params);
    question(ClientRequest::SamplingCreateMessage, &mut value, V2025_06_18);
    assert_eq!(
        value,
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5})
    );
    let two = object(
        json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}),
    );
    assert!(carries_sampling(&two, V2025_06_18).is_err());
    assert_eq!(carries_sampling(&two, V2025_11_25), Ok(()));
    let audio = object(
        json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AA", "mimeType": "audio/wav"}}]}),
    );
    assert_eq!(carries_sampling(&audio, V2025_03_26), Ok(()));
    assert_eq!(
        carries_sampling(&audio, V2024_11_05),
        Err("the client's revision 2024-11-05 has no audio content".into())
    );
}

/// "A capability reaches the upstream only as the client's revision can
/// declare it": `sampling.tools` and `sampling.context` from 2025-11-25.
#[test]
fn the_capabilities_a_revision_cannot_declare_do_not_reach_the_upstream() {
    let caps =
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}, "context": {}, "x": {}}, "roots": {}});
    for (revision, want) in [
        (V2025_11_25, caps.clone()),
        (V2025_06_18, json!({"elicitation": {"form": {}}, "sampling": {"x": {}}, "roots": {}})),
        (V2025_03_26, json!({"sampling": {"x": {}}, "roots": {}})),
    ] {
        let mut got = caps.clone();
        client_capabilities(&mut got, revision);
        assert_eq!(got, want, "{revision}");
    }
}

#[test]
fn progress_has_a_message_from_2025_03_26() {
    let mut params = object(json!({"progressToken": 0, "progress": 1, "total": 2, "message": "m"}));
    progress(&mut params, V2025_03_26);
    assert!(params.contains_key("message"));
    progress(&mut params, V2024_11_05);
    assert_eq!(Value::Object(params), json!({"progressToken": 0, "progress": 1, "total": 2}));
}

/// A 2025-06-18 client takes only an object as `structuredContent`:
/// any other value goes, and a text block carries it unless one holds
/// the same JSON; a null goes without a block.
#[test]
fn structured_content_that_is_not_an_object_reaches_a_2025_06_18_client_as_text() {
    let see = json!({"type": "text", "text": "see the structured result"});
    for (structured, carried) in [(json!([2, 3, 5]), true), (json!("s"), true), (json!(7), true), (json!(null), false)]
    {
        let call = json!({"content": [see.clone()], "structuredContent": structured.clone(), "isError": false});
        let (got, notes) = translated(Method::ToolsCall, call, V2025_06_18);
        let mut want = vec![see.clone()];
        if carried {
            want.push(json!({"type": "text", "text": structured.to_string()}));
        }
        assert_eq!(got, json!({"content": want, "isError": false}), "{structured}");
        let note = "revision 2025-06-18 of the client takes only an object as structuredContent; \
                    the bridge removed it, and a text block carries its value";
        assert_eq!(notes, if carried { vec![note.to_owned()] } else { vec![] }, "{structured}");
    }
    // The mirror of the result rules holds it already: no second block.
    let mirrored = json!({"content": [{"type": "text", "text": "[2,3]"}], "structuredContent": [2, 3]});
    let (got, notes) = translated(Method::ToolsCall, mirrored, V2025_06_18);
    assert_eq!(got, json!({"content": [{"type": "text", "text": "[2,3]"}]}));
    assert!(notes.is_empty(), "{notes:?}");
    // An object stays, as its schema has it.
    let object = json!({"content": [see.clone()], "structuredContent": {"a": 1}});
    assert_eq!(translated(Method::ToolsCall, object.clone(), V2025_06_18), (object, vec![]));
}

/// Below 2025-06-18 the structured result is not lost when the server
/// wrote a text block of its own: a text block carries it, with a note.
#[test]
fn structured_content_below_2025_06_18_is_carried_by_a_text_block() {
    let call = json!({"content": [{"type": "text", "text": "see the structured result"}],
        "structuredContent": {"rows": [1, 2]}});
    for revision in [V2025_03_26, V2024_11_05] {
        let (got, notes) = translated(Method::ToolsCall, call.clone(), revision);
        assert_eq!(
            got,
            json!({"content": [{"type": "text", "text": "see the structured result"},
                {"type": "text", "text": "{\"rows\":[1,2]}"}]}),
            "{revision}"
        );
        assert_eq!(
            notes,
            [format!(
                "revision {revision} of the client has no structuredContent; the bridge removed it, and a text block carries its value"
            )]
        );
    }
    // The server's own block of the same JSON, spaced its way, carries it.
    let spaced =
        json!({"content": [{"type": "text", "text": "{\"rows\": [1, 2]}"}], "structuredContent": {"rows": [1, 2]}});
    let (got, notes) = translated(Method::ToolsCall, spaced, V2025_03_26);
    assert_eq!(got, json!({"content": [{"type": "text", "text": "{\"rows\": [1, 2]}"}]}));
    assert!(notes.is_empty(), "{notes:?}");
}

/// "Notes of one result are bounded": one note per kind, with the count.
#[test]
fn many_converted_blocks_give_one_note_per_kind() {
    let link = json!({"type": "resource_link", "uri": "file:///r", "name": "r"});
    let audio = json!({"type": "audio", "data": "AA", "mimeType": "audio/wav"});
    let mut content = vec![link; 20_000];
    content.push(audio.clone());
    content.push(audio);
    let (got, notes) = translated(Method::ToolsCall, json!({"content": content}), V2024_11_05);
    assert_eq!(got["content"].as_array().map(Vec::len), Some(20_002));
    assert_eq!(
        notes,
        [
            "20000 resource_link blocks became text blocks: revision 2024-11-05 of the client has no resource_link blocks",
            "2 audio blocks became text blocks: revision 2024-11-05 of the client has no audio blocks",
        ]
    );
}

/// The blocks of a sampling question keep only what the revision has:
/// no `annotations.lastModified` before 2025-06-18.
#[test]
fn a_sampling_questions_blocks_lose_last_modified_before_2025_06_18() {
    let params = json!({"maxTokens": 5, "messages": [
        {"role": "user", "content": {"type": "text", "text": "a", "annotations": {"priority": 1, "lastModified": "2025-01-01T00:00:00Z"}}},
        {"role": "user", "content": [{"type": "image", "data": "AA", "mimeType": "image/png", "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}]}
    ]});
    for (revision, kept) in [(V2025_06_18, true), (V2025_03_26, false), (V2024_11_05, false)] {
        let mut got = params.clone();
        question(ClientRequest::SamplingCreateMessage, &mut got, revision);
        let first = &got["messages"][0]["content"]["annotations"];
        let second = &got["messages"][1]["content"]["annotations"];
        assert_eq!(first.get("lastModified").is_some(), kept, "{revision}: {got}");
        assert_eq!(first["priority"], 1, "{revision}");
        assert_eq!(second.get("lastModified").is_some(), kept, "{revision}: {got}");
    }
}

/// A 2025-06-18 form keeps only what its `PrimitiveSchemaDefinition` and
/// its params define: no `pattern`, no `enum` on a number, no `oneOf`
/// that is not a titled single-select of strings, no member of the params
/// or the `requestedSchema` that the revision lacks.
#[test]
fn a_2025_06_18_form_keeps_only_its_revisions_members() {
    let mut params = json!({"mode": "form", "message": "m", "url": "https://x", "_meta": {"k": 1},
    "requestedSchema": {"type": "object", "additionalProperties": false, "required": ["a"], "properties": {
        "a": {"type": "string", "pattern": "^x", "format": "hostname", "minLength": 1},
        "b": {"type": "number", "enum": [1, 2], "minimum": 0},
        "c": {"type": "string", "oneOf": [{"const": 5, "title": "Five"}]},
        "d": {"type": "string", "oneOf": [{"const": "x"}]},
        "e": {"type": "string", "format": "email", "default": "a@b.c"}
    }}});
    question(ClientRequest::ElicitationCreate, &mut params, V2025_06_18);
    assert_eq!(
        params,
        json!({"message": "m", "_meta": {"k": 1}, "requestedSchema": {"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "minLength": 1},
            "b": {"type": "number", "minimum": 0},
            "c": {"type": "string"},
            "d": {"type": "string"},
            "e": {"type": "string", "format": "email"}
        }}})
    );
}
