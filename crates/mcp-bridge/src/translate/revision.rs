//! What a client of an older revision reads (beyond the behaviour spec,
//! whose profile answers 2025-11-25: docs/decisions.md). A client that
//! negotiated 2025-06-18, 2025-03-26 or 2024-11-05 gets only what its
//! revision defines: the members that a later revision added go, a content
//! block of a type it lacks becomes a text block that says what it was,
//! and a question that it cannot carry is declined as an undeclared one
//! (`carries_form`, `carries_sampling`). A client of 2025-11-25 gets
//! everything as the spec says; nothing here touches its messages.
//!
//! Pure: each table names a member and the first revision that has it.

use super::note::Note;
use crate::gate::text;
use crate::method::Method;
use crate::profile::Revision::{self, V2025_03_26, V2025_06_18, V2025_11_25};
use serde_json::{Map, Value};

/// A member, and the first revision that defines it.
type Since = (&'static str, Revision);

const IMPLEMENTATION: [Since; 4] =
    [("title", V2025_06_18), ("icons", V2025_11_25), ("description", V2025_11_25), ("websiteUrl", V2025_11_25)];
const SERVER_CAPABILITIES: [Since; 1] = [("completions", V2025_03_26)];
const TOOL: [Since; 5] = [
    ("title", V2025_06_18),
    ("icons", V2025_11_25),
    ("outputSchema", V2025_06_18),
    ("annotations", V2025_03_26),
    ("execution", V2025_11_25),
];
const PROMPT: [Since; 2] = [("title", V2025_06_18), ("icons", V2025_11_25)];
const PROMPT_ARGUMENT: [Since; 1] = [("title", V2025_06_18)];
const RESOURCE: [Since; 2] = [("title", V2025_06_18), ("icons", V2025_11_25)];
const RESOURCE_LINK: [Since; 1] = [("icons", V2025_11_25)];
const ANNOTATIONS: [Since; 1] = [("lastModified", V2025_06_18)];
const CALL_RESULT: [Since; 1] = [("structuredContent", V2025_06_18)];
const PROGRESS: [Since; 1] = [("message", V2025_03_26)];
const ELICITATION: [Since; 1] = [("mode", V2025_11_25)];
const SAMPLING: [Since; 2] = [("tools", V2025_11_25), ("toolChoice", V2025_11_25)];

/// Removes the members of `object` that `revision` lacks.
fn strip(object: &mut Map<String, Value>, members: &[Since], revision: Revision) {
    for (name, since) in members {
        if revision < *since {
            object.shift_remove(*name);
        }
    }
}

fn strip_value(value: &mut Value, members: &[Since], revision: Revision) {
    if let Value::Object(object) = value {
        strip(object, members, revision);
    }
}

/// The initialize result: the capabilities and the server information.
pub(crate) fn initialize(result: &mut Map<String, Value>, revision: Revision) {
    if let Some(capabilities) = result.get_mut("capabilities") {
        strip_value(capabilities, &SERVER_CAPABILITIES, revision);
    }
    if let Some(info) = result.get_mut("serverInfo") {
        strip_value(info, &IMPLEMENTATION, revision);
    }
}

/// The client's capabilities that its revision can declare: elicitation
/// from 2025-06-18, its URL mode from 2025-11-25. The upstream server then
/// asks nothing the client cannot answer, and an input request it sends
/// anyway is undeclared.
pub(crate) fn client_capabilities(capabilities: &mut Value, revision: Revision) {
    let Value::Object(capabilities) = capabilities else { return };
    if revision < V2025_06_18 {
        capabilities.shift_remove("elicitation");
    } else if revision < V2025_11_25 {
        if let Some(Value::Object(elicitation)) = capabilities.get_mut("elicitation") {
            elicitation.shift_remove("url");
        }
    }
}

/// A complete result of `method`, after the result rules.
pub(crate) fn result(method: Method, result: &mut Map<String, Value>, revision: Revision, notes: &mut Vec<Note>) {
    if revision == Revision::LATEST {
        return;
    }
    let items = |result: &mut Map<String, Value>, member: &str, each: &mut dyn FnMut(&mut Map<String, Value>)| {
        if let Some(Value::Array(list)) = result.get_mut(member) {
            list.iter_mut().filter_map(Value::as_object_mut).for_each(each);
        }
    };
    match method {
        Method::ToolsList => items(result, "tools", &mut |tool| strip(tool, &TOOL, revision)),
        Method::PromptsList => items(result, "prompts", &mut |prompt| {
            strip(prompt, &PROMPT, revision);
            if let Some(Value::Array(arguments)) = prompt.get_mut("arguments") {
                arguments.iter_mut().for_each(|a| strip_value(a, &PROMPT_ARGUMENT, revision));
            }
        }),
        Method::ResourcesList => items(result, "resources", &mut |r| resource(r, revision)),
        Method::ResourcesTemplatesList => items(result, "resourceTemplates", &mut |r| resource(r, revision)),
        Method::ToolsCall => {
            strip(result, &CALL_RESULT, revision);
            if let Some(Value::Array(content)) = result.get_mut("content") {
                content.iter_mut().for_each(|b| block(b, revision, notes));
            }
        }
        Method::PromptsGet => {
            let Some(Value::Array(messages)) = result.get_mut("messages") else { return };
            for message in messages.iter_mut() {
                match message.get_mut("content") {
                    Some(Value::Array(blocks)) => blocks.iter_mut().for_each(|b| block(b, revision, notes)),
                    Some(content) => block(content, revision, notes),
                    None => {}
                }
            }
        }
        Method::ResourcesRead | Method::CompletionComplete => {}
    }
}

fn resource(resource: &mut Map<String, Value>, revision: Revision) {
    strip(resource, &RESOURCE, revision);
    if let Some(annotations) = resource.get_mut("annotations") {
        strip_value(annotations, &ANNOTATIONS, revision);
    }
}

/// One content block: a type the revision lacks becomes a text block that
/// says what it was; the members of the others follow their tables.
fn block(block: &mut Value, revision: Revision, notes: &mut Vec<Note>) {
    let Value::Object(object) = block else { return };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let text = match kind {
        // The server's texts in the bridge's sentence pass the gate: a line
        // break in a name must not forge a second link in the block.
        "resource_link" if revision < V2025_06_18 => {
            let uri = object.get("uri").and_then(Value::as_str).map(|uri| text::shown(uri, text::LINE));
            let name = object.get("name").and_then(Value::as_str).map(|name| text::shown(name, text::NAME));
            match (name, uri) {
                (Some(name), Some(uri)) => format!("A link to the resource {name}: {uri}"),
                (None, Some(uri)) => format!("A link to the resource {uri}"),
                (Some(name), None) => format!("A link to the resource {name}"),
                (None, None) => "A link to a resource".to_owned(),
            }
        }
        "audio" if revision < V2025_03_26 => {
            let mime = object.get("mimeType").and_then(Value::as_str).unwrap_or("audio");
            format!("An audio clip ({}) that this client cannot play", text::shown(mime, text::NAME))
        }
        _ => {
            if kind == "resource_link" {
                strip(object, &RESOURCE_LINK, revision);
            }
            if let Some(annotations) = object.get_mut("annotations") {
                strip_value(annotations, &ANNOTATIONS, revision);
            }
            return;
        }
    };
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    notes.push(Note::info(format!(
        "{article} {kind} block became a text block: revision {revision} of the client has no {kind} blocks"
    )));
    let mut replaced = Map::new();
    replaced.insert("type".into(), Value::from("text"));
    replaced.insert("text".into(), Value::from(text));
    *object = replaced;
}

/// A progress notification's params.
pub(crate) fn progress(params: &mut Map<String, Value>, revision: Revision) {
    strip(params, &PROGRESS, revision);
}

/// Why a form cannot reach a client of `revision`, if it cannot: a
/// multi-select enum (an array property) exists only from 2025-11-25.
/// Every other form of 2025-11-25 has a form of 2025-06-18 ([`question`]).
pub(crate) fn carries_form(schema: &Value, revision: Revision) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let multi = properties.is_some_and(|p| p.values().any(|s| s.get("type").and_then(Value::as_str) == Some("array")));
    if revision < V2025_11_25 && multi {
        return Err(format!("the client's revision {revision} has no multi-select enums"));
    }
    Ok(())
}

