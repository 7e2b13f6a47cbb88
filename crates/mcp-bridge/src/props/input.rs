//! Properties of the input-request checks (behaviour spec, "Input
//! requests (M2)": "Checks before the client gets a question", "The URL
//! rule", "The questions", "Answers of the client", "The Continue form").

use super::{ensure, text, Checked};
use crate::gate::url::CheckedUrl;
use crate::input::checks::{check_round, obeys_tool_result_rules, Ask, Declared, MAX_INPUT_REQUESTS};
use crate::input::questions::{question, response, Answer, Expect};
use crate::input::schema;
use crate::jsonrpc::{code, Cause};
use crate::profile::Revision;
use crate::props::bytes::Bytes;
use serde_json::{json, Map, Value};

/// Every capability declared.
pub(crate) const ALL: Declared =
    Declared { form: true, url: true, sampling: true, sampling_tools: true, roots: true, revision: Revision::LATEST };

/// What the client declared, from the low five bits of a byte.
pub(crate) fn declared_from(bits: u8) -> Declared {
    Declared {
        form: bits & 1 != 0,
        url: bits & 2 != 0,
        sampling: bits & 4 != 0,
        sampling_tools: bits & 8 != 0,
        roots: bits & 16 != 0,
        revision: Revision::LATEST,
    }
}

/// The texts of the spec's table of checks, by cause, for one request.
const REQUEST_TEXTS: [(Cause, &str); 8] = [
    (Cause::InvalidInputRequest, "the input request does not have the shape of the schema"),
    (Cause::UndeclaredInputRequest, "the client did not declare elicitation.form"),
    (Cause::InvalidInputRequest, "the requestedSchema does not compile"),
    (Cause::UndeclaredInputRequest, "the client did not declare elicitation.url"),
    (Cause::UndeclaredInputRequest, "the client did not declare sampling"),
    (Cause::UndeclaredInputRequest, "sampling with tools needs sampling.tools, and the client did not declare it"),
    (Cause::InvalidInputRequest, "the sampling messages do not obey the tool result rules"),
    (Cause::UndeclaredInputRequest, "the client did not declare roots"),
];

/// The texts of the checks of the whole round, without a key.
const ROUND_TEXTS: [&str; 3] = [
    "the result is not an object",
    "the inputRequests member is not an object",
    "the requestState member is not a string",
];

fn blocks(message: &Value) -> Vec<&Value> {
    match message.get("content") {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    }
}

/// The checks of a round: a round that passes has what the client
/// declared and the shape of the schema for each request, in the order of
/// the server, with the params minus `task`; a failure is a row of the
/// spec's tables, with its code and exact detail; declaring more never
/// fails a round that passed, nor changes a failure that is not about
/// what was declared.
pub(crate) fn round(result: &Value, declared: Declared) -> Checked {
    let got = check_round(result, declared, schema::compiles);
    let requests = result.get("inputRequests").and_then(Value::as_object);
    match &got {
        Ok(round) => {
            ensure!(result.is_object(), "a result that is not an object passed");
            let keys: Vec<&String> = requests.map(|r| r.keys().collect()).unwrap_or_default();
            ensure!(keys.len() <= MAX_INPUT_REQUESTS, "{} input requests passed", keys.len());
            ensure!(
                round.requests.iter().map(|r| &r.key).eq(keys.iter().copied()),
                "the keys are not the server's, in order"
            );
            let state = result.get("requestState");
            ensure!(
                round.request_state.as_ref().map(|s| Value::from(s.as_str())).as_ref() == state,
                "the requestState is not the server's"
            );
            for checked in &round.requests {
                let request = requests.and_then(|r| r.get(&checked.key)).cloned().unwrap_or_default();
                ask(&checked.key, &request, &checked.ask, declared)?;
            }
        }
        Err(error) => {
            ensure!(
                error.code == code::INTERNAL_ERROR && error.code == error.cause.code(),
                "the code is {}",
                error.code
            );
            let detail = error.detail.clone().unwrap_or_default();
            let row = match detail.strip_prefix("input request '") {
                Some(rest) => {
                    let known = requests.is_some_and(|r| {
                        r.keys().any(|k| {
                            rest.strip_prefix(k.as_str())
                                .and_then(|t| t.strip_prefix("': "))
                                .is_some_and(|t| REQUEST_TEXTS.contains(&(error.cause, t)))
                        })
                    });
                    known
                }
                None => {
                    let many = requests.map_or(0, Map::len);
                    (error.cause == Cause::InvalidInputRequest && ROUND_TEXTS.contains(&detail.as_str()))
                        || (error.cause == Cause::TooManyInputRequests
                            && many > MAX_INPUT_REQUESTS
                            && detail == format!("{many} input requests in one round, limit: {MAX_INPUT_REQUESTS}"))
                }
            };
            ensure!(row, "the failure {} {detail:?} is no row of the tables", error.cause.name());
        }
    }
    let with_all = check_round(result, ALL, schema::compiles);
    match &got {
        Ok(round) => {
            ensure!(with_all.as_ref() == Ok(round), "declaring more changed a round that passed: {with_all:?}")
        }
        Err(error) if error.cause != Cause::UndeclaredInputRequest => {
            ensure!(
                with_all.as_ref().err() == Some(error),
                "declaring more changed the failure {error:?} to {with_all:?}"
            )
        }
        Err(_) => ensure!(
            with_all.as_ref().err().is_none_or(|e| e.cause != Cause::UndeclaredInputRequest),
            "a client that declares everything got undeclared_input_request"
        ),
    }
    Ok(())
}

