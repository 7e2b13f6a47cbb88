//! The questions to the client, and the value of each answer for the
//! upstream server (behaviour spec, "The questions", "Answers of the
//! client", "The Continue form").

use super::checks::Ask;
use super::{answers, schema};
use crate::jsonrpc::{BridgeError, Cause, ClientRequest};
use serde_json::{json, Map, Value};

/// The message of the Continue form for a URL that the user accepted.
pub(crate) const CONTINUE_MESSAGE: &str = "Complete the step in the web browser. Then select Continue.";

/// The form with one required choice, for what VS Code cannot show.
pub(crate) fn continue_form(message: &str) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "continue": {"type": "string", "title": "Continue", "enum": ["Continue"], "default": "Continue"}
            },
            "required": ["continue"]
        }
    })
}

/// How an answer of the client becomes the value for the upstream server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expect {
    /// A form: the content must be valid against its schema.
    Form { schema: Value },
    /// The Continue form for a form without properties: accept gives
    /// `{"action":"accept","content":{}}`.
    EmptyForm,
    /// A URL elicitation, or the Continue form for an accepted URL: accept
    /// gives `{"action":"accept"}` without content.
    Url,
    /// A sampling request.
    Sampling,
    /// A roots request.
    Roots,
}

/// A question for the client: its method and params, and how to read the
/// answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Question {
    pub method: ClientRequest,
    pub params: Value,
    pub expect: Expect,
}

/// The question of a form, a sampling or a roots request. URL questions
/// are made by the rounds, which know the steps of the URLs.
pub(crate) fn question(ask: &Ask) -> Option<Question> {
    let method = ask.method();
    match ask {
        Ask::Form(params) => {
            let schema = params.get("requestedSchema").cloned().unwrap_or(Value::Null);
            let empty = schema.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty);
            if empty {
                let message = params.get("message").and_then(Value::as_str).unwrap_or("");
                return Some(Question { method, params: continue_form(message), expect: Expect::EmptyForm });
            }
            Some(Question { method, params: Value::Object(params.clone()), expect: Expect::Form { schema } })
        }
        Ask::Sampling(params) => {
            Some(Question { method, params: Value::Object(params.clone()), expect: Expect::Sampling })
        }
        Ask::Roots(params) => Some(Question { method, params: Value::Object(params.clone()), expect: Expect::Roots }),
        Ask::Url(..) => None,
    }
}

/// The answer of the client to one question.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    Result(Value),
    Error(Value),
    /// A line that is not valid.
    Invalid,
}

fn invalid_answer(key: &str, text: &str) -> BridgeError {
    BridgeError::new(Cause::InvalidClientAnswer).with_detail(format!("input request '{key}': {text}"))
}

/// The value for the upstream server, or the failure of the original
/// request. `Err(Ok(error))` is an error of the client that goes to the
/// original request unchanged; `Err(Err(_))` is a bridge error.
pub(crate) fn response(key: &str, expect: &Expect, answer: Answer) -> Result<Value, Result<Value, BridgeError>> {
    let not_valid = |text: &str| Err(Err(invalid_answer(key, text)));
    match (expect, answer) {
        (Expect::Form { .. } | Expect::EmptyForm | Expect::Url, Answer::Error(_) | Answer::Invalid) => {
            Ok(json!({"action": "cancel"}))
        }
        (Expect::Sampling | Expect::Roots, Answer::Error(error)) => Err(Ok(error)),
        (Expect::Sampling | Expect::Roots, Answer::Invalid) => not_valid("the answer is not valid JSON-RPC"),
        (expect, Answer::Result(result)) if !answers::has_shape(expect.kind(), &result) => {
            not_valid("the answer does not have the shape of the schema")
        }
        (expect, Answer::Result(result)) => Ok(match expect {
            Expect::Form { schema } => match action(&result) {
                "accept" => match result.get("content") {
                    Some(content) if schema::accepts(schema, content) => {
                        json!({"action": "accept", "content": content})
                    }
                    _ => return not_valid("the content is not valid against the requestedSchema"),
                },
                other => json!({"action": other}),
            },
            Expect::EmptyForm => match action(&result) {
                "accept" => json!({"action": "accept", "content": {}}),
                other => json!({"action": other}),
            },
            Expect::Url => json!({"action": action(&result)}),
            Expect::Sampling => result,
            Expect::Roots => roots(&result),
        }),
    }
}

impl Expect {
    /// The kind of result the answer must have the shape of.
    fn kind(&self) -> answers::Kind {
        match self {
            Expect::Form { .. } | Expect::EmptyForm | Expect::Url => answers::Kind::Elicitation,
            Expect::Sampling => answers::Kind::Sampling,
            Expect::Roots => answers::Kind::Roots,
        }
    }
}

/// The action of an elicitation result that has the shape of the schema:
/// accept, decline or cancel.
fn action(result: &Value) -> &str {
    result.get("action").and_then(Value::as_str).unwrap_or("cancel")
}

/// Only the roots with a URI that starts with `file://`, of a result that
/// has the shape of the schema.
fn roots(result: &Value) -> Value {
    let roots = result.get("roots").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let kept: Vec<&Value> = roots
        .iter()
        .filter(|r| r.get("uri").and_then(Value::as_str).is_some_and(|u| u.starts_with("file://")))
        .collect();
    json!({"roots": kept})
}
