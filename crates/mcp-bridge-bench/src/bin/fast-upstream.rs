//! `fast-upstream`: a minimal 2026-07-28 stdio server for the benchmarks.
//!
//! It answers each request at once, on the thread that read it, and writes
//! the large results (`tools/list`, `big`) from text serialized once, so
//! that the benchmark measures the bridge and not the server: the same
//! server runs in the direct and in the bridged measure, and whatever it
//! costs is in both, where it shrinks the ratio.
//!
//! `fast-upstream [--tools N]`
//!
//! - `server/discover`: revision 2026-07-28, capability `tools`.
//! - `tools/list`: the small tools `echo`, `big` and `noop`; with
//!   `--tools N`, N more tools with nested schemas, each with one array
//!   schema that needs R6, to measure the bridge's walk and repair of large
//!   lists (one info line per tool).
//! - `tools/call`: `echo` returns `arguments.text` as one text block; `big`
//!   returns `arguments.bytes` bytes of text in `content` and the same text
//!   in `structuredContent` (`{"text": ...}`), so a result has both halves
//!   the bridge looks at; `noop` returns no content; any other tool is a
//!   `-32602` error.
//! - any other request: `{"resultType":"complete"}`.
//!
//! Each response is one line, flushed at once: a client that waits for it
//! must not wait for a buffer to fill.

use serde_json::{json, Value};
use std::io::{BufRead, BufWriter, Write};

fn main() {
    let extra_tools = match parse_tools(std::env::args().skip(1)) {
        Ok(count) => count,
        Err(message) => {
            eprintln!("fast-upstream: {message}");
            std::process::exit(2);
        }
    };
    // Serialized once: a `tools/list` then costs one write.
    let list = tools_list(extra_tools).to_string();
    let mut big = BigCache::default();
    let stdin = std::io::stdin().lock();
    // Large enough that small responses go out in one write; a big one
    // bypasses it.
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        // Notifications and responses get no answer.
        let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) else {
            continue;
        };
        let params = message.get("params").unwrap_or(&Value::Null);
        let reply = match method {
            "server/discover" => Reply::Result(discover()),
            "tools/list" => Reply::Raw(&list),
            "tools/call" => call(params, &mut big),
            _ => Reply::Result(json!({"resultType": "complete"})),
        };
        if write_response(&mut out, id, reply).is_err() {
            // The client is gone.
            break;
        }
    }
}

/// What goes after the id of a response.
enum Reply<'a> {
    Result(Value),
    /// A result serialized before.
    Raw(&'a str),
    Error(String),
}

/// Writes one response line and flushes it.
fn write_response(out: &mut impl Write, id: &Value, reply: Reply) -> std::io::Result<()> {
    out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    serde_json::to_writer(&mut *out, id)?;
    match reply {
        Reply::Result(result) => {
            out.write_all(b",\"result\":")?;
            serde_json::to_writer(&mut *out, &result)?;
        }
        Reply::Raw(result) => {
            out.write_all(b",\"result\":")?;
            out.write_all(result.as_bytes())?;
        }
        Reply::Error(message) => {
            out.write_all(b",\"error\":")?;
            serde_json::to_writer(&mut *out, &json!({"code": -32602, "message": message}))?;
        }
    }
    out.write_all(b"}\n")?;
    out.flush()
}

/// The serialized result of the last `big` call, by its byte count: building
/// megabytes of JSON (and faulting in fresh pages for it) on each call would
/// cost the server more than the pipe, and hide what the bridge costs.
#[derive(Default)]
struct BigCache(Option<(usize, String)>);

impl BigCache {
    fn get(&mut self, bytes: usize) -> &str {
        if self.0.as_ref().is_none_or(|(cached, _)| *cached != bytes) {
            let text = "x".repeat(bytes);
            let result = json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": text}],
                "structuredContent": {"text": text}
            });
            self.0 = Some((bytes, result.to_string()));
        }
        self.0.as_ref().map_or("", |(_, result)| result.as_str())
    }
}

/// The value of `--tools N`, 0 without it.
fn parse_tools(mut args: impl Iterator<Item = String>) -> Result<usize, String> {
    let mut count = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tools" => {
                let value = args.next().ok_or("--tools needs a number")?;
                count = value.parse().map_err(|_| format!("--tools needs a number, not {value:?}"))?;
            }
            other => return Err(format!("unknown argument {other:?}; usage: fast-upstream [--tools N]")),
        }
    }
    Ok(count)
}

fn discover() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fast-upstream", "version": "1"}}
    })
}

/// `echo`, `big` and `noop`, then `extra` tools with nested schemas (arrays of
/// objects, `anyOf`), the shapes a bridge has to walk. Each extra tool has
/// one array schema without `items` (`filters.items.values`), so that each
/// needs one R6 repair, and the bridge writes one info line per tool.
fn tools_list(extra: usize) -> Value {
    let mut tools = vec![
        json!({
            "name": "echo",
            "description": "Returns arguments.text.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        }),
        json!({
            "name": "big",
            "description": "Returns arguments.bytes bytes of text, as content and as structuredContent.",
            "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}}, "required": ["bytes"]}
        }),
        json!({"name": "noop", "description": "Returns no content.", "inputSchema": {"type": "object"}}),
    ];
    tools.extend((0..extra).map(|i| {
        json!({
            "name": format!("tool_{i}"),
            "description": format!("Tool number {i}, with a nested schema."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "filters": {"type": "array", "items": {"type": "object", "properties": {
                        "field": {"type": "string"}, "values": {"type": "array"}}}},
                    "options": {"anyOf": [
                        {"type": "object", "properties": {"limit": {"type": "integer"}, "sort": {"enum": ["asc", "desc"]}}},
                        {"type": "null"}
                    ]}
                },
                "required": ["query"]
            }
        })
    }));
    json!({"resultType": "complete", "tools": tools})
}

fn call<'a>(params: &Value, big: &'a mut BigCache) -> Reply<'a> {
    let arguments = &params["arguments"];
    match params["name"].as_str() {
        Some("echo") => Reply::Result(
            json!({"resultType": "complete", "content": [{"type": "text", "text": arguments["text"].clone()}]}),
        ),
        Some("big") => match arguments["bytes"].as_u64().and_then(|b| usize::try_from(b).ok()) {
            Some(bytes) => Reply::Raw(big.get(bytes)),
            None => Reply::Error("big needs arguments.bytes, a byte count".into()),
        },
        Some("noop") => Reply::Result(json!({"resultType": "complete", "content": []})),
        other => Reply::Error(format!("unknown tool {other:?}")),
    }
}
