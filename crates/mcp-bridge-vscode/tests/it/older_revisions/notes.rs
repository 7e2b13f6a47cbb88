//! The notes of the blocks an older revision lacks: one line per kind of
//! converted block, with the count, however many blocks a result has.

use super::{answers, fake_client, lines_with, log_so_far, valid};
use crate::support::assert_json;
use serde_json::{json, Value};

/// Rule: "becomes a text block that says what it was, with the link's URI;
/// one note per kind and result, with the count (20,000 links: one log
/// line)" (decisions.md, "Revisions of the client", "Only what the
/// revision defines"):
/// a result of 20,000 `resource_link` blocks and 3 audio clips for a
/// 2024-11-05 client writes exactly one log line about the links and one
/// about the clips, and every block reaches the client as its text.
#[test]
fn twenty_thousand_converted_blocks_give_one_note_per_kind() {
    const LINKS: usize = 20_000;
    let links =
        (0..LINKS).map(|i| json!({"type": "resource_link", "uri": format!("file:///r/{i}"), "name": format!("r{i}")}));
    let clips = (0..3).map(|_| json!({"type": "audio", "data": "AA", "mimeType": "audio/wav"}));
    let content: Vec<Value> = links.chain(clips).collect();
    let mut bridge = fake_client("2024-11-05", json!({}), &[]);
    let result = json!({"resultType": "complete", "content": content});
    let response = bridge.call(json!(1), "tools/call", answers(result));
    let texts = (0..LINKS).map(|i| format!("A link to the resource r{i}: file:///r/{i}"));
    let texts = texts.chain((0..3).map(|_| "An audio clip (audio/wav) that this client cannot play".to_owned()));
    let want: Vec<Value> = texts.map(|text| json!({"type": "text", "text": text})).collect();
    assert_json("the result", &response["result"], &json!({"content": want}));
    valid("2024-11-05", "CallToolResult", &response["result"]);
    let note =
        "20000 resource_link blocks became text blocks: revision 2024-11-05 of the client has no resource_link blocks";
    let stderr = log_so_far(&mut bridge);
    assert_eq!(lines_with(&stderr, "resource_link"), 1, "{}", tail(&stderr));
    assert_eq!(lines_with(&stderr, note), 1, "{}", tail(&stderr));
    let clips = "3 audio blocks became text blocks: revision 2024-11-05 of the client has no audio blocks";
    assert_eq!(lines_with(&stderr, "audio"), 1, "{}", tail(&stderr));
    assert_eq!(lines_with(&stderr, clips), 1, "{}", tail(&stderr));
}

/// The last lines of a log that may be long.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    format!("{} lines, the last ones:\n{}", lines.len(), lines[lines.len().saturating_sub(10)..].join("\n"))
}
