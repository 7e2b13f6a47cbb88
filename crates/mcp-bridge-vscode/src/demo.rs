//! The demo server: a small MCP server of revision 2026-07-28, written with
//! the official Rust SDK `rmcp`, that `check` runs when no upstream is
//! given (`mcp-bridge-vscode demo-server`).
//!
//! It is deliberately imperfect for VS Code, so that `check` has repairs to
//! show:
//!
//! - `tag_items` has array schemas without `items` (at the root of a
//!   property and inside `anyOf`) and one with `items: false` after
//!   `prefixItems` (in `$defs`): the items rule, R6;
//! - `list_primes` has an `outputSchema` whose root is an array, and its
//!   `structuredContent` is an array: the bridge removes the schema;
//! - `add` and `list_primes` answer with `structuredContent` and an empty
//!   `content`: the bridge adds the text mirror;
//! - every result has the members of 2026-07-28 (`resultType`, and `ttlMs`
//!   with `cacheScope` on lists and reads), which the bridge removes;
//! - `slow_count` sends progress and can be cancelled;
//! - `ask_name` asks the user's name with a form input request (on the
//!   legacy path the bridge turns it into `elicitation/create`);
//! - `add_tool` adds the tool `extra` and announces the change on the
//!   listen streams (on the legacy path VS Code gets
//!   `notifications/tools/list_changed`).
//!
//! `rmcp` speaks 2026-07-28 on stdio as it is: it answers `server/discover`
//! from [`ServerHandler::get_info`], checks the `_meta` of each request,
//! and adds `resultType` and the caching hints itself. The demo serves
//! through the embedded bridge (`mcp_bridge::embed`), so the same binary
//! is a 2025-11-25 server for VS Code (with the bridge's repairs) and a
//! 2026-07-28 server for a modern client.

use mcp_bridge::embed::Discover;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation, JsonObject,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::model::{InputRequest, InputRequests, InputRequiredResult, SubscriptionFilter};
use rmcp::service::RequestContext;
use rmcp::service::{SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// The names the prompt `greet` completes.
const NAMES: [&str; 4] = ["Ada", "Alan", "Grace", "Linus"];
/// The items of the template `demo://items/{id}`: id and text.
const ITEMS: [(&str, &str); 3] = [("1", "The first item."), ("2", "The second item."), ("3", "The third item.")];
const README_URI: &str = "demo://readme";
const ITEM_TEMPLATE: &str = "demo://items/{id}";
const ITEM_PREFIX: &str = "demo://items/";
const README: &str = "mcp-bridge demo server\n\n\
    A server of MCP revision 2026-07-28 that ships inside mcp-bridge-vscode. \
    `mcp-bridge-vscode check` runs it behind the bridge to show what VS Code \
    (MCP 2025-11-25) sees of such a server, and which repairs the bridge makes.\n";
/// The largest `limit` of `list_primes`.
const MAX_PRIME_LIMIT: u64 = 100_000;
/// The bounds of `slow_count`.
const MAX_STEPS: u64 = 1000;
const MAX_DELAY_MS: u64 = 60_000;

/// Serves one client on stdin and stdout until the input ends, with a
/// discover rule (the hidden `--refuse-discover` of `demo-server` shows
/// `Discover::Refuse`).
pub async fn serve_stdio(discover: Discover) -> std::io::Result<()> {
    let (read, write) = rmcp::transport::stdio_pipes();
    serve_with(read, write, discover).await
}

async fn serve_with<R, W>(read: R, write: W, discover: Discover) -> std::io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let mut options = mcp_bridge::embed::Options::new(mcp_bridge::Profile::vscode(), "mcp-bridge-demo");
    options.discover = discover;
    // One state for the process: the server of each path (and each link of
    // the legacy path) sees the same tool list and the same listen streams.
    let state = Arc::new(State::default());
    mcp_bridge::embed::serve(move |_path| Demo { state: state.clone() }, options, read, write).await
}

#[derive(Clone)]
struct Demo {
    state: Arc<State>,
}

