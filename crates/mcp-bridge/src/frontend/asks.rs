//! The requests of the bridge to the client (behaviour spec, "Pending
//! requests of the bridge"). Each question gets an id with the prefix of
//! the profile, such as `b-1`, and an entry before it goes out; the reader
//! of the client delivers each answer at once.

use crate::input::questions::Answer;
use crate::jsonrpc::{self, ClientNotification, ClientRequest, Id};
use crate::output::Output;
use crate::sync::lock;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tokio::sync::oneshot;

/// The table of questions without an answer.
pub(crate) struct Asks {
    prefix: String,
    next: AtomicU64,
    entries: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
}

impl Asks {
    pub(crate) fn new(prefix: &str) -> Self {
        Asks { prefix: prefix.to_owned(), next: AtomicU64::new(1), entries: Mutex::default() }
    }

    /// Sends a question; the entry is in the table before the line goes out.
    pub(crate) async fn ask(
        &self,
        out: &Output,
        method: ClientRequest,
        params: Value,
    ) -> (String, oneshot::Receiver<Answer>) {
        let id = format!("{}{}", self.prefix, self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.entries).insert(id.clone(), tx);
        out.send(&jsonrpc::request(&Id::string(id.as_str()), method.as_str(), params)).await;
        (id, rx)
    }

    /// Delivers an answer; `false` for an id that is unknown or already
    /// resolved (the caller drops it with a debug line).
    pub(crate) fn deliver(&self, id: &str, answer: Answer) -> bool {
        match lock(&self.entries).remove(id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Withdraws questions: the entries go first, then each question that
    /// had no answer gets `notifications/cancelled` with the reason.
    pub(crate) async fn withdraw(&self, out: &Output, ids: &[String], reason: &str) {
        let unanswered: Vec<&String> = {
            let mut entries = lock(&self.entries);
            ids.iter().filter(|id| entries.remove(id.as_str()).is_some()).collect()
        };
        for id in unanswered {
            let params = json!({"requestId": id, "reason": reason});
            out.send(&jsonrpc::notification(ClientNotification::Cancelled.as_str(), params)).await;
        }
    }
}
