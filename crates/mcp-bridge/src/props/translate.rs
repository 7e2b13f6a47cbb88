//! Properties of the translation functions (behaviour spec, "Forwarded
//! requests (M1)", "Meta passthrough (M3)", "Result rules (M1)", "The items
//! rule for array schemas (R6)"); those of the handshake are in
//! `handshake`.

use super::{ensure, text, Checked};
use crate::dialect::Dialect;
use crate::method::Method;
use crate::props::bytes::Bytes;
use crate::translate::discover::SERVER_INFO_KEY;
use crate::translate::items::{normalize_input_schema, MAX_SCHEMA_DEPTH};
use crate::translate::meta::passthrough;
use crate::translate::note::{Level, Note};
use crate::translate::params::forwarded;
use crate::translate::result::translate_result;
use crate::{MetaPassthrough, Profile, Quirks, Revision};
use serde_json::{Map, Value};

/// A profile with the vscode values and the given quirks and passthrough.
pub(crate) fn profile(quirks: Quirks, meta_passthrough: MetaPassthrough) -> Profile {
    let mut profile = Profile::vscode();
    profile.version = "0.1.0".into();
    profile.meta_passthrough = meta_passthrough;
    profile.quirks = quirks;
    profile
}

/// The dialect of a 2025-11-25 client with `quirks`, whose upstream is
/// `remote` or not.
pub(crate) fn dialect(quirks: Quirks, remote: bool) -> Dialect {
    Dialect::new(&profile(quirks, MetaPassthrough::default()), Revision::LATEST, remote)
}

/// The meta passthrough of the vscode profile.
pub(crate) fn vscode_passthrough() -> MetaPassthrough {
    MetaPassthrough { keys: vec!["traceparent".into(), "tracestate".into()], prefixes: vec!["vscode.".into()] }
}

/// Quirks from the low three bits of a byte.
pub(crate) fn quirks_from(bits: u8) -> Quirks {
    Quirks {
        normalize_array_items: bits & 1 != 0,
        drop_non_object_output_schema: bits & 2 != 0,
        strict_legacy_results: bits & 4 != 0,
        data_only_remote_icons: true,
    }
}

/// The forwarded methods: those whose results have rules, and the others.
pub(crate) const METHODS: [Method; 8] = Method::ALL;

const MODERN_MEMBERS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// The members of a result that some rule names for `method`.
fn named_by_a_rule(method: Method, key: &str) -> bool {
    MODERN_MEMBERS.contains(&key)
        || key == "_meta"
        || (method.is_list() && key == "nextCursor")
        || (method == Method::ToolsList && key == "tools")
        || (method == Method::ToolsCall && matches!(key, "content" | "structuredContent"))
}

/// Whether `sub` is `full` with some members left out, in the same order.
fn in_order(sub: &[&String], full: &[&String]) -> bool {
    let mut rest = full.iter();
    sub.iter().all(|key| rest.any(|k| k == key))
}

