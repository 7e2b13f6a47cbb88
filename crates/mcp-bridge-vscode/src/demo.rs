//! The demo server: a small MCP server of revision 2026-07-28, written with
//! the official Rust SDK `rmcp`, that `check` runs when no upstream is
//! given. Its tools are chosen to show the bridge's repairs: an array
//! without `items` (R6), `items: false` with `prefixItems`, an outputSchema
//! whose root is an array, structured results, and a slow tool with
//! progress.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation, JsonObject,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The names the prompt completes.
const NAMES: [&str; 4] = ["Ada", "Alan", "Grace", "Linus"];

/// Serves one client on stdin/stdout until the input ends.
pub async fn serve_stdio() -> std::io::Result<()> {
    let service = Demo.serve(rmcp::transport::stdio()).await.map_err(std::io::Error::other)?;
    service.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

#[derive(Clone, Copy)]
struct Demo;

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "add",
            "Add two numbers; the result is structured.",
            schema(json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})),
        )
        .with_title("Add")
        .with_raw_output_schema(schema(json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}))),
        Tool::new(
            "tag_items",
            "Tag items. Its schema has arrays that the Copilot extension refuses.",
            schema(json!({
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "description": "Tags, without an items schema"},
                    "pair": {"$ref": "#/$defs/pair"}
                },
                "$defs": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}}
            })),
        )
        .with_title("Tag items"),
        Tool::new(
            "list_primes",
            "The primes up to a limit, as an array.",
            schema(json!({"type": "object", "properties": {"limit": {"type": "integer", "minimum": 2}}, "required": ["limit"]})),
        )
        .with_raw_output_schema(schema(json!({"type": "array", "items": {"type": "integer"}}))),
        Tool::new(
            "slow_count",
            "Count slowly and report progress; it can be canceled.",
            schema(json!({"type": "object", "properties": {"steps": {"type": "integer"}, "delay_ms": {"type": "integer"}}})),
        ),
    ]
}

fn number(args: Option<&JsonObject>, name: &str, default: f64) -> f64 {
    args.and_then(|a| a.get(name)).and_then(Value::as_f64).unwrap_or(default)
}

fn primes(limit: u64) -> Vec<u64> {
    (2..=limit.min(100_000)).filter(|n| (2..).take_while(|d| d * d <= *n).all(|d| n % d != 0)).collect()
}

impl Demo {
    async fn slow_count(&self, args: Option<&JsonObject>, context: RequestContext<RoleServer>) -> CallToolResult {
        let steps = number(args, "steps", 5.0).clamp(1.0, 1000.0) as u32;
        let delay = Duration::from_millis(number(args, "delay_ms", 200.0).clamp(0.0, 60_000.0) as u64);
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                _ = context.ct.cancelled() => return CallToolResult::error(vec![ContentBlock::text("canceled")]),
                _ = tokio::time::sleep(delay) => {}
            }
            if let Some(token) = token.clone() {
                let progress = ProgressNotificationParam::new(token, f64::from(step))
                    .with_total(f64::from(steps))
                    .with_message(format!("step {step} of {steps}"));
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        CallToolResult::success(vec![ContentBlock::text(format!("counted to {steps}"))])
    }
}

impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info =
            Implementation::new("mcp-bridge-demo", env!("CARGO_PKG_VERSION")).with_title("mcp-bridge demo server");
        info.instructions = Some("A demo server of revision 2026-07-28 that ships with mcp-bridge.".into());
        info
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.as_ref();
        let result = match request.name.as_ref() {
            "add" => CallToolResult::structured(json!({"sum": number(args, "a", 0.0) + number(args, "b", 0.0)})),
            "tag_items" => {
                let tags = args.and_then(|a| a.get("tags")).cloned().unwrap_or(json!([]));
                CallToolResult::success(vec![ContentBlock::text(format!("tagged with {tags}"))])
            }
            "list_primes" => CallToolResult::structured(json!(primes(number(args, "limit", 10.0) as u64))),
            "slow_count" => self.slow_count(args, context).await,
            other => return Err(McpError::invalid_params(format!("no tool named {other}"), None)),
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let argument = PromptArgument::new("name").with_description("Who to greet").with_required(true);
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Greet someone by name"),
            Some(vec![argument]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("world")
            .to_owned();
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, format!("Hello, {name}!"))]).into())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let readme = Resource::new("demo://readme", "readme").with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![readme]))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let template = ResourceTemplate::new("demo://items/{id}", "item").with_mime_type("text/plain");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let text = match request.uri.as_str() {
            "demo://readme" => "This server shows what mcp-bridge repairs for VS Code.".to_owned(),
            uri => match uri.strip_prefix("demo://items/") {
                Some(id) => format!("Item {id}"),
                None => return Err(McpError::invalid_params(format!("no resource {uri}"), None)),
            },
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, request.uri)]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let value = request.argument.value.as_str();
        let values: Vec<String> = match &request.r#ref {
            Reference::Prompt(_) => NAMES.iter().filter(|n| n.starts_with(value)).map(|n| n.to_string()).collect(),
            _ => (1..=3).map(|i| i.to_string()).filter(|i| i.starts_with(value)).collect(),
        };
        Ok(CompleteResult::new(CompletionInfo::new(values).unwrap_or_default()))
    }
}
