//! The rounds of a multi round-trip request (behaviour spec, "Input
//! requests (M2)"): the bridge answers each `InputRequiredResult` itself
//! with questions to the client, and sends the request again with the
//! `inputResponses` and the `requestState`.

use super::state::{Phase, Shared};
use crate::gate::text;
use crate::gate::url::{CheckedUrl, Refused};
use crate::input::checks::{check_round, Ask, Declared, InputRequest};
use crate::input::questions::{self, continue_form, Answer, Expect, Question, CONTINUE_MESSAGE};
use crate::input::schema;
use crate::jsonrpc::{self, code, reason, Cause, ClientNotification, ClientRequest};
use crate::method::Method;
use crate::output::Output;
use crate::translate::result::is_input_required;
use crate::translate::revision;
use crate::upstream::{Call, CallError, Client, ProgressSink, Slot, UpstreamMethod};
use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// One request has at most this many rounds (`mrtr_max_rounds_client`).
pub(crate) const MAX_ROUNDS: usize = 10;

/// A URL step: the elicitation id the client knows it by.
struct UrlStep {
    url: String,
    id: String,
    accepted: bool,
    complete: bool,
}

/// What one request needs for its rounds.
pub(crate) struct Request<'a> {
    pub shared: &'a Shared,
    /// Where what relates to the request goes: its stream, where the
    /// client's link has one per request.
    pub out: &'a Output,
    pub client: &'a Client,
    pub method: Method,
    pub params: Map<String, Value>,
    pub meta: Map<String, Value>,
    pub progress: Option<ProgressSink>,
    pub cancel: &'a CancellationToken,
    pub slot: &'a Slot,
    pub declared: Declared,
}

/// Runs the rounds from the first `InputRequiredResult` to a complete
/// result or an error.
pub(crate) async fn run(request: Request<'_>, first: Value) -> Result<Value, CallError> {
    let mut steps: Vec<UrlStep> = Vec::new();
    let outcome = rounds(&request, first, &mut steps).await;
    // Each accepted URL that is not complete yet gets its notification now,
    // before the response: the rounds stopped without a result (an error,
    // the round limit, a cancellation, the loss of the upstream, the end of
    // the input, or the request-state rule, whose `isError` result of
    // `tools/call` is the bridge's and not the server's), and VS Code hides
    // the URL. After a complete result every step is complete already.
    complete_steps(&request, &mut steps, &[]).await;
    outcome
}

async fn rounds(request: &Request<'_>, first: Value, steps: &mut Vec<UrlStep>) -> Result<Value, CallError> {
    let mut result = first;
    let mut round_number = 1;
    loop {
        let asked = asked_urls(&result);
        complete_steps(request, steps, &asked).await;
        if !is_input_required(&result) {
            return Ok(result);
        }
        if round_number >= MAX_ROUNDS {
            return Err(Cause::TooManyRounds.into());
        }
        let round = check_round(&result, request.declared, schema::compiles).map_err(CallError::Bridge)?;
        // The warning of the request-state rule tells how long the client
        // took to answer: the clock runs only while its answers are awaited.
        let asked_at = Instant::now();
        let responses = answer_round(request, &round.requests, steps).await?;
        let waited = asked_at.elapsed();
        let mut params = request.params.clone();
        params.insert("inputResponses".into(), Value::Object(responses));
        if let Some(state) = &round.request_state {
            params.insert("requestState".into(), Value::from(state.as_str()));
        }
        let call = Call {
            method: UpstreamMethod::Forwarded(request.method),
            params: &params,
            meta: &request.meta,
            timeout: request.shared.config.timeouts.for_round(request.method, round_number + 1),
            progress: request.progress.clone(),
            cancel: request.cancel,
            slot: request.slot,
            relay: None,
        };
        result = match request.client.call(call).await {
            Err(CallError::Upstream { error, .. }) if round.request_state.is_some() && is_invalid_params(&error) => {
                return request_state_rule(request.method, error, waited);
            }
            other => other?,
        };
        round_number += 1;
    }
}