/// The result rules: every member no rule names keeps its value and
/// place; the modern members go; `_meta` loses only the server info;
/// `nextCursor` is a string or gone; a tools/call result has a content
/// array and, with a structuredContent, a text block that parses back to
/// it; tools keep every member but their schemas, which follow R6 and the
/// outputSchema rule; and the rules are idempotent.
pub(crate) fn result_rules(method: Method, cursor: Option<&Value>, result: &Value, quirks: Quirks) -> Checked {
    let dialect = dialect(quirks, false);
    let (out, notes) = translate_result(method, cursor, result.clone(), &dialect);
    let Some(input) = result.as_object() else {
        ensure!(text(&out) == text(result) && notes.is_empty(), "a result that is not an object changed");
        return Ok(());
    };
    let Some(output) = out.as_object() else { return Err(format!("an object result became {out}")) };

    // Every member that no rule names: same value, same order.
    for (key, value) in input {
        if !named_by_a_rule(method, key) {
            let kept = output.get(key).map(text);
            ensure!(kept.as_deref() == Some(text(value).as_str()), "the member {key:?} changed: {kept:?}");
        }
    }
    let in_keys: Vec<&String> = input.keys().collect();
    let out_old: Vec<&String> = output.keys().filter(|k| input.contains_key(*k)).collect();
    ensure!(in_order(&out_old, &in_keys), "the members changed their order: {out_old:?} from {in_keys:?}");
    for key in output.keys().filter(|k| !input.contains_key(*k)) {
        ensure!(method == Method::ToolsCall && key == "content", "a member {key:?} appeared");
    }

    for key in MODERN_MEMBERS {
        ensure!(!output.contains_key(key), "the modern member {key} is still there");
    }
    match input.get("_meta") {
        Some(Value::Object(meta)) => {
            let mut expected = meta.clone();
            expected.shift_remove(SERVER_INFO_KEY);
            let got = output.get("_meta");
            if expected.is_empty() {
                ensure!(got.is_none(), "an empty _meta stayed: {got:?}");
            } else {
                let want = Value::Object(expected);
                ensure!(got.map(text) == Some(text(&want)), "the _meta is {got:?}, expected {want}");
            }
        }
        other => ensure!(output.get("_meta") == other, "a _meta that is not an object changed"),
    }

    // A warning for each value of the server that is lost: a nextCursor
    // that is not a string (null means "last page") or that loops, and a
    // content that is not an array.
    let warnings = notes.iter().filter(|n| n.level == Level::Warn).count();
    let cursor_lost = match input.get("nextCursor") {
        Some(Value::String(n)) => cursor.and_then(Value::as_str) == Some(n.as_str()),
        Some(Value::Null) | None => false,
        Some(_) => true,
    };
    let content_lost = input.get("content").is_some_and(|c| !c.is_array());
    let expected =
        usize::from(method.is_list() && cursor_lost) + usize::from(method == Method::ToolsCall && content_lost);
    ensure!(warnings == expected, "{warnings} warnings, expected {expected}: {notes:?}");
    if method.is_list() {
        let next = output.get("nextCursor");
        ensure!(next.is_none_or(Value::is_string), "the nextCursor {next:?} is not a string");
        let request = cursor.and_then(Value::as_str);
        ensure!(
            next.and_then(Value::as_str).is_none_or(|n| Some(n) != request),
            "the nextCursor is the request's cursor"
        );
        if let Some(Value::String(n)) = input.get("nextCursor") {
            ensure!(Some(n.as_str()) == request || next == input.get("nextCursor"), "a string nextCursor was lost");
        }
    } else {
        ensure!(output.get("nextCursor") == input.get("nextCursor"), "the nextCursor of {method:?} changed");
    }

    match method {
        Method::ToolsCall => tools_call(input, output, quirks)?,
        Method::ToolsList => {
            // The nextCursor notes are warnings; the tool notes are info.
            let info: Vec<Note> = notes.iter().filter(|n| n.level == Level::Info).cloned().collect();
            tools_list(input, output, quirks, &info)?
        }
        _ => ensure!(notes.iter().all(|n| n.pointer.is_none()), "a note about a schema for {method:?}"),
    }

    let (again, _) = translate_result(method, cursor, out.clone(), &dialect);
    ensure!(text(&again) == text(&out), "the rules are not idempotent: {out} became {again}");
    Ok(())
}

fn tools_call(input: &Map<String, Value>, output: &Map<String, Value>, quirks: Quirks) -> Checked {
    let Some(content) = output.get("content").and_then(Value::as_array) else {
        return Err("a tools/call result has no content array".into());
    };
    let structured = input.get("structuredContent");
    if quirks.strict_legacy_results && structured.is_some_and(|s| !s.is_object()) {
        ensure!(!output.contains_key("structuredContent"), "strict: a structuredContent that is not an object stayed");
    } else {
        ensure!(output.get("structuredContent") == structured, "the structuredContent changed");
    }
    let old: Vec<Value> = input.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    let is_text = |b: &Value| b.get("type").and_then(Value::as_str) == Some("text");
    match structured {
        Some(s) if !s.is_null() && !old.iter().any(is_text) => {
            ensure!(content.len() == old.len() + 1, "no text block was added for the structuredContent");
            let block = content.last().cloned().unwrap_or_default();
            ensure!(is_text(&block), "the added block {block} is not a text block");
            let mirror = block.get("text").and_then(Value::as_str).unwrap_or_default();
            let back: Option<Value> = serde_json::from_str(mirror).ok();
            ensure!(back.as_ref().map(text) == Some(text(s)), "the text block {mirror:?} does not parse back to {s}");
        }
        _ => ensure!(text(&Value::Array(content.clone())) == text(&Value::Array(old)), "the content changed"),
    }
    Ok(())
}