/// One request that passed.
fn ask(key: &str, request: &Value, ask: &Ask, declared: Declared) -> Checked {
    let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
    let mut params = request.get("params").and_then(Value::as_object).cloned().unwrap_or_default();
    params.shift_remove("task");
    let same = |p: &Map<String, Value>| text(&Value::Object(p.clone())) == text(&Value::Object(params.clone()));
    match ask {
        Ask::Form(p) => {
            ensure!(
                method == "elicitation/create" && declared.form && same(p),
                "{key}: a form that is not the server's, or undeclared"
            );
            ensure!(
                p.get("mode").is_none() || p.get("mode") == Some(&Value::from("form")),
                "{key}: the mode of a form"
            );
            ensure!(p.get("message").is_some_and(Value::is_string), "{key}: a form without a message");
            let schema = p.get("requestedSchema").cloned().unwrap_or_default();
            ensure!(
                schema.get("type") == Some(&Value::from("object")),
                "{key}: the requestedSchema is not type object"
            );
            ensure!(
                schema.get("properties").is_some_and(Value::is_object),
                "{key}: the requestedSchema has no properties"
            );
            ensure!(schema::compiles(&schema), "{key}: the requestedSchema does not compile");
        }
        Ask::Url(p, url) => {
            ensure!(
                method == "elicitation/create" && declared.url && same(p),
                "{key}: a URL that is not the server's, or undeclared"
            );
            ensure!(p.get("mode") == Some(&Value::from("url")), "{key}: the mode of a URL");
            ensure!(p.get("url") == Some(&Value::from(url.as_str())), "{key}: the URL is not the params' url");
            ensure!(p.get("message").is_some_and(Value::is_string), "{key}: a URL without a message");
        }
        Ask::Sampling(p) => {
            ensure!(
                method == "sampling/createMessage" && declared.sampling && same(p),
                "{key}: a sampling that is not the server's, or undeclared"
            );
            let messages = p.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
            ensure!(p.get("messages").is_some_and(Value::is_array), "{key}: sampling without messages");
            ensure!(p.get("maxTokens").is_some_and(|m| m.is_i64() || m.is_u64()), "{key}: maxTokens is not an integer");
            for message in &messages {
                ensure!(
                    matches!(message.get("role").and_then(Value::as_str), Some("user" | "assistant")),
                    "{key}: a message without a role"
                );
                let list = blocks(message);
                ensure!(message.get("content").is_some(), "{key}: a message without content");
                ensure!(
                    list.iter().all(|b| b.get("type").is_some_and(Value::is_string)),
                    "{key}: a block without a type"
                );
            }
            let tool_blocks = messages
                .iter()
                .flat_map(blocks)
                .any(|b| matches!(b.get("type").and_then(Value::as_str), Some("tool_use" | "tool_result")));
            let tools = p.contains_key("tools") || p.contains_key("toolChoice") || tool_blocks;
            ensure!(!tools || declared.sampling_tools, "{key}: sampling with tools passed without sampling.tools");
            ensure!(obeys_tool_result_rules(&messages), "{key}: messages that break the tool result rules passed");
        }
        Ask::Roots(p) => {
            ensure!(
                method == "roots/list" && declared.roots && same(p),
                "{key}: a roots request that is not the server's, or undeclared"
            );
        }
    }
    let q = question(ask);
    match (ask, q) {
        (Ask::Url(..), None) => {}
        (Ask::Url(..), Some(q)) => return Err(format!("{key}: a URL got a question of its own: {q:?}")),
        (_, None) => return Err(format!("{key}: no question")),
        (Ask::Form(p), Some(q)) => {
            ensure!(
                q.method.as_str() == "elicitation/create",
                "{key}: the question of a form is {}",
                q.method.as_str()
            );
            let schema = p.get("requestedSchema").cloned().unwrap_or_default();
            let empty = schema.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty);
            if empty {
                ensure!(
                    q.expect == Expect::EmptyForm,
                    "{key}: a form without a property does not expect the Continue form"
                );
                ensure!(q.params.get("message") == p.get("message"), "{key}: the choice form lost the message");
                let props = q.params.pointer("/requestedSchema/properties").and_then(Value::as_object);
                ensure!(
                    props.is_some_and(|m| m.len() == 1 && m.contains_key("continue")),
                    "{key}: the choice form has no single choice"
                );
            } else {
                ensure!(q.params == Value::Object(p.clone()), "{key}: the question is not the params of the form");
                ensure!(q.expect == Expect::Form { schema }, "{key}: the form does not expect its schema");
            }
        }
        (Ask::Sampling(p), Some(q)) => ensure!(
            q.method.as_str() == "sampling/createMessage"
                && q.params == Value::Object(p.clone())
                && q.expect == Expect::Sampling,
            "{key}: the sampling question"
        ),
        (Ask::Roots(p), Some(q)) => ensure!(
            q.method.as_str() == "roots/list" && q.params == Value::Object(p.clone()) && q.expect == Expect::Roots,
            "{key}: the roots question"
        ),
    }
    Ok(())
}