/// The URLs that a result asks for, to know which steps are complete.
fn asked_urls(result: &Value) -> Vec<String> {
    let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
        return Vec::new();
    };
    requests
        .values()
        .filter(|r| r.get("params").and_then(|p| p.get("mode")).and_then(Value::as_str) == Some("url"))
        .filter_map(|r| r.get("params").and_then(|p| p.get("url")).and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// `notifications/elicitation/complete` for each accepted URL that the
/// result no longer asks for.
async fn complete_steps(request: &Request<'_>, steps: &mut [UrlStep], asked: &[String]) {
    for step in steps.iter_mut().filter(|s| s.accepted && !s.complete && !asked.contains(&s.url)) {
        step.complete = true;
        let params = json!({"elicitationId": step.id});
        request.out.send(&jsonrpc::notification(ClientNotification::ElicitationComplete.as_str(), params)).await;
    }
}

/// One question that went out, or a value known without asking.
enum Pending {
    Asked { key: String, id: String, expect: Expect, step: Option<usize>, rx: oneshot::Receiver<Answer> },
    Known { key: String, value: Value },
}

/// Sends all questions of the round at once, waits for all answers, and
/// makes the `inputResponses`.
async fn answer_round(
    request: &Request<'_>,
    inputs: &[InputRequest],
    steps: &mut Vec<UrlStep>,
) -> Result<Map<String, Value>, CallError> {
    let mut pending = Vec::with_capacity(inputs.len());
    for input in inputs {
        let (question, step) = match &input.ask {
            Ask::Url(params, url) => match url_question(request, params, url, steps) {
                Ok(pair) => pair,
                Err(why) => {
                    let key = text::shown(&input.key, text::NAME);
                    tracing::warn!(%key, %why, "the bridge refused the URL of an input request; the server gets decline");
                    pending.push(Pending::Known { key: input.key.clone(), value: json!({"action": "decline"}) });
                    continue;
                }
            },
            ask => match questions::question(ask) {
                Some(question) => (question, None),
                None => continue,
            },
        };
        let mut params = question.params;
        revision::question(question.method, &mut params, request.declared.revision);
        let (id, rx) = request.shared.asks.ask(request.out, question.method, params).await;
        pending.push(Pending::Asked { key: input.key.clone(), id, expect: question.expect, step, rx });
    }
    let ids: Vec<String> = pending
        .iter()
        .filter_map(|p| match p {
            Pending::Asked { id, .. } => Some(id.clone()),
            Pending::Known { .. } => None,
        })
        .collect();
    let mut responses = Map::new();
    let deadline = tokio::time::sleep(request.shared.config.timeouts.input);
    tokio::pin!(deadline);
    for entry in pending {
        let (key, expect, step, rx) = match entry {
            Pending::Known { key, value } => {
                responses.insert(key, value);
                continue;
            }
            Pending::Asked { key, expect, step, rx, .. } => (key, expect, step, rx),
        };
        let answer = tokio::select! {
            answer = rx => answer.unwrap_or(Answer::Invalid),
            _ = request.cancel.cancelled() => {
                let why = match request.shared.phase() {
                    Phase::Closing(None, _) => reason::INPUT_ENDED,
                    _ => reason::CLIENT_CANCELED,
                };
                request.shared.asks.withdraw(request.out, &ids, why).await;
                return Err(CallError::Canceled);
            }
            error = request.client.lost() => {
                request.shared.asks.withdraw(request.out, &ids, reason::UPSTREAM_STOPPED).await;
                return Err(CallError::Bridge(error));
            }
            _ = &mut deadline => {
                request.shared.asks.withdraw(request.out, &ids, reason::NO_ANSWER).await;
                return Err(Cause::InputTimeout.into());
            }
        };
        let value = match questions::response(&key, &expect, answer) {
            Ok(value) => value,
            Err(failure) => {
                request.shared.asks.withdraw(request.out, &ids, reason::CLIENT_CANCELED).await;
                return Err(match failure {
                    Ok(client_error) => CallError::Verbatim(client_error),
                    Err(error) => CallError::Bridge(error),
                });
            }
        };
        if let Some(index) = step {
            if value.get("action").and_then(Value::as_str) == Some("accept") {
                if let Some(step) = steps.get_mut(index) {
                    step.accepted = true;
                }
            }
        }
        responses.insert(key, value);
    }
    Ok(responses)
}

/// The question of a URL, unless the URL rule refuses it. A URL
/// whose step is open keeps its elicitation id; once the user accepted it,
/// it becomes the Continue form when the client declared forms.
fn url_question(
    request: &Request<'_>,
    params: &Map<String, Value>,
    url: &str,
    steps: &mut Vec<UrlStep>,
) -> Result<(Question, Option<usize>), Refused> {
    let url = CheckedUrl::check(url)?;
    let url = url.as_str();
    let open = steps.iter().position(|s| s.url == url && !s.complete);
    let index = match open {
        Some(index) => index,
        None => {
            let n = request.shared.elicitation_ids.fetch_add(1, Ordering::Relaxed);
            steps.push(UrlStep {
                url: url.to_owned(),
                id: format!("elicitation-{n}"),
                accepted: false,
                complete: false,
            });
            steps.len() - 1
        }
    };
    let step = &steps[index];
    if step.accepted && request.declared.form {
        return Ok((
            Question {
                method: ClientRequest::ElicitationCreate,
                params: continue_form(CONTINUE_MESSAGE),
                expect: Expect::Url,
            },
            Some(index),
        ));
    }
    let mut params = params.clone();
    // The URL that passed the gate, in the place of the one that came.
    params.insert("url".into(), Value::from(url));
    params.insert("elicitationId".into(), Value::from(step.id.as_str()));
    let method = ClientRequest::ElicitationCreate;
    Ok((Question { method, params: Value::Object(params), expect: Expect::Url }, Some(index)))
}

fn is_invalid_params(error: &Value) -> bool {
    error.get("code").and_then(Value::as_i64) == Some(code::INVALID_PARAMS)
}

/// The request-state rule: the server did not accept the saved state.
fn request_state_rule(method: Method, error: Value, waited: Duration) -> Result<Value, CallError> {
    let upstream_message = text::shown(error.get("message").and_then(Value::as_str).unwrap_or(""), text::DETAIL);
    tracing::warn!(
        waited = %format_wait(waited),
        "the upstream server did not accept the saved state of the request after the client's answers"
    );
    let last = if method == Method::ToolsCall { "Run the tool again." } else { "Send the request again." };
    let text = format!(
        "The upstream server did not accept the saved state of the request. The answer possibly came after the time limit of the state, or the server started again. Upstream message: {upstream_message}. {last}"
    );
    if method == Method::ToolsCall {
        return Ok(json!({"content": [{"type": "text", "text": text}], "isError": true}));
    }
    let mut out = Map::new();
    out.insert("code".into(), error.get("code").cloned().unwrap_or(Value::from(code::INVALID_PARAMS)));
    out.insert("message".into(), Value::from(text));
    if let Some(data) = error.get("data") {
        out.insert("data".into(), data.clone());
    }
    Err(CallError::Verbatim(Value::Object(out)))
}

/// The wait of the warning line: milliseconds below 10 s, where whole
/// seconds would hide the difference between a quick answer and a slow one.
fn format_wait(waited: Duration) -> String {
    if waited < Duration::from_secs(10) {
        format!("{} ms", waited.as_millis())
    } else {
        format!("{} s", waited.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::format_wait;
    use std::time::Duration;

    #[test]
    fn the_wait_of_the_request_state_warning_is_in_ms_below_ten_seconds() {
        for (wait, text) in [
            (Duration::from_millis(0), "0 ms"),
            (Duration::from_millis(1234), "1234 ms"),
            (Duration::from_millis(9999), "9999 ms"),
            (Duration::from_secs(10), "10 s"),
            (Duration::from_millis(754_900), "754 s"),
        ] {
            assert_eq!(format_wait(wait), text, "{wait:?}");
        }
    }
}