fn tools_list(input: &Map<String, Value>, output: &Map<String, Value>, quirks: Quirks, notes: &[Note]) -> Checked {
    let (Some(Value::Array(old)), Some(Value::Array(new))) = (input.get("tools"), output.get("tools")) else {
        ensure!(output.get("tools") == input.get("tools"), "tools that are not an array changed");
        ensure!(notes.is_empty(), "notes without tools: {notes:?}");
        return Ok(());
    };
    ensure!(old.len() == new.len(), "the list has {} tools, it had {}", new.len(), old.len());
    let mut left: Vec<&Note> = notes.iter().collect();
    for (old, new) in old.iter().zip(new) {
        let (Value::Object(old), Value::Object(new)) = (old, new) else {
            ensure!(text(old) == text(new), "a tool that is not an object changed");
            continue;
        };
        let name = old.get("name").and_then(Value::as_str);
        for (key, value) in old {
            if key != "inputSchema" && key != "outputSchema" {
                ensure!(new.get(key).map(text) == Some(text(value)), "tool {name:?}: the member {key} changed");
            }
        }
        let drop = quirks.drop_non_object_output_schema || quirks.strict_legacy_results;
        match old.get("outputSchema") {
            Some(s) if drop && s.get("type").and_then(Value::as_str) != Some("object") => {
                ensure!(!new.contains_key("outputSchema"), "tool {name:?}: an outputSchema without type object stayed");
                let at = left.iter().position(|n| n.pointer.is_none() && n.tool.as_deref() == name);
                ensure!(at.map(|i| left.remove(i)).is_some(), "tool {name:?}: no note for the outputSchema");
            }
            s => ensure!(new.get("outputSchema") == s, "tool {name:?}: the outputSchema changed"),
        }
        match (old.get("inputSchema"), new.get("inputSchema")) {
            (Some(before), Some(after)) if quirks.normalize_array_items => {
                let mine: Vec<Note> = take_schema_notes(&mut left, name, before);
                items_outcome(before, after, &mine, name)?;
            }
            (before, after) => ensure!(before == after, "tool {name:?}: the inputSchema changed without R6"),
        }
    }
    ensure!(left.is_empty(), "notes that belong to no tool: {left:?}");
    Ok(())
}

/// The schema notes of one tool: the first ones in the list that name it.
/// The walk gives the notes of each tool in a row, in the order of the tools.
fn take_schema_notes(left: &mut Vec<&Note>, name: Option<&str>, schema: &Value) -> Vec<Note> {
    let mut count = 0;
    walk_schemas(schema, 0, "", &mut |value, depth, _| {
        if value.is_object() && (depth == MAX_SCHEMA_DEPTH || needs_items(value)) {
            count += 1;
        }
    });
    let mut mine = Vec::new();
    left.retain(|note| {
        if mine.len() < count && note.pointer.is_some() && note.tool.as_deref() == name {
            mine.push((*note).clone());
            return false;
        }
        true
    });
    mine
}

