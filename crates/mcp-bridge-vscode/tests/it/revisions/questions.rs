//! Every kind of input request, in each revision, through the scripted
//! fake: roots, a URL step, sampling with an image and with audio, and a
//! form of every primitive property kind (with the multi-selects of
//! 2025-11-25). Each question the client gets is checked against its
//! revision's schema (`client::Client`), each answer against the result
//! definition of its revision, and each answer's value reaches the
//! upstream server: the fake's `script` tool echoes the `inputResponses`
//! it received.

use super::client::Client;
use crate::support::driver::Driver;
use crate::support::fake::{fake_upstream, input_required};
use crate::support::schemas::REVISIONS;
use crate::support::{assert_json, bridge_error, message};
use serde_json::{json, Value};

fn start(revision: &'static str) -> Client {
    Client::start(Driver::start(&[], &fake_upstream(&[])), revision).0
}

/// A call of the fake's `script` whose first round asks `requests`; the
/// second round echoes the `inputResponses`. The response, and the
/// questions the client got, each as `[method, params]`, with the answer
/// that `answer` gives it.
fn ask(client: &mut Client, id: i64, requests: Value, answer: &dyn Fn(&Value) -> Value) -> (Value, Vec<Value>) {
    let mut questions = Vec::new();
    let arguments = json!({"steps": [input_required(requests)]});
    let response = client.request(id, "tools/call", json!({"name": "script", "arguments": arguments}), &mut |q| {
        questions.push(json!([q["method"], q["params"]]));
        answer(q)
    });
    (response, questions)
}

/// The `inputResponses` the upstream server received, as the fake echoes
/// them in its text.
#[track_caller]
fn echoed(response: &Value) -> Value {
    let text = response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no echo: {response}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The response of an input request that the client cannot carry.
fn undeclared(id: i64, detail: &str) -> Value {
    let error = bridge_error(-32603, &message("undeclared_input_request"), "undeclared_input_request", Some(detail));
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// "The client declared roots for a roots request" and "Roots: only the
/// roots with a URI that starts with file://" (behaviour spec, "Answers of
/// the client"): a client of each revision that declares roots gets
/// `roots/list` (params `{}`: the input request had none), and the
/// upstream server gets only its file roots.
#[test]
fn a_roots_question_reaches_each_revision_and_only_its_file_roots_go_upstream() {
    for revision in REVISIONS {
        let mut client = start(revision);
        let roots = json!({"roots": [{"uri": "file:///home/user/project", "name": "project"}, {"uri": "https://example.com/repo", "name": "web"}]});
        let (response, questions) = ask(&mut client, 1, json!({"r": {"method": "roots/list"}}), &|_| roots.clone());
        assert_json(revision, &Value::from(questions), &json!([["roots/list", {}]]));
        let file_roots = json!({"r": {"roots": [{"uri": "file:///home/user/project", "name": "project"}]}});
        assert_json(revision, &echoed(&response), &file_roots);
    }
}

/// "A URL elicitation also gets an elicitationId" (behaviour spec, "The
/// questions"): a 2025-11-25 client that declares `elicitation.url` gets
/// the URL step with its id; its accept reaches the upstream server
/// without content, and once the server no longer asks for the URL the
/// client gets `notifications/elicitation/complete` with that id before
/// the response. (That an older revision cannot carry it is
/// `a_question_the_revision_cannot_carry_is_undeclared_and_a_form_is_rewritten`.)
#[test]
fn a_url_step_reaches_a_2025_11_25_client_with_its_id_and_its_completion() {
    let mut client = start("2025-11-25");
    let url = json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/sign-in"}});
    let (response, questions) = ask(&mut client, 1, json!({"u": url}), &|_| json!({"action": "accept"}));
    let id = questions[0][1]["elicitationId"].clone();
    assert!(id.as_str().is_some_and(|id| !id.is_empty()), "{id}");
    let asked = json!([["elicitation/create",
        {"mode": "url", "message": "Sign in", "url": "https://example.com/sign-in", "elicitationId": id}]]);
    assert_json("the URL step", &Value::from(questions), &asked);
    assert_json("the answer upstream", &echoed(&response), &json!({"u": {"action": "accept"}}));
    let complete =
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": id}});
    let n = client.got.len();
    assert_json("the completion", &client.got[n - 2], &complete);
}

fn sampling(content: Value) -> Value {
    json!({"method": "sampling/createMessage", "params": {"maxTokens": 5, "messages": [{"role": "user", "content": content}]}})
}

/// "Questions" (docs/decisions.md, "Revisions of the client"): a sampling
/// message with an image reaches a client of every revision, and its
/// answer (an image) the upstream server; one with audio reaches 2025-03-26
/// and later (one block of an array becomes the block before 2025-11-25),
/// and for 2024-11-05, which has no audio, the call fails as an undeclared
/// input request, without a question.
#[test]
fn a_sampling_image_reaches_every_revision_and_audio_all_but_2024_11_05() {
    let image = json!({"type": "image", "data": "AA", "mimeType": "image/png"});
    let audio = json!({"type": "audio", "data": "AA", "mimeType": "audio/wav"});
    for revision in REVISIONS {
        let mut client = start(revision);
        let drawn = json!({"role": "assistant", "content": image, "model": "m", "stopReason": "endTurn"});
        let (response, questions) = ask(&mut client, 1, json!({"img": sampling(image.clone())}), &|_| drawn.clone());
        assert_json(
            revision,
            &Value::from(questions),
            &json!([["sampling/createMessage", sampling(image.clone())["params"]]]),
        );
        assert_json(revision, &echoed(&response), &json!({"img": drawn}));

        let heard = json!({"role": "assistant", "content": audio, "model": "m"});
        let (response, questions) = ask(&mut client, 2, json!({"snd": sampling(json!([audio]))}), &|_| heard.clone());
        if revision == "2024-11-05" {
            let detail = "input request 'snd': the client's revision 2024-11-05 has no audio content";
            assert_json(revision, &response, &undeclared(2, detail));
            assert!(questions.is_empty(), "{revision}: {questions:?}");
            continue;
        }
        let content = if revision == "2025-11-25" { json!([audio]) } else { audio.clone() };
        assert_json(
            revision,
            &Value::from(questions),
            &json!([["sampling/createMessage", sampling(content)["params"]]]),
        );
        assert_json(revision, &echoed(&response), &json!({"snd": heard}));
    }
}

/// A form of 2025-11-25 with every primitive property kind: a string with
/// a format, a number, an integer, a boolean, an untitled enum, a titled
/// single-select; with `multi`, the two multi-selects too.
fn every_kind(multi: bool) -> Value {
    let mut properties = json!({
        "email": {"type": "string", "title": "Email", "format": "email", "minLength": 3, "maxLength": 50, "default": "a@b.c"},
        "ratio": {"type": "number", "description": "A share", "minimum": 0, "maximum": 1, "default": 0.5},
        "count": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2},
        "ok": {"type": "boolean", "title": "OK", "default": false},
        "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
        "size": {"type": "string", "title": "Size", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "s"}
    });
    if multi {
        properties["tags"] =
            json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1, "default": ["a"]});
        properties["picks"] =
            json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}});
    }
    json!({"mode": "form", "message": "Every kind", "requestedSchema": {"type": "object", "properties": properties, "required": ["email", "count"]}})
}

