//! Every kind of content block, in each revision, through the scripted
//! fake: text, image, audio, resource_link and an embedded resource with a
//! text and with a blob, in a call result (`rich_call`) and in the messages
//! of a prompt (`upstream`).

use super::client::Client;
use super::{rich_call, upstream};
use crate::support::assert_json;
use crate::support::driver::Driver;
use crate::support::schemas::REVISIONS;
use serde_json::{json, Value};

const LAST_MODIFIED: &str = "2025-01-01T00:00:00Z";

fn has(revision: &str, since: &str) -> bool {
    revision >= since
}

/// The annotations of a block in `revision`: `lastModified` from
/// 2025-06-18.
fn annotations(revision: &str, mut annotations: Value) -> Value {
    if has(revision, "2025-06-18") {
        annotations["lastModified"] = json!(LAST_MODIFIED);
    }
    annotations
}

/// The audio block of the call in `revision`: a text that says what it was
/// before 2025-03-26.
fn audio(revision: &str, with_annotations: bool) -> Value {
    if !has(revision, "2025-03-26") {
        return json!({"type": "text", "text": "An audio clip (audio/wav) that this client cannot play"});
    }
    let mut block = json!({"type": "audio", "data": "AA", "mimeType": "audio/wav"});
    if with_annotations {
        block["annotations"] = annotations(revision, json!({"priority": 1}));
    }
    block
}

/// The resource link in `revision`: a text with its name and URI before
/// 2025-06-18; its `icons` from 2025-11-25.
fn link(revision: &str) -> Value {
    if !has(revision, "2025-06-18") {
        return json!({"type": "text", "text": "A link to the resource a: file:///a.txt"});
    }
    let mut block = json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a", "title": "A"});
    if revision == "2025-11-25" {
        block["icons"] = json!([{"src": "data:image/png;base64,AA", "mimeType": "image/png"}]);
    }
    block
}

/// The call result of `rich_call` in `revision`.
fn call_result(revision: &str) -> Value {
    let blob = json!({"type": "resource", "resource": {"uri": "file:///c.bin", "mimeType": "application/octet-stream", "blob": "AAE="},
        "annotations": annotations(revision, json!({"audience": ["assistant"]}))});
    let content = json!([
        {"type": "text", "text": "{\"sum\":5}"},
        {"type": "image", "data": "AA", "mimeType": "image/png"},
        audio(revision, true),
        link(revision),
        {"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "b"}},
        blob
    ]);
    let mut result = json!({"content": content, "isError": false});
    // The text block carries the same JSON: no block is added.
    if has(revision, "2025-06-18") {
        result["structuredContent"] = json!({"sum": 5});
    }
    result
}

/// The prompt of `upstream` in `revision`.
fn prompt_result(revision: &str) -> Value {
    let text =
        json!({"type": "text", "text": "t", "annotations": annotations(revision, json!({"audience": ["user"]}))});
    json!({"description": "d", "messages": [
        {"role": "user", "content": link(revision)},
        {"role": "assistant", "content": audio(revision, false)},
        {"role": "user", "content": text},
        {"role": "user", "content": {"type": "image", "data": "AA", "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAE="}}}
    ]})
}

/// The notes of the blocks that became text (docs/decisions.md: "becomes
/// a text block that says what it was ... and a note"), one per kind.
fn notes(revision: &str) -> Vec<String> {
    let mut kinds = Vec::new();
    if !has(revision, "2025-03-26") {
        kinds.push(("an audio block", "audio"));
    }
    if !has(revision, "2025-06-18") {
        kinds.push(("a resource_link block", "resource_link"));
    }
    kinds
        .into_iter()
        .map(|(what, kind)| {
            format!("{what} became a text block: revision {revision} of the client has no {kind} blocks")
        })
        .collect()
}

/// "Only what the revision defines" (docs/decisions.md, "Revisions of the
/// client"): every kind of content block reaches a client of each
/// revision in its terms. A `resource_link` before 2025-06-18 and `audio`
/// before 2025-03-26 become a text block that says what it was (with the
/// link's URI), with a note; `annotations.lastModified` and
/// `structuredContent` come from 2025-06-18, a link's `icons` from
/// 2025-11-25; text, image and the embedded resources (text and blob)
/// reach every revision as they are. Each line is valid under the
/// client's revision.
#[test]
fn every_content_kind_reaches_each_revision_in_its_terms() {
    for revision in REVISIONS {
        let (mut client, _) = Client::start(Driver::start(&[], &upstream()), revision);
        let call = client.call(1, "result", json!({"result": rich_call()}));
        assert_json(&format!("{revision}: the call"), &call["result"], &call_result(revision));
        let prompt = client.ask(2, "prompts/get", json!({"name": "p", "arguments": {"x": "1"}}));
        assert_json(&format!("{revision}: the prompt"), &prompt["result"], &prompt_result(revision));
        for note in notes(revision) {
            // One note per kind and result: the call's and the prompt's.
            client.driver.wait_stderr(&note, 2);
        }
        let stderr = client.driver.stderr_text();
        assert_eq!(stderr.matches("became a text block").count(), 2 * notes(revision).len(), "{revision}: {stderr}");
    }
}
