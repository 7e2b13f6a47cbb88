//! The checks of an `InputRequiredResult` before the client gets a question
//! (behaviour spec, "Checks before the client gets a question"). One failed
//! check fails the original request; the client then gets no question.

use super::shape;
use crate::jsonrpc::{BridgeError, Cause, ClientRequest};
use crate::profile::Revision;
use crate::translate::revision::{carries_form, carries_sampling};
use jsonschema::Validator;
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// At most this many input requests in one round.
pub(crate) const MAX_INPUT_REQUESTS: usize = 16;

/// What an input request asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ask {
    /// A form elicitation: its params without `task`.
    Form(Map<String, Value>),
    /// A URL elicitation: its params and its URL.
    Url(Map<String, Value>, String),
    /// A sampling request: its params without `task`.
    Sampling(Map<String, Value>),
    /// A roots request.
    Roots(Map<String, Value>),
}

impl Ask {
    /// The request of the bridge to the client that carries it.
    pub(crate) fn method(&self) -> ClientRequest {
        match self {
            Ask::Form(_) | Ask::Url(..) => ClientRequest::ElicitationCreate,
            Ask::Sampling(_) => ClientRequest::SamplingCreateMessage,
            Ask::Roots(_) => ClientRequest::RootsList,
        }
    }
}

/// One checked input request, with the key the server gave it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputRequest {
    pub key: String,
    pub ask: Ask,
}

/// One checked round: the input requests in the order of the server, and
/// its `requestState`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Round {
    pub requests: Vec<InputRequest>,
    pub request_state: Option<String>,
}

/// What the client declared, as the upstream server saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared {
    pub form: bool,
    pub url: bool,
    pub sampling: bool,
    pub sampling_tools: bool,
    pub roots: bool,
    /// The client's revision: a question it cannot carry is undeclared.
    pub revision: Revision,
}

impl Declared {
    /// From the translated `clientCapabilities`, which hold only what the
    /// client's `revision` can declare (`translate::revision`). An empty
    /// `elicitation` object declares the form mode, in every revision.
    pub(crate) fn from_capabilities(capabilities: &Value, revision: Revision) -> Declared {
        let elicitation = capabilities.get("elicitation").and_then(Value::as_object);
        let sampling = capabilities.get("sampling").and_then(Value::as_object);
        Declared {
            form: elicitation.is_some_and(|e| e.is_empty() || e.contains_key("form")),
            url: elicitation.is_some_and(|e| e.contains_key("url")),
            sampling: sampling.is_some(),
            sampling_tools: sampling.is_some_and(|s| s.contains_key("tools")),
            roots: capabilities.get("roots").is_some_and(Value::is_object),
            revision,
        }
    }
}

fn round_error(cause: Cause, detail: impl Into<String>) -> BridgeError {
    BridgeError::new(cause).with_detail(detail)
}

fn request_error(cause: Cause, key: &str, text: &str) -> BridgeError {
    BridgeError::new(cause).with_detail(format!("input request '{key}': {text}"))
}

/// The first check of the whole round: "The result is an object." Every
/// result of a forwarded request takes it, complete or not: a result that
/// is not an object is neither a complete result nor an input request, and
/// never reaches the client.
pub(crate) fn check_object(result: &Value) -> Result<&Map<String, Value>, BridgeError> {
    result.as_object().ok_or_else(|| round_error(Cause::InvalidInputRequest, "the result is not an object"))
}

/// Checks a whole round; `compiles` tells whether a form schema compiles.
pub(crate) fn check_round(
    result: &Value,
    declared: Declared,
    compiles: impl Fn(&Value) -> bool,
) -> Result<Round, BridgeError> {
    let result = check_object(result)?;
    let requests = match result.get("inputRequests") {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err(round_error(Cause::InvalidInputRequest, "the inputRequests member is not an object")),
    };
    let request_state = match result.get("requestState") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(round_error(Cause::InvalidInputRequest, "the requestState member is not a string")),
    };
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(round_error(
            Cause::TooManyInputRequests,
            format!("{} input requests in one round, limit: {MAX_INPUT_REQUESTS}", requests.len()),
        ));
    }
    let requests = requests
        .iter()
        .map(|(key, request)| {
            Ok(InputRequest { key: key.clone(), ask: check_request(key, request, declared, &compiles)? })
        })
        .collect::<Result<Vec<_>, BridgeError>>()?;
    Ok(Round { requests, request_state })
}

