//! A sign-in after the first initialize asks the client with a URL
//! elicitation (behaviour spec, the `notifications/initialized` row: "it
//! also lets a later sign-in ask the client with a URL elicitation, when
//! the client declared elicitation.url"). Without that, or before
//! `notifications/initialized`, the sign-in cannot ask and the request
//! gets `reauthorization_required`.

use super::state::Shared;
use crate::gate::url::CheckedUrl;
use crate::input::questions::Answer;
use crate::jsonrpc::{self, reason, ClientNotification, ClientRequest};
use crate::sync::lock;
use crate::upstream::{Consent, ConsentFn, ConsentStep};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

/// The message of the question.
const MESSAGE: &str = "The upstream server needs a new sign-in. Open the URL to sign in, then return here.";

/// The message of the question of a device sign-in, with its code.
fn message(code: Option<&str>) -> String {
    match code {
        None => MESSAGE.to_owned(),
        Some(code) => format!(
            "The upstream server needs a new sign-in. Open the URL, enter the code {code} if it asks for one, then return here."
        ),
    }
}

/// The consent function of the upstream client of this connection. It
/// holds the connection weakly: the connection owns the client.
pub(crate) fn ask_fn(shared: &Arc<Shared>, declared_url: bool) -> ConsentFn {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let step: Arc<Mutex<Option<String>>> = Arc::default();
    Arc::new(move |request: ConsentStep| {
        let (weak, step) = (weak.clone(), step.clone());
        Box::pin(async move {
            let Some(shared) = weak.upgrade() else { return Consent::CannotAsk };
            let can_ask = declared_url && shared.initialized();
            match request {
                ConsentStep::CanAsk if can_ask => Consent::Accepted,
                ConsentStep::Ask { url, code } if can_ask => ask(&shared, &step, url, code.as_deref()).await,
                ConsentStep::CanAsk | ConsentStep::Ask { .. } => Consent::CannotAsk,
                ConsentStep::Done => {
                    // The sign-in is over: VS Code hides the URL.
                    let done = lock(&step).take();
                    if let Some(id) = done {
                        let params = json!({"elicitationId": id});
                        let complete = ClientNotification::ElicitationComplete.as_str();
                        shared.out.send(&jsonrpc::notification(complete, params)).await;
                    }
                    Consent::CannotAsk
                }
            }
        })
    })
}

async fn ask(shared: &Shared, step: &Mutex<Option<String>>, url: CheckedUrl, code: Option<&str>) -> Consent {
    let n = shared.elicitation_ids.fetch_add(1, Ordering::Relaxed);
    let id = format!("elicitation-{n}");
    let params = json!({"mode": "url", "message": message(code), "url": url.as_str(), "elicitationId": id});
    let (question, answer) = shared.asks.ask(&shared.out, ClientRequest::ElicitationCreate, params).await;
    let answer = match tokio::time::timeout(shared.config.timeouts.input, answer).await {
        Ok(answer) => answer.unwrap_or(Answer::Invalid),
        Err(_) => {
            shared.asks.withdraw(&shared.out, &[question], reason::NO_ANSWER).await;
            return Consent::CannotAsk;
        }
    };
    let action = match &answer {
        Answer::Result(result) => result.get("action").and_then(Value::as_str),
        _ => None,
    };
    match action {
        Some("accept") => {
            *lock(step) = Some(id);
            Consent::Accepted
        }
        Some("decline") => Consent::Declined,
        _ => Consent::CannotAsk,
    }
}