/// The keywords of the spec's R6 walk, and where each keeps its schemas:
/// `items` holds one schema, or a list of them (the tuple form of older
/// drafts).
fn keyword(key: &str) -> Option<u8> {
    const MAPS: [&str; 6] =
        ["properties", "patternProperties", "dependencies", "dependentSchemas", "$defs", "definitions"];
    const ONE: [&str; 6] = ["additionalProperties", "not", "if", "then", "else", "contains"];
    const LISTS: [&str; 4] = ["anyOf", "allOf", "oneOf", "prefixItems"];
    if MAPS.contains(&key) {
        Some(b'm')
    } else if ONE.contains(&key) {
        Some(b'1')
    } else if LISTS.contains(&key) {
        Some(b'l')
    } else if key == "items" {
        Some(b'i')
    } else {
        None
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Calls `visit` with each schema position the spec's walk reaches (the
/// root at depth 0), with its depth and RFC 6901 pointer; it does not go
/// below depth [`MAX_SCHEMA_DEPTH`].
fn walk_schemas(schema: &Value, depth: usize, pointer: &str, visit: &mut dyn FnMut(&Value, usize, &str)) {
    visit(schema, depth, pointer);
    let Value::Object(object) = schema else { return };
    if depth >= MAX_SCHEMA_DEPTH {
        return;
    }
    // On an input schema, an `items` that R6 repairs is not an object, so
    // this walk and the implementation's, which skips a repaired `items`,
    // reach the same schemas.
    for (key, value) in object {
        let here = format!("{pointer}/{}", escape(key));
        match (keyword(key), value) {
            (Some(b'm'), Value::Object(members)) => {
                for (name, member) in members {
                    walk_schemas(member, depth + 1, &format!("{here}/{}", escape(name)), visit);
                }
            }
            (Some(b'1'), member) => walk_schemas(member, depth + 1, &here, visit),
            (Some(b'l' | b'i'), Value::Array(members)) => {
                for (index, member) in members.iter().enumerate() {
                    walk_schemas(member, depth + 1, &format!("{here}/{index}"), visit);
                }
            }
            (Some(b'i'), member) => walk_schemas(member, depth + 1, &here, visit),
            _ => {}
        }
    }
}

/// An object schema with `type: "array"` whose `items` is missing or false
/// in JavaScript (`JSON.parse` semantics: `null`, `false`, `""`, a number
/// that is 0 as a double).
fn needs_items(schema: &Value) -> bool {
    if schema.get("type").and_then(Value::as_str) != Some("array") {
        return false;
    }
    match schema.get("items") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(_) => false,
    }
}

/// R6 on one schema: see [`items_outcome`].
pub(crate) fn items(schema: &Value, tool: Option<&str>) -> Checked {
    let mut out = schema.clone();
    let mut notes = Vec::new();
    normalize_input_schema(&mut out, tool, &mut notes);
    items_outcome(schema, &out, &notes, tool)
}

/// R6: each note names the tool and a pointer that resolves in the output;
/// undoing the noted repairs (restoring `items` and removing an added
/// `maxItems`) gives back the input exactly, member order included; no
/// array schema the walk reaches keeps a false `items`; the depth notes are
/// the objects at the depth limit; `items: false` gets the `maxItems` of
/// its `prefixItems`; and R6 is idempotent.
pub(crate) fn items_outcome(before: &Value, after: &Value, notes: &[Note], tool: Option<&str>) -> Checked {
    let mut undone = after.clone();
    let mut depth_notes = Vec::new();
    for note in notes {
        ensure!(note.tool.as_deref() == tool, "the note {note} names the tool {:?}, not {tool:?}", note.tool);
        ensure!(note.level == Level::Info, "an R6 note is not info: {note}");
        let Some(pointer) = note.pointer.as_deref() else {
            return Err(format!("an R6 note without a pointer: {note}"));
        };
        ensure!(after.pointer(pointer).is_some_and(Value::is_object), "the pointer of {note} resolves to no schema");
        if note.text.contains("deeper than") {
            depth_notes.push(pointer.to_owned());
            continue;
        }
        let (Some(Value::Object(old)), Some(Value::Object(new))) =
            (before.pointer(pointer), undone.pointer_mut(pointer))
        else {
            return Err(format!("the pointer of {note} resolves to no schema in the input"));
        };
        ensure!(needs_items(&Value::Object(old.clone())), "{note}: the schema did not need a repair");
        ensure!(new.get("items") == Some(&Value::Object(Map::new())), "{note}: items is not {{}}");
        if old.get("items") == Some(&Value::Bool(false)) && !old.contains_key("maxItems") {
            let max = old.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
            ensure!(new.get("maxItems") == Some(&Value::from(max)), "{note}: maxItems is not {max}");
        }
        match old.get("items") {
            Some(items) => {
                new.insert("items".into(), items.clone());
            }
            None => {
                new.shift_remove("items");
            }
        }
        if !old.contains_key("maxItems") {
            new.shift_remove("maxItems");
        }
    }
    ensure!(text(&undone) == text(before), "R6 changed more than it noted: {before} became {after}");

    // The schemas at the limit are those of the input: an `items: {}` of
    // the bridge's own repair at the limit is not the server's schema.
    let mut at_limit = Vec::new();
    walk_schemas(before, 0, "", &mut |schema, depth, pointer| {
        if depth == MAX_SCHEMA_DEPTH && schema.is_object() {
            at_limit.push(pointer.to_owned());
        }
    });
    let mut broken = None;
    walk_schemas(after, 0, "", &mut |schema, depth, pointer| {
        if depth < MAX_SCHEMA_DEPTH && needs_items(schema) && broken.is_none() {
            broken = Some(pointer.to_owned());
        }
    });
    ensure!(broken.is_none(), "the array schema at {broken:?} still has no true items");
    ensure!(
        at_limit == depth_notes,
        "the depth notes are at {depth_notes:?}, the schemas at the limit at {at_limit:?}"
    );

    let mut again = after.clone();
    let mut more = Vec::new();
    normalize_input_schema(&mut again, tool, &mut more);
    ensure!(text(&again) == text(after), "R6 is not idempotent");
    ensure!(more.iter().all(|n| n.text.contains("deeper than")), "R6 repaired its own output: {more:?}");
    Ok(())
}

/// Fuzz glue for the result rules: a byte picks the method, a byte the
/// quirks, a byte whether the request had a cursor (`"c"`); the rest is
/// the result.
pub fn result_rules_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let method = METHODS[usize::from(bytes.byte()) % METHODS.len()];
    let quirks = quirks_from(bytes.byte());
    let cursor = (bytes.byte() & 1 == 1).then(|| Value::from("c"));
    let Some(result) = bytes.json() else { return Ok(()) };
    result_rules(method, cursor.as_ref(), &result, quirks)
}

