//! A minimal, fast 2026-07-28 stdio server for the benchmarks: it answers
//! at once so that the figures measure the bridge, not the server.
//!
//! `fast-upstream [--tools N]`: `tools/list` lists N tools (default 3) with
//! nested schemas. Tool `echo` returns `arguments.text`; tool `big` returns
//! `arguments.bytes` bytes of text in `content` and in `structuredContent`.

use serde_json::{json, Value};
use std::io::{BufRead, BufWriter, Write};

fn tools(count: usize) -> Value {
    let tools: Vec<Value> = (0..count)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "description": format!("Tool number {i}, with a nested schema."),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "filters": {"type": "array", "items": {"type": "object", "properties": {
                            "field": {"type": "string"}, "values": {"type": "array"}}}},
                        "options": {"anyOf": [{"type": "object", "properties": {"limit": {"type": "integer"}}}, {"type": "null"}]}
                    },
                    "required": ["query"]
                }
            })
        })
        .collect();
    json!({"resultType": "complete", "tools": tools})
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count = args
        .iter()
        .position(|a| a == "--tools")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let list = tools(count);
    let stdin = std::io::stdin();
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) else {
            continue;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let result = match method {
            "server/discover" => json!({
                "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fast-upstream", "version": "1"}}
            }),
            "tools/list" => list.clone(),
            "tools/call" => call(&params),
            _ => json!({"resultType": "complete"}),
        };
        let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{response}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}

fn call(params: &Value) -> Value {
    let arguments = &params["arguments"];
    match params["name"].as_str() {
        Some("big") => {
            let bytes = arguments["bytes"].as_u64().unwrap_or(1024) as usize;
            let text = "x".repeat(bytes / 2);
            json!({"resultType": "complete", "content": [{"type": "text", "text": text}], "structuredContent": {"text": text}})
        }
        _ => json!({"resultType": "complete", "content": [{"type": "text", "text": arguments["text"].clone()}]}),
    }
}
