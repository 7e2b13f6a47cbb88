//! The demo's tools: their list, with the schemas that the bridge repairs
//! left broken on purpose, and what each call does.

use super::args::{integer, number};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputRequest, InputRequests,
    InputRequiredResult, JsonObject, ProgressNotificationParam, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, SubscriptionSink};
use rmcp::RoleServer;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The largest `limit` of `list_primes`.
const MAX_PRIME_LIMIT: u64 = 100_000;
/// The bounds of `slow_count`.
const MAX_STEPS: u64 = 1000;
const MAX_DELAY_MS: u64 = 60_000;

/// What the tools change, and the listen streams that must hear of it.
#[derive(Default)]
pub(super) struct State {
    /// `add_tool` ran: the tool `extra` is in the list.
    extra: AtomicBool,
    sinks: Mutex<Vec<SubscriptionSink>>,
}

/// A hand-written schema: the macros of `rmcp` could not write the broken
/// ones, and the demo needs them broken.
fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    let pure = ToolAnnotations::new().read_only(true).idempotent(true).open_world(false);
    vec![
        Tool::new(
            "add",
            "Add two numbers; the result is structured ({\"sum\": ...}).",
            schema(json!({
                "type": "object",
                "properties": {
                    "a": {"type": "number", "description": "The first number"},
                    "b": {"type": "number", "description": "The second number"}
                },
                "required": ["a", "b"]
            })),
        )
        .with_title("Add")
        .with_annotations(pure.clone())
        .with_raw_output_schema(schema(json!({
            "type": "object",
            "properties": {"sum": {"type": "number"}},
            "required": ["sum"]
        }))),
        Tool::new(
            "tag_items",
            "Tag items. Its schema has arrays that the Copilot extension refuses.",
            schema(json!({
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "description": "Tags, without an items schema"},
                    "labels": {
                        "description": "Labels: a list (without an items schema) or one string",
                        "anyOf": [{"type": "array"}, {"type": "string"}]
                    },
                    "pair": {"$ref": "#/$defs/pair"}
                },
                "$defs": {
                    "pair": {
                        "type": "array",
                        "description": "A name and a weight, and nothing after them",
                        "prefixItems": [{"type": "string"}, {"type": "number"}],
                        "items": false
                    }
                }
            })),
        )
        .with_title("Tag items")
        .with_annotations(pure.clone()),
        Tool::new(
            "list_primes",
            "The primes up to a limit; the structured result is an array.",
            schema(json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 0, "maximum": MAX_PRIME_LIMIT, "description": "The largest number to test"}
                },
                "required": ["limit"]
            })),
        )
        .with_title("List primes")
        .with_annotations(pure)
        .with_raw_output_schema(schema(json!({"type": "array", "items": {"type": "integer"}}))),
        Tool::new(
            "slow_count",
            "Count slowly and report progress at each step; it can be cancelled.",
            schema(json!({
                "type": "object",
                "properties": {
                    "steps": {"type": "integer", "minimum": 1, "maximum": MAX_STEPS, "default": 5, "description": "How many steps"},
                    "delay_ms": {"type": "integer", "minimum": 0, "maximum": MAX_DELAY_MS, "default": 200, "description": "The wait before each step, in milliseconds"}
                }
            })),
        )
        .with_title("Slow count")
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new("ask_name", "Ask the user's name with a form, and greet them.", schema(json!({"type": "object"})))
            .with_title("Ask name"),
        Tool::new("add_tool", "Add the tool `extra` to the list, and announce the change.", schema(json!({"type": "object"})))
            .with_title("Add a tool"),
    ]
}

/// The tool that `add_tool` adds.
fn extra_tool() -> Tool {
    Tool::new("extra", "A tool that `add_tool` added.", schema(json!({"type": "object"}))).with_title("Extra")
}

/// The form of `ask_name`: one required string, `name`.
fn name_form() -> Option<InputRequests> {
    let request = json!({"method": "elicitation/create", "params": {
        "mode": "form",
        "message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}
    }});
    let request: InputRequest = serde_json::from_value(request).ok()?;
    Some(InputRequests::from([("name".to_owned(), request)]))
}

/// A number as a person writes it: a whole number without `.0` (2 + 3 is
/// `5`, not `5.0`), where an `f64` holds it exactly.
fn plain(number: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if number.fract() == 0.0 && number.abs() <= EXACT {
        // Exact: a whole number of at most 53 bits.
        json!(number as i64)
    } else {
        json!(number)
    }
}

/// A tool error the model can read and correct.
fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

/// A structured result with an empty `content`, as a 2026-07-28 server may
/// send: the bridge adds the text mirror that VS Code's model reads.
fn structured(value: Value) -> CallToolResult {
    let mut result = CallToolResult::structured(value);
    result.content.clear();
    result
}