/// What the tools change, and the listen streams that must hear of it.
#[derive(Default)]
struct State {
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

/// A number argument; the error is for the model to read.
fn number(args: Option<&JsonObject>, name: &str) -> Result<f64, String> {
    match args.and_then(|a| a.get(name)) {
        Some(value) => value.as_f64().ok_or_else(|| format!("`{name}` must be a number")),
        None => Err(format!("`{name}` is required")),
    }
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

/// An integer argument within `0..=max`, or `default` when it is absent.
fn integer(args: Option<&JsonObject>, name: &str, default: Option<u64>, max: u64) -> Result<u64, String> {
    let value = match (args.and_then(|a| a.get(name)), default) {
        (Some(value), _) => value.as_u64(),
        (None, Some(default)) => Some(default),
        (None, None) => return Err(format!("`{name}` is required")),
    };
    value.filter(|v| *v <= max).ok_or_else(|| format!("`{name}` must be an integer from 0 to {max}"))
}

fn primes(limit: u64) -> Vec<u64> {
    (2..=limit).filter(|n| (2..).take_while(|d| d * d <= *n).all(|d| n % d != 0)).collect()
}

impl Demo {
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

    /// `add_tool`: the change is announced on the task that makes it,
    /// before the result, so a client hears of it first.
    async fn add_tool(&self) -> CallToolResult {
        self.state.extra.store(true, Ordering::Release);
        let sinks: Vec<SubscriptionSink> = self.state.sinks.lock().map(|s| s.clone()).unwrap_or_default();
        for sink in sinks {
            let _ = sink.notify_tool_list_changed().await;
        }
        CallToolResult::success(vec![ContentBlock::text("added the tool extra")])
    }

    async fn slow_count(
        &self,
        args: Option<&JsonObject>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
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

    async fn call(
        &self,
        request: &CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Option<CallToolResult> {
        let args = request.arguments.as_ref();
        let result = match request.name.as_ref() {
            "add" => number(args, "a")
                .and_then(|a| Ok(a + number(args, "b")?))
                .map(|sum| structured(json!({"sum": plain(sum)}))),
            "tag_items" => {
                let tags = args.and_then(|a| a.get("tags")).cloned().unwrap_or(json!([]));
                Ok(CallToolResult::success(vec![ContentBlock::text(format!("tagged with {tags}"))]))
            }
            "list_primes" => {
                integer(args, "limit", None, MAX_PRIME_LIMIT).map(|limit| structured(json!(primes(limit))))
            }
            "slow_count" => self.slow_count(args, context).await,
            "add_tool" => Ok(self.add_tool().await),
            "extra" if self.state.extra.load(Ordering::Acquire) => {
                Ok(CallToolResult::success(vec![ContentBlock::text("the extra tool ran")]))
            }
            _ => return None,
        };
        Some(result.unwrap_or_else(tool_error))
    }
}

impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info =
            Implementation::new("mcp-bridge-demo", env!("CARGO_PKG_VERSION")).with_title("mcp-bridge demo server");
        info.instructions = Some(
            "A demo server of revision 2026-07-28 that ships with mcp-bridge. \
             Try `add`, `list_primes`, `slow_count`, `ask_name` and `add_tool`; `tag_items` shows the schema repairs."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut tools = tools();
        if self.state.extra.load(Ordering::Acquire) {
            tools.push(extra_tool());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    /// Keeps the stream's sink until the client cancels the stream.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        if let Ok(mut sinks) = self.state.sinks.lock() {
            sinks.push(sink);
        }
        context.cancelled().await;
        if let Ok(mut sinks) = self.state.sinks.lock() {
            sinks.retain(|s| s.id() != &id);
        }
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name == "ask_name" {
            return Ok(Demo::ask_name(&request));
        }
        match self.call(&request, context).await {
            Some(result) => Ok(result.into()),
            None => Err(McpError::invalid_params(format!("no tool named {}", request.name), None)),
        }
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let argument = PromptArgument::new("name").with_description("Who to greet (completes)").with_required(true);
        let greet = Prompt::new("greet", Some("Greet someone by name"), Some(vec![argument])).with_title("Greet");
        Ok(ListPromptsResult::with_all_items(vec![greet]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "greet" {
            return Err(McpError::invalid_params(format!("no prompt named {}", request.name), None));
        }
        let name = request.arguments.as_ref().and_then(|a| a.get("name")).and_then(Value::as_str);
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            return Err(McpError::invalid_params("the prompt greet needs the argument name", None));
        };
        let message = PromptMessage::new_text(Role::User, format!("Say hello to {name}, in one friendly sentence."));
        Ok(GetPromptResult::new(vec![message]).with_description(format!("Greet {name}")).into())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let readme = Resource::new(README_URI, "readme")
            .with_description("What this demo server is for")
            .with_mime_type("text/plain")
            .with_size(README.len() as u64);
        Ok(ListResourcesResult::with_all_items(vec![readme]))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let template = ResourceTemplate::new(ITEM_TEMPLATE, "item")
            .with_description("One item by its id (the id completes)")
            .with_mime_type("text/plain");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let text = if request.uri == README_URI {
            Some(README)
        } else {
            request
                .uri
                .strip_prefix(ITEM_PREFIX)
                .and_then(|id| ITEMS.iter().find(|(item, _)| *item == id))
                .map(|(_, text)| *text)
        };
        let Some(text) = text else {
            return Err(McpError::resource_not_found(
                format!("no resource {}", request.uri),
                Some(json!({"uri": request.uri})),
            ));
        };
        let contents = ResourceContents::text(text, request.uri).with_mime_type("text/plain");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let argument = &request.argument;
        let candidates: Vec<&str> = match &request.r#ref {
            Reference::Prompt(prompt) if prompt.name == "greet" && argument.name == "name" => NAMES.to_vec(),
            Reference::Resource(template) if template.uri == ITEM_TEMPLATE && argument.name == "id" => {
                ITEMS.iter().map(|(id, _)| *id).collect()
            }
            _ => Vec::new(),
        };
        let prefix = argument.value.to_lowercase();
        let values =
            candidates.into_iter().filter(|c| c.to_lowercase().starts_with(&prefix)).map(str::to_owned).collect();
        Ok(CompleteResult::new(CompletionInfo::with_all_values(values).unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

    /// A raw client of revision 2026-07-28 on an in-memory pipe.
    struct Wire {
        lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
        write: WriteHalf<DuplexStream>,
        server: tokio::task::JoinHandle<std::io::Result<()>>,
    }

    fn meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        })
    }

    impl Wire {
        fn start() -> Self {
            let (client, server) = tokio::io::duplex(1 << 16);
            let (server_read, server_write) = tokio::io::split(server);
            let server = tokio::spawn(serve_with(server_read, server_write, Discover::Answer));
            let (read, write) = tokio::io::split(client);
            Wire { lines: BufReader::new(read).lines(), write, server }
        }

        async fn send(&mut self, message: Value) {
            let mut line = message.to_string().into_bytes();
            line.push(b'\n');
            self.write.write_all(&line).await.expect("the server reads");
        }

        async fn recv(&mut self) -> Value {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("a line within 10 s")
                .expect("the server writes")
                .expect("the server's output is open");
            eprintln!("<- {line}");
            serde_json::from_str(&line).expect("a JSON line")
        }

        /// Sends a request with the inline `_meta` of 2026-07-28 and returns
        /// the whole answer.
        async fn request(&mut self, id: u64, method: &str, mut params: Value) -> Value {
            params["_meta"] = meta();
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
            self.recv().await
        }
    }

    #[tokio::test(start_paused = true)]
    async fn discover_answers_with_the_server_and_2026_07_28() {
        let mut wire = Wire::start();
        let discover = wire.request(1, "server/discover", json!({})).await;
        let result = &discover["result"];
        assert_eq!(result["resultType"], "complete", "{discover}");
        assert!(result["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")), "{discover}");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"],
            json!({"name": "mcp-bridge-demo", "title": "mcp-bridge demo server", "version": env!("CARGO_PKG_VERSION")})
        );
        assert_eq!(
            result["capabilities"],
            json!({"completions": {}, "prompts": {}, "resources": {}, "tools": {"listChanged": true}})
        );
        assert!(result["instructions"].as_str().unwrap().starts_with("A demo server of revision 2026-07-28"));
        // A request without the inline `_meta` is refused by rmcp.
        wire.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})).await;
        let refused = wire.recv().await;
        assert_eq!(refused["id"], 2);
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_tools_keep_the_schemas_that_the_bridge_repairs() {
        let mut wire = Wire::start();
        let list = wire.request(1, "tools/list", json!({})).await;
        let result = &list["result"];
        assert_eq!(
            (&result["resultType"], &result["ttlMs"], &result["cacheScope"]),
            (&json!("complete"), &json!(0), &json!("private"))
        );
        let tools = result["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["add", "tag_items", "list_primes", "slow_count", "ask_name", "add_tool"]);
        let tag = &tools[1]["inputSchema"];
        assert_eq!(tag["properties"]["tags"], json!({"type": "array", "description": "Tags, without an items schema"}));
        assert_eq!(tag["properties"]["labels"]["anyOf"][0], json!({"type": "array"}));
        assert_eq!(tag["$defs"]["pair"]["items"], false);
        assert_eq!(tag["$defs"]["pair"]["prefixItems"].as_array().map(Vec::len), Some(2));
        assert_eq!(tools[0]["outputSchema"]["type"], "object");
        assert_eq!(tools[2]["outputSchema"], json!({"type": "array", "items": {"type": "integer"}}));
    }

    #[tokio::test(start_paused = true)]
    async fn the_structured_results_have_no_text_and_the_primes_are_an_array() {
        let mut wire = Wire::start();
        let add = wire.request(1, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3.5}})).await;
        assert_eq!(
            add["result"],
            json!({"resultType": "complete", "content": [], "structuredContent": {"sum": 5.5}, "isError": false})
        );
        let sums = [(json!(2), json!(3), "5"), (json!(2.5), json!(2.5), "5"), (json!(-2), json!(0.25), "-1.75")];
        for (id, (a, b, sum)) in (11..).zip(sums) {
            let add = wire.request(id, "tools/call", json!({"name": "add", "arguments": {"a": a, "b": b}})).await;
            let text = add["result"]["structuredContent"]["sum"].to_string();
            assert_eq!(text, sum, "a whole sum is written without .0: {a} + {b}");
        }
        let primes = wire.request(2, "tools/call", json!({"name": "list_primes", "arguments": {"limit": 12}})).await;
        assert_eq!(primes["result"]["structuredContent"], json!([2, 3, 5, 7, 11]));
        assert_eq!(primes["result"]["content"], json!([]));
        let bad = wire.request(3, "tools/call", json!({"name": "add", "arguments": {"a": 2}})).await;
        assert_eq!(bad["result"]["isError"], true, "{bad}");
        assert_eq!(bad["result"]["content"], json!([{"type": "text", "text": "`b` is required"}]));
        let tagged = wire.request(4, "tools/call", json!({"name": "tag_items", "arguments": {"tags": ["x"]}})).await;
        assert_eq!(tagged["result"]["content"], json!([{"type": "text", "text": "tagged with [\"x\"]"}]));
        let unknown = wire.request(5, "tools/call", json!({"name": "nope", "arguments": {}})).await;
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    }

    #[tokio::test(start_paused = true)]
    async fn slow_count_reports_each_step_with_the_progress_token() {
        let mut wire = Wire::start();
        let mut params = json!({"name": "slow_count", "arguments": {"steps": 3, "delay_ms": 10}});
        params["_meta"] = meta();
        params["_meta"]["progressToken"] = json!("p");
        wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})).await;
        for step in 1..=3 {
            let progress = wire.recv().await;
            assert_eq!(progress["method"], "notifications/progress", "{progress}");
            assert_eq!(
                progress["params"],
                json!({"progressToken": "p", "progress": f64::from(step), "total": 3.0, "message": format!("step {step} of 3")})
            );
        }
        let done = wire.recv().await;
        assert_eq!(done["id"], 1);
        assert_eq!(done["result"]["content"], json!([{"type": "text", "text": "counted to 3"}]));
        // Without a token, no progress: the answer comes first.
        let quiet = wire
            .request(2, "tools/call", json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 0}}))
            .await;
        assert_eq!(quiet["result"]["content"], json!([{"type": "text", "text": "counted to 2"}]));
    }

    #[tokio::test(start_paused = true)]
    async fn slow_count_stops_when_cancelled_and_gets_no_answer() {
        let start = tokio::time::Instant::now();
        let mut wire = Wire::start();
        let mut params = json!({"name": "slow_count", "arguments": {"steps": 3, "delay_ms": 60_000}});
        params["_meta"] = meta();
        params["_meta"]["progressToken"] = json!(7);
        wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})).await;
        wire.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}}))
            .await;
        let list = wire.request(2, "tools/list", json!({})).await;
        assert_eq!(list["id"], 2, "the cancelled call gets no answer and no progress: {list}");
        // The end of the input ends the server; rmcp would wait up to 5 s
        // for a handler still running.
        let Wire { mut lines, mut write, server } = wire;
        write.shutdown().await.expect("the input ends");
        let rest = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await.expect("the output ends");
        assert_eq!(rest.expect("the server writes"), None, "nothing more after the end of the input");
        server.await.expect("the server task").expect("the server ends well");
        assert!(start.elapsed() < Duration::from_secs(5), "the cancelled call stopped at once");
    }

    #[tokio::test(start_paused = true)]
    async fn the_prompt_the_resources_and_their_completions() {
        let mut wire = Wire::start();
        let prompts = wire.request(1, "prompts/list", json!({})).await;
        assert_eq!(prompts["result"]["prompts"][0]["name"], "greet");
        assert_eq!(prompts["result"]["prompts"][0]["arguments"][0]["name"], "name");
        let greet = wire.request(2, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
        assert_eq!(
            greet["result"]["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "Say hello to Ada, in one friendly sentence."}}])
        );
        let no_name = wire.request(3, "prompts/get", json!({"name": "greet"})).await;
        assert_eq!(no_name["error"]["code"], -32602, "{no_name}");
        let names = wire
            .request(
                4,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}}),
            )
            .await;
        assert_eq!(names["result"]["completion"]["values"], json!(["Ada", "Alan"]));
        let ids = wire
            .request(
                5,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": ITEM_TEMPLATE}, "argument": {"name": "id", "value": ""}}),
            )
            .await;
        assert_eq!(ids["result"]["completion"]["values"], json!(["1", "2", "3"]));
        let resources = wire.request(6, "resources/list", json!({})).await;
        assert_eq!(resources["result"]["resources"][0]["uri"], README_URI);
        let templates = wire.request(7, "resources/templates/list", json!({})).await;
        assert_eq!(templates["result"]["resourceTemplates"][0]["uriTemplate"], ITEM_TEMPLATE);
        let readme = wire.request(8, "resources/read", json!({"uri": README_URI})).await;
        assert_eq!(readme["result"]["contents"][0]["text"], README);
        let item = wire.request(9, "resources/read", json!({"uri": "demo://items/2"})).await;
        assert_eq!(
            item["result"]["contents"],
            json!([{"uri": "demo://items/2", "mimeType": "text/plain", "text": "The second item."}])
        );
        let missing = wire.request(10, "resources/read", json!({"uri": "demo://items/9"})).await;
        assert_eq!(missing["error"]["code"], -32602, "{missing}");
    }

    #[tokio::test(start_paused = true)]
    async fn an_input_that_ends_at_once_ends_the_server_well() {
        let Wire { lines, write, server } = Wire::start();
        drop((lines, write));
        server.await.expect("the server task").expect("no error");
    }
}
