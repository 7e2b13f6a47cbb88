//! Every row of both check tables of "Input requests (M2)": the cause and
//! the exact `data.detail`.

use crate::input::checks::{check_round, Ask, Declared};
use crate::input::schema::compiles;
use crate::profile::Revision;
use serde_json::{json, Value};

const ALL: Declared =
    Declared { form: true, url: true, sampling: true, sampling_tools: true, roots: true, revision: Revision::LATEST };
const VSCODE: Declared =
    Declared { form: true, url: true, sampling: true, sampling_tools: false, roots: true, revision: Revision::LATEST };

fn form() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

fn round(requests: Value) -> Value {
    json!({"resultType": "input_required", "inputRequests": requests, "requestState": "s"})
}

fn failure(result: Value, declared: Declared) -> (String, String) {
    match check_round(&result, declared, compiles) {
        Ok(round) => panic!("expected a failure, got {round:?}"),
        Err(error) => (error.cause.name().to_owned(), error.detail.unwrap_or_default()),
    }
}

#[test]
fn the_checks_of_the_whole_round_have_a_detail_without_a_key() {
    let seventeen: serde_json::Map<String, Value> = (0..17).map(|i| (format!("k{i}"), form())).collect();
    let cases = [
        (json!([1]), "invalid_input_request", "the result is not an object".to_string()),
        (
            json!({"resultType": "input_required", "inputRequests": []}),
            "invalid_input_request",
            "the inputRequests member is not an object".into(),
        ),
        (
            json!({"resultType": "input_required", "requestState": 5}),
            "invalid_input_request",
            "the requestState member is not a string".into(),
        ),
        (
            round(Value::Object(seventeen)),
            "too_many_input_requests",
            "17 input requests in one round, limit: 16".into(),
        ),
    ];
    for (result, cause, detail) in cases {
        assert_eq!(failure(result.clone(), ALL), (cause.to_owned(), detail), "{result}");
    }
    let sixteen: serde_json::Map<String, Value> = (0..16).map(|i| (format!("k{i}"), form())).collect();
    assert_eq!(check_round(&round(Value::Object(sixteen)), ALL, compiles).map(|r| r.requests.len()).ok(), Some(16));
}

#[test]
fn each_check_of_an_input_request_gives_its_cause_and_text() {
    let text_use =
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]});
    let text_result = json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": "t1", "content": []}]});
    let sampling = |messages: Value, extra: Value| {
        let mut params = json!({"messages": messages, "maxTokens": 10});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        json!({"method": "sampling/createMessage", "params": params})
    };
    let user = json!([{"role": "user", "content": {"type": "text", "text": "hi"}}]);
    let cases: Vec<(Value, Declared, &str, &str)> = vec![
        (json!(5), ALL, "invalid_input_request", "the input request does not have the shape of the schema"),
        (
            json!({"method": "tasks/get", "params": {}}),
            ALL,
            "invalid_input_request",
            "the input request does not have the shape of the schema",
        ),
        (
            json!({"method": "elicitation/create", "params": {"message": "m"}}),
            ALL,
            "invalid_input_request",
            "the input request does not have the shape of the schema",
        ),
        (
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m"}}),
            ALL,
            "invalid_input_request",
            "the input request does not have the shape of the schema",
        ),
        (
            json!({"method": "elicitation/create", "params": {"mode": "other", "message": "m"}}),
            ALL,
            "invalid_input_request",
            "the input request does not have the shape of the schema",
        ),
        (
            form(),
            Declared { form: false, ..ALL },
            "undeclared_input_request",
            "the client did not declare elicitation.form",
        ),
        (
            json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {"n": {"type": "string", "pattern": "("}}}}}),
            ALL,
            "invalid_input_request",
            "the requestedSchema does not compile",
        ),
        (
            json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {"n": {"type": 5}}}}}),
            ALL,
            "invalid_input_request",
            "the input request does not have the shape of the schema",
        ),
        (
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://e.com"}}),
            Declared { url: false, ..ALL },
            "undeclared_input_request",
            "the client did not declare elicitation.url",
        ),
        (
            sampling(user.clone(), json!({})),
            Declared { sampling: false, ..ALL },
            "undeclared_input_request",
            "the client did not declare sampling",
        ),
        (
            sampling(json!([{"role": "system", "content": {"type": "text", "text": "x"}}]), json!({})),
            ALL,
            "invalid_input_request",
            "the input request does not have the shape of the schema",
        ),
        (
            sampling(user.clone(), json!({"tools": []})),
            VSCODE,
            "undeclared_input_request",
            "sampling with tools needs sampling.tools, and the client did not declare it",
        ),
        (
            sampling(user.clone(), json!({"toolChoice": {"mode": "auto"}})),
            VSCODE,
            "undeclared_input_request",
            "sampling with tools needs sampling.tools, and the client did not declare it",
        ),
        (
            sampling(json!([text_use.clone(), text_result.clone()]), json!({})),
            VSCODE,
            "undeclared_input_request",
            "sampling with tools needs sampling.tools, and the client did not declare it",
        ),
        (
            sampling(json!([text_use.clone()]), json!({})),
            ALL,
            "invalid_input_request",
            "the sampling messages do not obey the tool result rules",
        ),
        (
            sampling(
                json!([text_use.clone(), {"role": "user", "content": [{"type": "tool_result", "toolUseId": "t1", "content": []}, {"type": "text", "text": "x"}]}]),
                json!({}),
            ),
            ALL,
            "invalid_input_request",
            "the sampling messages do not obey the tool result rules",
        ),
        (
            json!({"method": "roots/list"}),
            Declared { roots: false, ..ALL },
            "undeclared_input_request",
            "the client did not declare roots",
        ),
    ];
    for (request, declared, cause, text) in cases {
        let result = round(json!({"the-key": request}));
        assert_eq!(
            failure(result, declared),
            (cause.to_owned(), format!("input request 'the-key': {text}")),
            "{request}"
        );
    }
    let ok = round(json!({"s": sampling(json!([text_use, text_result]), json!({"includeContext": "allServers"}))}));
    assert!(matches!(check_round(&ok, ALL, compiles).map(|r| r.requests[0].ask.clone()), Ok(Ask::Sampling(_))));
}

#[test]
fn a_valid_round_keeps_the_order_the_params_without_task_and_the_state() {
    let result = json!({"resultType": "input_required", "requestState": "opaque", "inputRequests": {
        "b": {"method": "roots/list"},
        "a": {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://e.com/x", "task": {"ttl": 1}}}
    }});
    let round = check_round(&result, VSCODE, compiles).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(round.request_state.as_deref(), Some("opaque"));
    assert_eq!(round.requests.iter().map(|r| r.key.as_str()).collect::<Vec<_>>(), ["b", "a"]);
    let Ask::Url(params, url) = &round.requests[1].ask else { panic!("expected a URL ask") };
    assert_eq!(url, "https://e.com/x");
    assert_eq!(Value::Object(params.clone()), json!({"mode": "url", "message": "Sign in", "url": "https://e.com/x"}));
    let no_state = json!({"resultType": "input_required", "inputRequests": {}});
    assert_eq!(check_round(&no_state, VSCODE, compiles).map(|r| r.request_state).ok(), Some(None));
}
