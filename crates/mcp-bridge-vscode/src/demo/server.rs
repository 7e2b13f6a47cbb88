//! The demo server as rmcp serves it: its information, and the prompt, the
//! resources and the completions beside the tools (`tools`).

use super::tools::{self, State};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CompletionInfo,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference, Resource,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::sync::Arc;

/// The names the prompt `greet` completes.
const NAMES: [&str; 4] = ["Ada", "Alan", "Grace", "Linus"];
/// The items of the template `demo://items/{id}`: id and text.
const ITEMS: [(&str, &str); 3] = [("1", "The first item."), ("2", "The second item."), ("3", "The third item.")];
pub(super) const README_URI: &str = "demo://readme";
pub(super) const ITEM_TEMPLATE: &str = "demo://items/{id}";
const ITEM_PREFIX: &str = "demo://items/";
pub(super) const README: &str = "mcp-bridge demo server\n\n\
    A server of MCP revision 2026-07-28 that ships inside mcp-bridge-vscode. \
    `mcp-bridge-vscode check` runs it behind the bridge to show what VS Code \
    (MCP 2025-11-25) sees of such a server, and which repairs the bridge makes.\n";
#[derive(Clone)]
pub(super) struct Demo {
    state: Arc<State>,
}

impl Demo {
    pub(super) fn new(state: Arc<State>) -> Demo {
        Demo { state }
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
        Ok(ListToolsResult::with_all_items(tools::list(&self.state)))
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    /// Keeps the stream's sink until the client cancels the stream.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        tools::listen(&self.state, context.sink().clone(), context.cancelled()).await;
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        match tools::call(&self.state, &request, context).await {
            Some(response) => Ok(response),
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
