//! Opening and serving one `subscriptions/listen` stream
//! (`stream` says what a stream is; the inbox routes its messages).

use super::client::Client;
use super::outgoing::{Outgoing, UpstreamMethod};
use super::pending::{Entry, Reply, Whose};
use super::stream::{Listen, StreamEnd};
use crate::jsonrpc::{self, reason, BridgeError, Cause, Id};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

/// Removes the stream's entries when the stream ends in any way, also when
/// its future is dropped.
struct Registration<'a> {
    client: &'a Client,
    id: u64,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.client.inbox().close_stream(self.id);
        self.client.transport().forget(self.id);
    }
}

impl Client {
    /// Opens a stream and serves it until it ends. Listen streams do not
    /// take a place among the requests in flight: they live as long as the
    /// connection.
    pub(crate) async fn listen(&self, listen: Listen<'_>) -> StreamEnd {
        let id = self.next_id();
        let (reply_tx, reply) = oneshot::channel();
        // Both entries go in before the line goes out.
        let entry = Entry { reply: reply_tx, progress: None, raw: false, log: Whose::Nobody };
        if let Err(err) = self.inbox().register(id, entry) {
            return StreamEnd::UpstreamEnded(err);
        }
        let mut acked = self.inbox().open_stream(id, listen.sink);
        let registration = Registration { client: self, id };
        let params = match listen.relayed {
            Some(params) => params,
            None => {
                let mut params = Map::new();
                params.insert("_meta".into(), Value::Object(self.base_meta()));
                params.insert("notifications".into(), listen.notifications);
                params
            }
        };
        let message = jsonrpc::request(&Id::number(id), UpstreamMethod::Listen.name(), Value::Object(params));
        let deadline = tokio::time::sleep(listen.ack_timeout);
        tokio::pin!(deadline);
        // The stop and the time limit also cover the write.
        tokio::select! {
            biased;
            sent = self.transport().send(Outgoing { authorization: listen.authorization, ..Outgoing::of(Some(id), UpstreamMethod::Listen, &message) }) => if let Err(err) = sent {
                return ended(Reply::Failed(err));
            },
            _ = listen.stop.stopped() => return StreamEnd::Canceled,
            _ = &mut deadline => return StreamEnd::Timeout,
        }
        let mut waiting_for_ack = true;
        let mut reply = reply;
        loop {
            tokio::select! {
                biased;
                outcome = &mut reply => {
                    return match outcome {
                        Ok(outcome) => ended(outcome),
                        Err(_) => StreamEnd::Failed(BridgeError::new(Cause::Closed)),
                    };
                }
                _ = listen.stop.stopped() => {
                    drop(registration);
                    self.cancel_upstream(id, listen.stop.reason());
                    return StreamEnd::Canceled;
                }
                changed = acked.changed(), if waiting_for_ack => {
                    waiting_for_ack = changed.is_ok() && !*acked.borrow_and_update();
                }
                _ = &mut deadline, if waiting_for_ack => {
                    drop(registration);
                    self.cancel_upstream(id, reason::TIMED_OUT);
                    return StreamEnd::Timeout;
                }
            }
        }
    }
}

fn ended(reply: Reply) -> StreamEnd {
    match reply {
        Reply::Result(_) => StreamEnd::Result,
        Reply::Raw(raw) => ended(Reply::parsed(&raw)),
        Reply::Error(error, _) => StreamEnd::Error(error),
        Reply::Failed(error) if error.cause == Cause::UpstreamExited => StreamEnd::UpstreamEnded(error),
        Reply::Failed(error)
            if error.status.is_some() || matches!(error.cause, Cause::Closed | Cause::TransportFailed) =>
        {
            StreamEnd::Lost(error)
        }
        Reply::Failed(error) => StreamEnd::Failed(error),
    }
}