/// Fuzz glue: a byte of declared capabilities, then the result.
pub fn round_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let declared = declared_from(bytes.byte());
    match bytes.json() {
        Some(result) => round(&result, declared),
        None => Ok(()),
    }
}

/// The host of an `http://` or `https://` URL, lower case, and whether
/// it has user information: read by hand, for the property only.
fn authority(url: &str) -> Option<(String, bool)> {
    let (_, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((_, host)) => (true, host),
        None => (false, authority),
    };
    let host = if host_port.starts_with('[') {
        host_port.split_inclusive(']').next().unwrap_or(host_port)
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    };
    Some((host.to_ascii_lowercase(), userinfo))
}

fn loopback(host: &str) -> bool {
    if host == "localhost" {
        return true;
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner.parse::<std::net::Ipv6Addr>().is_ok_and(|a| a.is_loopback());
    }
    let octets: Vec<&str> = host.split('.').collect();
    octets.len() == 4
        && octets[0] == "127"
        && octets.iter().all(|o| {
            !o.is_empty()
                && o.len() <= 3
                && o.bytes().all(|b| b.is_ascii_digit())
                && o.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// The URL rule: an allowed URL has no backslash, no space or control
/// character, the scheme `https`, or `http` to a loopback host without
/// user information; the scheme's case does not matter; a backslash
/// anywhere refuses the URL.
pub(crate) fn url(url: &str) -> Checked {
    let allowed = CheckedUrl::check(url).is_ok();
    if allowed {
        ensure!(!url.contains('\\'), "{url:?} has a backslash");
        ensure!(
            !url.chars().any(|c| c.is_whitespace() || c.is_control()),
            "{url:?} has a space or a control character"
        );
        let lower = url.to_ascii_lowercase();
        let http = lower.starts_with("http://");
        ensure!(lower.starts_with("https://") || http, "{url:?} is not http(s) with an authority");
        let Some((host, userinfo)) = authority(url) else { return Err(format!("{url:?} has no authority")) };
        ensure!(!host.is_empty(), "{url:?} has an empty host");
        if http {
            ensure!(!userinfo, "{url:?} is http with user information");
            ensure!(loopback(&host), "{url:?} is http to {host:?}, not a loopback host");
        }
    }
    if let Some((scheme, rest)) = url.split_once(':') {
        let swapped: String = scheme
            .chars()
            .map(|c| if c.is_ascii_lowercase() { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
            .collect();
        let other = format!("{swapped}:{rest}");
        ensure!(
            CheckedUrl::check(&other).is_ok() == allowed,
            "{url:?} and {other:?} differ only in the case of the scheme"
        );
    }
    for at in [0, url.len() / 2, url.len()] {
        if url.is_char_boundary(at) {
            let with = format!("{}\\{}", &url[..at], &url[at..]);
            ensure!(CheckedUrl::check(&with).is_err(), "{with:?} has a backslash and is allowed");
        }
    }
    Ok(())
}

/// Fuzz glue: the bytes as text, when they are UTF-8.
pub fn url_bytes(data: &[u8]) -> Checked {
    match std::str::from_utf8(data) {
        Ok(text) => url(text),
        Err(_) => Ok(()),
    }
}

/// The expectations of a question, for the fuzz glue: a form with a
/// property, the Continue cases, sampling and roots.
pub(crate) fn expectations() -> [Expect; 5] {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}, "required": ["name"]});
    [Expect::Form { schema }, Expect::EmptyForm, Expect::Url, Expect::Sampling, Expect::Roots]
}

/// Answers of the client: an error or a bad line cancels an elicitation
/// and fails sampling and roots (the error unchanged); a result gives an
/// elicitation value with only `action` (one of three) and, for an
/// accepted form, content valid against its schema; a sampling result goes
/// as it came when it has the shape; roots keep only the `file://` roots,
/// in order; every other answer fails with invalid_client_answer and the
/// key in the detail.
pub(crate) fn answer(key: &str, expect: &Expect, answer: &Answer) -> Checked {
    let got = response(key, expect, answer.clone());
    let elicitation = matches!(expect, Expect::Form { .. } | Expect::EmptyForm | Expect::Url);
    if let Err(Err(error)) = &got {
        ensure!(
            error.cause == Cause::InvalidClientAnswer && error.code == code::INTERNAL_ERROR,
            "the failure is {}",
            error.cause.name()
        );
        let prefix = format!("input request '{key}': ");
        ensure!(
            error.detail.as_deref().is_some_and(|d| d.starts_with(&prefix)),
            "the detail {:?} does not name the key",
            error.detail
        );
    }
    match (answer, &got) {
        (Answer::Error(_) | Answer::Invalid, _) if elicitation => {
            ensure!(got == Ok(json!({"action": "cancel"})), "an error or a bad line of an elicitation gave {got:?}")
        }
        (Answer::Error(e), _) => {
            ensure!(got == Err(Ok(e.clone())), "the client's error did not go to the request unchanged: {got:?}")
        }
        (Answer::Invalid, _) => ensure!(matches!(got, Err(Err(_))), "a bad line for sampling or roots gave {got:?}"),
        (Answer::Result(_), Err(Ok(_))) => return Err("a result became an error of the client".into()),
        (Answer::Result(_), Err(Err(_))) => {}
        (Answer::Result(result), Ok(value)) => match expect {
            Expect::Form { .. } | Expect::EmptyForm | Expect::Url => {
                let action = value.get("action").and_then(Value::as_str);
                ensure!(matches!(action, Some("accept" | "decline" | "cancel")), "the action is {action:?}");
                ensure!(result.get("action") == value.get("action"), "the action is not the client's");
                let members: Vec<&String> = value.as_object().map(|m| m.keys().collect()).unwrap_or_default();
                let content = value.get("content");
                match (expect, action) {
                    (Expect::Form { schema }, Some("accept")) => {
                        ensure!(content == result.get("content"), "the content is not the client's");
                        ensure!(
                            content.is_some_and(|c| schema::accepts(schema, c)),
                            "content that is not valid was accepted"
                        );
                    }
                    (Expect::EmptyForm, Some("accept")) => {
                        ensure!(content == Some(&json!({})), "an accepted choice form has content {content:?}")
                    }
                    _ => ensure!(content.is_none(), "{action:?} of {expect:?} has content"),
                }
                ensure!(
                    members.iter().all(|k| *k == "action" || *k == "content"),
                    "the value has the members {members:?}"
                );
            }
            Expect::Sampling => {
                ensure!(value == result, "a sampling result changed");
                ensure!(value.get("model").is_some_and(Value::is_string), "a sampling result without a model passed");
                ensure!(
                    matches!(value.get("role").and_then(Value::as_str), Some("user" | "assistant")),
                    "a sampling result without a role passed"
                );
                let list = blocks(value);
                ensure!(
                    value.get("content").is_some() && list.iter().all(|b| b.get("type").is_some_and(Value::is_string)),
                    "a sampling result without content blocks passed"
                );
            }
            Expect::Roots => {
                let all = result.get("roots").and_then(Value::as_array).cloned().unwrap_or_default();
                ensure!(
                    all.iter().all(|r| r.get("uri").is_some_and(Value::is_string)),
                    "roots without a string uri passed"
                );
                let kept: Vec<Value> = all
                    .into_iter()
                    .filter(|r| r.get("uri").and_then(Value::as_str).is_some_and(|u| u.starts_with("file://")))
                    .collect();
                ensure!(*value == json!({"roots": kept}), "the roots are {value}, expected the file:// roots {kept:?}");
            }
        },
    }
    Ok(())
}

/// Fuzz glue: a byte picks the expectation and the kind of answer, the
/// rest is the result or the error.
pub fn answer_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let pick = bytes.byte();
    let expectations = expectations();
    let expect = &expectations[usize::from(pick % 5)];
    let value = bytes.json().unwrap_or(Value::Null);
    let reply = match (pick / 5) % 4 {
        0 => Answer::Invalid,
        1 => Answer::Error(value),
        _ => Answer::Result(value),
    };
    answer("k", expect, &reply)
}