/// Fuzz glue for R6: the whole input is one schema.
pub fn items_bytes(data: &[u8]) -> Checked {
    match serde_json::from_slice::<Value>(data) {
        Ok(schema) => items(&schema, Some("t")),
        Err(_) => Ok(()),
    }
}

/// The grammar of a `_meta` key, read from the 2026-07-28 base protocol
/// page ("Key name format") one segment at a time.
pub(crate) fn spec_key(key: &str) -> bool {
    let label = |l: &str| {
        let b = l.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_alphabetic()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
    };
    let name = |n: &str| {
        let b = n.as_bytes();
        b.is_empty()
            || (b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')))
    };
    let parts: Vec<&str> = key.split('/').collect();
    match parts.as_slice() {
        [n] => name(n),
        [prefix, n] => prefix.split('.').all(label) && name(n),
        _ => false,
    }
}

/// Whether the spec reserves the key's prefix, or the key belongs to the
/// upstream client.
fn spec_reserved(key: &str) -> bool {
    let second = key.split_once('/').and_then(|(prefix, _)| prefix.split('.').nth(1));
    key == "progressToken" || matches!(second, Some("mcp" | "modelcontextprotocol"))
}

/// The params rules and the meta passthrough: the params lose exactly
/// `task` and `_meta`, in order; the progress token is the client's when
/// it is a token; `_meta` keys pass exactly when the profile allows them,
/// they obey the grammar and they are not reserved, with their values.
pub(crate) fn params(params: Option<&Value>, allowed: &MetaPassthrough) -> Checked {
    let profile = profile(Quirks::default(), allowed.clone());
    let got = forwarded(params.cloned(), &profile);
    let input = params.and_then(Value::as_object).cloned().unwrap_or_default();
    let want: Map<String, Value> = input
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "task" | "_meta"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    ensure!(text(&Value::Object(got.params.clone())) == text(&Value::Object(want)), "the params are {:?}", got.params);
    let meta = input.get("_meta").and_then(Value::as_object).cloned().unwrap_or_default();
    let token = meta.get("progressToken").filter(|t| !matches!(t, Value::Null | Value::Array(_) | Value::Object(_)));
    ensure!(got.progress_token.as_ref() == token, "the progress token is {:?}, expected {token:?}", got.progress_token);
    let want: Map<String, Value> = meta
        .iter()
        .filter(|(k, _)| allowed.allows(k) && spec_key(k) && !spec_reserved(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    ensure!(
        text(&Value::Object(got.meta.clone())) == text(&Value::Object(want.clone())),
        "the passthrough is {:?}, expected {want:?}",
        got.meta
    );
    ensure!(passthrough(&meta, &profile) == got.meta, "meta::passthrough differs from forwarded");
    Ok(())
}

/// Fuzz glue: a byte picks the passthrough (vscode's, everything with the
/// empty prefix, or nothing); the rest is the params.
pub fn params_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let allowed = match bytes.byte() % 3 {
        0 => vscode_passthrough(),
        1 => MetaPassthrough { keys: Vec::new(), prefixes: vec![String::new()] },
        _ => MetaPassthrough::default(),
    };
    let params = bytes.json();
    self::params(params.as_ref(), &allowed)
}