const NOT_THE_SHAPE: &str = "the input request does not have the shape of the schema";

/// The definitions of the 2026-07-28 `InputRequest` (`super::shape`).
const SCHEMAS: &str = include_str!("requests.schema.json");

/// The validator of an input request; compiled once.
static SHAPE: LazyLock<Option<Validator>> = LazyLock::new(|| shape::validator(SCHEMAS, "InputRequest"));

/// "The input request has the shape of the schema": the 2026-07-28
/// `InputRequest` as its schema has it, every member it types. A form
/// takes only primitive properties (strings, numbers, booleans, enums),
/// a sampling message only text, image, audio, `tool_use` and
/// `tool_result` blocks; the checks below read only what this passed.
fn has_shape(request: &Value) -> bool {
    SHAPE.as_ref().is_some_and(|validator| validator.is_valid(request))
}

fn check_request(
    key: &str,
    request: &Value,
    declared: Declared,
    compiles: &impl Fn(&Value) -> bool,
) -> Result<Ask, BridgeError> {
    let shape = || request_error(Cause::InvalidInputRequest, key, NOT_THE_SHAPE);
    if !has_shape(request) {
        return Err(shape());
    }
    // The one place where the method of an input request is read.
    let method = request.get("method").and_then(Value::as_str).and_then(ClientRequest::parse).ok_or_else(shape)?;
    let mut params = match request.get("params") {
        Some(Value::Object(p)) => p.clone(),
        None if method == ClientRequest::RootsList => Map::new(),
        _ => return Err(shape()),
    };
    params.shift_remove("task");
    match method {
        ClientRequest::ElicitationCreate => match params.get("mode").map(Value::as_str) {
            None | Some(Some("form")) => {
                if !declared.form {
                    return Err(request_error(
                        Cause::UndeclaredInputRequest,
                        key,
                        "the client did not declare elicitation.form",
                    ));
                }
                let schema = params.get("requestedSchema").cloned().unwrap_or(Value::Null);
                if !compiles(&schema) {
                    return Err(request_error(Cause::InvalidInputRequest, key, "the requestedSchema does not compile"));
                }
                carries_form(&schema, declared.revision)
                    .map_err(|why| request_error(Cause::UndeclaredInputRequest, key, &why))?;
                Ok(Ask::Form(params))
            }
            Some(Some("url")) => {
                let url = params.get("url").and_then(Value::as_str).map(str::to_owned).ok_or_else(shape)?;
                if !declared.url {
                    return Err(request_error(
                        Cause::UndeclaredInputRequest,
                        key,
                        "the client did not declare elicitation.url",
                    ));
                }
                Ok(Ask::Url(params, url))
            }
            _ => Err(shape()),
        },
        ClientRequest::SamplingCreateMessage => {
            let messages = params.get("messages").and_then(Value::as_array).ok_or_else(shape)?;
            if !declared.sampling {
                return Err(request_error(Cause::UndeclaredInputRequest, key, "the client did not declare sampling"));
            }
            if uses_tools(&params, messages) && !declared.sampling_tools {
                return Err(request_error(
                    Cause::UndeclaredInputRequest,
                    key,
                    "sampling with tools needs sampling.tools, and the client did not declare it",
                ));
            }
            if !obeys_tool_result_rules(messages) {
                return Err(request_error(
                    Cause::InvalidInputRequest,
                    key,
                    "the sampling messages do not obey the tool result rules",
                ));
            }
            carries_sampling(&params, declared.revision)
                .map_err(|why| request_error(Cause::UndeclaredInputRequest, key, &why))?;
            Ok(Ask::Sampling(params))
        }
        ClientRequest::RootsList => {
            if !declared.roots {
                return Err(request_error(Cause::UndeclaredInputRequest, key, "the client did not declare roots"));
            }
            Ok(Ask::Roots(params))
        }
    }
}

/// The blocks of a message, whether `content` is one block or an array.
fn blocks(message: &Value) -> Vec<&Value> {
    match message.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    }
}