/// The tools now: `extra` once `add_tool` ran.
pub(super) fn list(state: &State) -> Vec<Tool> {
    let mut tools = tools();
    if state.extra.load(Ordering::Acquire) {
        tools.push(extra_tool());
    }
    tools
}

/// Runs a call; `None` for a tool that is not in the list.
pub(super) async fn call(
    state: &State,
    request: &CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Option<CallToolResponse> {
    let args = request.arguments.as_ref();
    let result = match request.name.as_ref() {
        "ask_name" => return Some(ask_name(request)),
        "add" => {
            number(args, "a").and_then(|a| Ok(a + number(args, "b")?)).map(|sum| structured(json!({"sum": plain(sum)})))
        }
        "tag_items" => {
            let tags = args.and_then(|a| a.get("tags")).cloned().unwrap_or(json!([]));
            Ok(CallToolResult::success(vec![ContentBlock::text(format!("tagged with {tags}"))]))
        }
        "list_primes" => integer(args, "limit", None, MAX_PRIME_LIMIT).map(|limit| structured(json!(primes(limit)))),
        "slow_count" => slow_count(args, context).await,
        "add_tool" => Ok(add_tool(state).await),
        "extra" if state.extra.load(Ordering::Acquire) => {
            Ok(CallToolResult::success(vec![ContentBlock::text("the extra tool ran")]))
        }
        _ => return None,
    };
    Some(result.unwrap_or_else(tool_error).into())
}

/// Keeps the sink of a listen stream until the stream ends, so that
/// `add_tool` reaches it.
pub(super) async fn listen(state: &State, sink: SubscriptionSink, ended: impl std::future::Future<Output = ()>) {
    let id = sink.id().clone();
    if let Ok(mut sinks) = state.sinks.lock() {
        sinks.push(sink);
    }
    ended.await;
    if let Ok(mut sinks) = state.sinks.lock() {
        sinks.retain(|s| s.id() != &id);
    }
}

/// `ask_name`: the first round asks the form; the round with the answer
/// greets.
fn ask_name(request: &CallToolRequestParams) -> CallToolResponse {
    let answer = request.input_responses.as_ref().and_then(|r| r.get("name"));
    match answer {
        None => match name_form() {
            Some(form) => CallToolResponse::InputRequired(InputRequiredResult::from_input_requests(form)),
            None => tool_error("the form cannot be made").into(),
        },
        Some(answer) => {
            let name = answer.get("content").and_then(|c| c.get("name")).and_then(Value::as_str);
            let text = match (answer.get("action").and_then(Value::as_str), name) {
                (Some("accept"), Some(name)) => format!("Hello, {name}!"),
                _ => "No name was given.".to_owned(),
            };
            CallToolResult::success(vec![ContentBlock::text(text)]).into()
        }
    }
}

/// `add_tool`: the change is announced on the task that makes it, before
/// the result, so a client hears of it first.
async fn add_tool(state: &State) -> CallToolResult {
    state.extra.store(true, Ordering::Release);
    let sinks: Vec<SubscriptionSink> = state.sinks.lock().map(|s| s.clone()).unwrap_or_default();
    for sink in sinks {
        let _ = sink.notify_tool_list_changed().await;
    }
    CallToolResult::success(vec![ContentBlock::text("added the tool extra")])
}

async fn slow_count(args: Option<&JsonObject>, context: RequestContext<RoleServer>) -> Result<CallToolResult, String> {
    let steps = integer(args, "steps", Some(5), MAX_STEPS)?.max(1);
    let delay = Duration::from_millis(integer(args, "delay_ms", Some(200), MAX_DELAY_MS)?);
    let token = context.meta.get_progress_token();
    for step in 1..=steps {
        tokio::select! {
            // rmcp drops the answer of a cancelled request; this one
            // only ends the work.
            _ = context.ct.cancelled() => return Err("cancelled".into()),
            _ = tokio::time::sleep(delay) => {}
        }
        if let Some(token) = token.clone() {
            let progress = ProgressNotificationParam::new(token, step as f64)
                .with_total(steps as f64)
                .with_message(format!("step {step} of {steps}"));
            let _ = context.peer.notify_progress(progress).await;
        }
    }
    Ok(CallToolResult::success(vec![ContentBlock::text(format!("counted to {steps}"))]))
}

/// The primes up to `limit`, for `list_primes`.
fn primes(limit: u64) -> Vec<u64> {
    (2..=limit).filter(|n| (2..).take_while(|d| d * d <= *n).all(|d| n % d != 0)).collect()
}