/// The same form as 2025-06-18 has it: no `mode`, no `default` but the
/// boolean's, the titled single-select as `enum` with `enumNames`.
fn every_kind_2025_06_18() -> Value {
    json!({"message": "Every kind", "requestedSchema": {"type": "object", "properties": {
        "email": {"type": "string", "title": "Email", "format": "email", "minLength": 3, "maxLength": 50},
        "ratio": {"type": "number", "description": "A share", "minimum": 0, "maximum": 1},
        "count": {"type": "integer", "minimum": 1, "maximum": 9},
        "ok": {"type": "boolean", "title": "OK", "default": false},
        "color": {"type": "string", "enum": ["red", "green"]},
        "size": {"type": "string", "title": "Size", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}
    }, "required": ["email", "count"]}})
}

/// "Questions" (docs/decisions.md, "Revisions of the client") and the
/// spec's check "The client declared elicitation.form for a form": a form
/// of every primitive property kind reaches a 2025-11-25 client as it is
/// and a 2025-06-18 client in its revision's terms, and each answer
/// reaches the upstream server; the multi-selects reach only 2025-11-25
/// (2025-06-18: undeclared); before 2025-06-18 a form is undeclared.
#[test]
fn a_form_of_every_primitive_kind_reaches_each_revision_that_has_forms() {
    let filled = json!({"email": "ada@example.com", "ratio": 1, "count": 3, "ok": true, "color": "green", "size": "l"});
    let mut picked = filled.clone();
    picked["tags"] = json!(["a", "b"]);
    picked["picks"] = json!(["y"]);
    for revision in REVISIONS {
        let mut client = start(revision);
        let form = |multi| json!({"method": "elicitation/create", "params": every_kind(multi)});
        let accept = |content: &Value| json!({"action": "accept", "content": content});
        let (single, asked) = ask(&mut client, 1, json!({"f": form(false)}), &|_| accept(&filled));
        let (multi, asked_multi) = ask(&mut client, 2, json!({"m": form(true)}), &|_| accept(&picked));
        match revision {
            "2024-11-05" | "2025-03-26" => {
                assert_json(
                    revision,
                    &single,
                    &undeclared(1, "input request 'f': the client did not declare elicitation.form"),
                );
                assert_json(
                    revision,
                    &multi,
                    &undeclared(2, "input request 'm': the client did not declare elicitation.form"),
                );
                assert!(asked.is_empty() && asked_multi.is_empty(), "{revision}: {asked:?} {asked_multi:?}");
            }
            "2025-06-18" => {
                assert_json(revision, &Value::from(asked), &json!([["elicitation/create", every_kind_2025_06_18()]]));
                assert_json(revision, &echoed(&single), &json!({"f": accept(&filled)}));
                let detail = "input request 'm': the client's revision 2025-06-18 has no multi-select enums";
                assert_json(revision, &multi, &undeclared(2, detail));
                assert!(asked_multi.is_empty(), "{revision}: {asked_multi:?}");
            }
            _ => {
                assert_json(revision, &Value::from(asked), &json!([["elicitation/create", every_kind(false)]]));
                assert_json(revision, &echoed(&single), &json!({"f": accept(&filled)}));
                assert_json(revision, &Value::from(asked_multi), &json!([["elicitation/create", every_kind(true)]]));
                assert_json(revision, &echoed(&multi), &json!({"m": accept(&picked)}));
            }
        }
    }
}