fn block_type(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

fn uses_tools(params: &Map<String, Value>, messages: &[Value]) -> bool {
    params.contains_key("tools")
        || params.contains_key("toolChoice")
        || messages.iter().flat_map(blocks).any(|b| matches!(block_type(b), "tool_use" | "tool_result"))
}

/// The tool result rules of the 2026-07-28 sampling page: a user message
/// with a tool result holds only tool results; each assistant message with
/// tool uses is followed at once by a user message of only tool results
/// that answers each tool use by its id.
pub(crate) fn obeys_tool_result_rules(messages: &[Value]) -> bool {
    for (index, message) in messages.iter().enumerate() {
        let kinds: Vec<&str> = blocks(message).into_iter().map(block_type).collect();
        let has_results = kinds.contains(&"tool_result");
        if has_results
            && (message.get("role").and_then(Value::as_str) != Some("user")
                || kinds.iter().any(|k| *k != "tool_result"))
        {
            return false;
        }
        let uses: Vec<&str> = blocks(message)
            .into_iter()
            .filter(|b| block_type(b) == "tool_use")
            .filter_map(|b| b.get("id").and_then(Value::as_str))
            .collect();
        if kinds.contains(&"tool_use") {
            let Some(next) = messages.get(index + 1) else { return false };
            let next_blocks = blocks(next);
            let answered: Vec<&str> =
                next_blocks.iter().filter_map(|b| b.get("toolUseId").and_then(Value::as_str)).collect();
            let only_results = !next_blocks.is_empty() && next_blocks.iter().all(|b| block_type(b) == "tool_result");
            if next.get("role").and_then(Value::as_str) != Some("user")
                || !only_results
                || !uses.iter().all(|u| answered.contains(u))
            {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shape_compiles() {
        assert!(SHAPE.is_some());
    }

    /// The definitions of the file are the spec's, without descriptions.
    #[test]
    fn the_schemas_are_the_definitions_of_the_spec() {
        shape::spec::holds_the_specs_definitions("2026-07-28", "requests.schema.json", SCHEMAS, &["InputRequest"]);
    }

    /// "The input request has the shape of the schema": the schema's real
    /// shape, not only `type: object` and a `type` on each block.
    #[test]
    fn an_input_request_is_held_to_the_2026_07_28_schema() {
        let form = |property: Value| {
            json!({"method": "elicitation/create", "params": {"message": "m",
                "requestedSchema": {"type": "object", "properties": {"p": property}}}})
        };
        let sampling = |block: Value| {
            json!({"method": "sampling/createMessage", "params": {"maxTokens": 5,
                "messages": [{"role": "user", "content": block}]}})
        };
        let text = json!({"type": "text", "text": "hi"});
        for (request, valid) in [
            (form(json!({"type": "string", "title": "P", "minLength": 1})), true),
            (form(json!({"type": "integer", "minimum": 0})), true),
            (form(json!({"type": "boolean", "default": true})), true),
            (form(json!({"type": "string", "enum": ["a", "b"]})), true),
            (form(json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]})), true),
            (form(json!({"type": "array", "items": {"type": "string", "enum": ["a"]}})), true),
            (form(json!({"type": "object", "properties": {"q": {"type": "string"}}})), false),
            (form(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})), false),
            (form(json!({"type": "array", "items": {"type": "object"}})), false),
            (form(json!({"type": "null"})), false),
            (form(json!({"type": "string", "format": "hostname"})), false),
            (sampling(text.clone()), true),
            (sampling(json!([text.clone(), {"type": "image", "data": "AA", "mimeType": "image/png"}])), true),
            (sampling(json!({"type": "resource_link", "uri": "file:///etc/passwd", "name": "passwd"})), false),
            (sampling(json!({"type": "resource", "resource": {"uri": "file:///etc/passwd", "text": "x"}})), false),
            (
                sampling(json!([text.clone(), {"type": "resource_link", "uri": "file:///etc/passwd", "name": "p"}])),
                false,
            ),
            (sampling(json!({"type": "text"})), false),
            (json!({"method": "sampling/createMessage", "params": {"messages": []}}), false),
            (json!({"method": "roots/list"}), true),
            (json!({"method": "roots/list", "params": 5}), false),
            (
                json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://a"}}),
                true,
            ),
            (json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m"}}), false),
            (json!({"method": "tools/list", "params": {}}), false),
        ] {
            assert_eq!(has_shape(&request), valid, "{request}");
        }
    }
}