/// Why a sampling request cannot reach a client of `revision`, if it
/// cannot: before 2025-11-25 a message holds one content block, and before
/// 2025-03-26 there is no audio.
pub(crate) fn carries_sampling(params: &Map<String, Value>, revision: Revision) -> Result<(), String> {
    let messages = params.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for content in messages.iter().filter_map(|m| m.get("content")) {
        let blocks = match content {
            Value::Array(blocks) if revision < V2025_11_25 && blocks.len() != 1 => {
                return Err(format!("the client's revision {revision} takes one content block per sampling message"));
            }
            Value::Array(blocks) => blocks.as_slice(),
            block => std::slice::from_ref(block),
        };
        let audio = blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("audio"));
        if audio && revision < V2025_03_26 {
            return Err(format!("the client's revision {revision} has no audio content"));
        }
    }
    Ok(())
}

/// The params of a question to a client of `revision` (after the checks of
/// `carries_form` and `carries_sampling`).
pub(crate) fn question(method: &str, params: &mut Value, revision: Revision) {
    if revision == Revision::LATEST {
        return;
    }
    let Value::Object(params) = params else { return };
    match method {
        "elicitation/create" => {
            strip(params, &ELICITATION, revision);
            if let Some(Value::Object(schema)) = params.get_mut("requestedSchema") {
                schema.shift_remove("$schema");
                if let Some(Value::Object(properties)) = schema.get_mut("properties") {
                    properties.values_mut().for_each(form_property);
                }
            }
        }
        "sampling/createMessage" => {
            strip(params, &SAMPLING, revision);
            if let Some(Value::Array(messages)) = params.get_mut("messages") {
                for content in messages.iter_mut().filter_map(|m| m.get_mut("content")) {
                    if let Value::Array(blocks) = content {
                        if let Some(only) = blocks.pop() {
                            *content = only;
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// A property of a form as 2025-06-18 has it: no `default` but on a
/// boolean, and a titled single-select (`oneOf` of `const` and `title`) as
/// an `enum` with `enumNames`, which takes the same answers.
fn form_property(property: &mut Value) {
    let Value::Object(property) = property else { return };
    if property.get("type").and_then(Value::as_str) != Some("boolean") {
        property.shift_remove("default");
    }
    let Some(Value::Array(choices)) = property.get("oneOf") else { return };
    let consts: Option<Vec<Value>> = choices.iter().map(|c| c.get("const").cloned()).collect();
    let titles: Option<Vec<Value>> = choices.iter().map(|c| c.get("title").cloned()).collect();
    if let (Some(consts), Some(titles)) = (consts, titles) {
        property.shift_remove("oneOf");
        property.insert("enum".into(), Value::Array(consts));
        property.insert("enumNames".into(), Value::Array(titles));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Revision::V2024_11_05;
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
        assert_eq!(notes, ["a resource_link block became a text block: revision 2025-03-26 of the client has no resource_link blocks"]);
        let (got, notes) = translated(Method::ToolsCall, call, V2024_11_05);
        assert_eq!(
            got["content"][2],
            json!({"type": "text", "text": "An audio clip (audio/wav) that this client cannot play"})
        );
        assert_eq!(notes.len(), 2);
        assert_eq!(
            notes[1],
            "an audio block became a text block: revision 2024-11-05 of the client has no audio blocks"
        );
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
        question("elicitation/create", &mut params, V2025_06_18);
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
        let params = object(
            json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "maxTokens": 5}),
        );
        assert_eq!(carries_sampling(&params, V2025_06_18), Ok(()));
        let mut value = Value::Object(params);
        question("sampling/createMessage", &mut value, V2025_06_18);
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

    #[test]
    fn the_capabilities_a_revision_cannot_declare_do_not_reach_the_upstream() {
        let caps = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}});
        for (revision, want) in [
            (V2025_11_25, caps.clone()),
            (V2025_06_18, json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})),
            (V2025_03_26, json!({"sampling": {}, "roots": {}})),
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
}
