//! A client of one revision over the driver, for the sessions of
//! `revisions::demo`, `revisions::content` and `revisions::questions`: it checks every line it sends
//! against its revision's schema (the test's own requests and answers are
//! what that revision allows) and every line it gets with `check_line`, and
//! answers each question it gets.

use super::check_line;
use crate::support::driver::Driver;
use crate::support::schemas;
use serde_json::{json, Value};
use std::collections::HashMap;

/// What each revision's `ClientCapabilities` allow a client to declare:
/// roots and sampling in all four, elicitation from 2025-06-18, its form
/// and URL modes from 2025-11-25.
pub(super) fn capabilities(revision: &str) -> Value {
    match revision {
        "2024-11-05" | "2025-03-26" => json!({"roots": {"listChanged": true}, "sampling": {}}),
        "2025-06-18" => json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {}}),
        _ => json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}),
    }
}

/// A client that negotiated `revision`.
pub(super) struct Client {
    pub driver: Driver,
    pub revision: &'static str,
    /// The method of each request of the client, by the JSON of its id.
    asked: HashMap<String, String>,
    /// Every message the client got, in order.
    pub got: Vec<Value>,
}

impl Client {
    /// Initializes with [`capabilities`] and sends
    /// `notifications/initialized`; the initialize response, which must
    /// come first, and be of `revision`.
    #[track_caller]
    pub fn start(driver: Driver, revision: &'static str) -> (Client, Value) {
        let mut client = Client { driver, revision, asked: HashMap::new(), got: Vec::new() };
        let params = json!({"protocolVersion": revision, "capabilities": capabilities(revision),
            "clientInfo": {"name": "old", "version": "1"}});
        client.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}));
        let init = client.next();
        assert_eq!(init["id"], 0, "{revision}: {init}");
        assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (client, init)
    }

    /// Sends a line of the client, checked first against its revision.
    #[track_caller]
    fn send(&mut self, message: Value) {
        sent(self.revision, &message);
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            if message.get("id").is_some() {
                self.asked.insert(message["id"].to_string(), method.to_owned());
            }
        }
        self.driver.send(&message);
    }

    /// The next line the client gets (at most the driver's step), checked
    /// against its revision.
    #[track_caller]
    pub fn next(&mut self) -> Value {
        let message = self.driver.recv();
        let call = self.asked.get(&message["id"].to_string()).is_some_and(|m| m == "tools/call");
        check_line(self.revision, &spec_over_schema(self.revision, call, &message), &self.asked);
        self.got.push(message.clone());
        message
    }

    /// Sends a request and reads until its response, which it returns;
    /// each question on the way gets the result `answer` gives for it.
    #[track_caller]
    pub fn request(&mut self, id: i64, method: &str, params: Value, answer: &mut dyn FnMut(&Value) -> Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            match message.get("method").and_then(Value::as_str) {
                Some(asked) if message.get("id").is_some() => {
                    let result = answer(&message);
                    self.answer(asked, &message["id"], result);
                }
                Some(_) => {}
                None if message["id"] == id => return message,
                None => panic!("{}: a response to another request: {message}", self.revision),
            }
        }
    }

    /// A request whose way has no question.
    #[track_caller]
    pub fn ask(&mut self, id: i64, method: &str, params: Value) -> Value {
        let revision = self.revision;
        self.request(id, method, params, &mut |q| panic!("{revision}: an unexpected question {q}"))
    }

    /// A call of `tool`.
    #[track_caller]
    pub fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        self.ask(id, "tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// The client's result for a question of `method`, checked against the
    /// result definition of its revision.
    #[track_caller]
    fn answer(&mut self, method: &str, id: &Value, result: Value) {
        let definition = match method {
            "elicitation/create" => "ElicitResult",
            "sampling/createMessage" => "CreateMessageResult",
            "roots/list" => "ListRootsResult",
            other => panic!("a question of {other}"),
        };
        if let Err(why) = schemas::check(self.revision, definition, &result) {
            panic!("the test's answer: {why}");
        }
        self.driver.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// The messages the client got since the `from`-th, the methods of the
    /// notifications and the ids of the rest, in order.
    pub fn order(&self, from: usize) -> Vec<Value> {
        self.got[from..].iter().map(|m| m.get("method").cloned().unwrap_or_else(|| m["id"].clone())).collect()
    }
}

/// The one member where the behaviour spec, not the schema, decides what
/// a 2025-11-25 client gets: the result rule "structuredContent" keeps it
/// "without a change, whatever its JSON type" (the VS Code profile does
/// not enable "Strict results"), where the schema of 2025-11-25 types it
/// as an object. Such a line of a call is checked without that member;
/// the tests assert its exact value.
fn spec_over_schema(revision: &str, call: bool, message: &Value) -> Value {
    let mut message = message.clone();
    if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
        if revision == "2025-11-25" && call && result.get("structuredContent").is_some_and(|s| !s.is_object()) {
            result.shift_remove("structuredContent");
        }
    }
    message
}

/// A request or a notification of the client, checked against its
/// revision's definition (without the envelope members that the older
/// schemas leave to JSON-RPC).
#[track_caller]
fn sent(revision: &str, message: &Value) {
    let method = message["method"].as_str().unwrap_or_default();
    let definition = match method {
        "initialize" => "InitializeRequest",
        "notifications/initialized" => "InitializedNotification",
        "tools/list" => "ListToolsRequest",
        "tools/call" => "CallToolRequest",
        "prompts/list" => "ListPromptsRequest",
        "prompts/get" => "GetPromptRequest",
        "resources/list" => "ListResourcesRequest",
        "resources/templates/list" => "ListResourceTemplatesRequest",
        "resources/read" => "ReadResourceRequest",
        "completion/complete" => "CompleteRequest",
        "logging/setLevel" => "SetLevelRequest",
        other => panic!("the client sends {other}"),
    };
    let mut whole = message.clone();
    if revision != "2025-11-25" {
        whole.as_object_mut().map(|o| (o.shift_remove("jsonrpc"), o.shift_remove("id")));
    }
    if let Err(why) = schemas::check(revision, definition, &whole) {
        panic!("the test's request: {why}");
    }
}
