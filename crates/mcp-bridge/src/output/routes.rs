//! The streams of a client whose link has more than one (an HTTP session):
//! each request's own stream (the response to its POST, and what relates
//! to it: progress, questions, log lines of its rounds), and the session's
//! stream for the rest (list changes, resource updates, the questions of a
//! later sign-in), which a GET reads while one is open.
//!
//! Nothing here waits for a reader: a stream whose queue is full is closed
//! (its reader was too slow), and the session's backlog drops what it
//! cannot hold while no GET reads it. One client's slow reader never holds
//! the front end, and never grows the bridge's memory.

use crate::jsonrpc::IdKey;
use crate::pipe::Line;
use crate::sync::lock;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a stream carries.
#[derive(Debug)]
pub(crate) enum Event {
    /// A request or a notification for the client.
    Message(Line),
    /// The response of one of the stream's requests.
    Response(Line),
}

/// The queue of one request stream, in messages.
const STREAM_QUEUE: usize = 256;

/// One request stream: its queue, and whether messages that relate to its
/// requests may go on it (an SSE response; a JSON response takes only the
/// response).
struct Stream {
    tx: mpsc::Sender<Event>,
    related: bool,
}

/// The streams of one client.
pub(crate) struct Routes {
    /// The stream of each request in flight that has one, by id. A stream
    /// ends (its sender drops) once none of its requests is left.
    requests: Mutex<HashMap<IdKey, VecDeque<Arc<Stream>>>>,
    /// The session's stream: its sender, and its receiver while no GET
    /// reads it.
    session: mpsc::Sender<Event>,
    backlog: Mutex<Option<mpsc::Receiver<Event>>>,
    /// Stops the GET that reads the session's stream, while one does.
    reading: Mutex<Option<CancellationToken>>,
    /// A response without a stream of its own goes on the session's: the
    /// HTTP+SSE transport of 2024-11-05 has one stream for everything.
    one_stream: bool,
}

impl Routes {
    /// The routes of a new client whose session stream holds at most
    /// `backlog` messages while nobody reads it; `one_stream`: the session's
    /// stream carries the responses too.
    pub(crate) fn new(backlog: usize, one_stream: bool) -> Arc<Routes> {
        let (session, rx) = mpsc::channel(backlog.max(1));
        Arc::new(Routes {
            requests: Mutex::default(),
            session,
            backlog: Mutex::new(Some(rx)),
            reading: Mutex::default(),
            one_stream,
        })
    }

    /// A stream for the requests `ids` of one POST, registered before the
    /// front end sees them; `related`: whether their questions and progress
    /// may come on it.
    pub(crate) fn open(&self, ids: &[IdKey], related: bool) -> mpsc::Receiver<Event> {
        // Room for every response of a batch, beside what relates to them.
        let (tx, rx) = mpsc::channel(STREAM_QUEUE + ids.len());
        let stream = Arc::new(Stream { tx, related });
        let mut requests = lock(&self.requests);
        for id in ids {
            // A client that repeats an id in flight gets each response on
            // the stream of its own request, in turn.
            requests.entry(id.clone()).or_default().push_back(stream.clone());
        }
        rx
    }

    /// The session's stream for a GET, and what stops the GET (a reader
    /// too slow for the session's stream); `None` while another GET reads
    /// it. Give it back with [`Routes::give_back`] when the GET ends.
    pub(crate) fn take_session(&self) -> Option<(mpsc::Receiver<Event>, CancellationToken)> {
        let rx = lock(&self.backlog).take()?;
        let stop = CancellationToken::new();
        *lock(&self.reading) = Some(stop.clone());
        Some((rx, stop))
    }

    pub(crate) fn give_back(&self, rx: mpsc::Receiver<Event>) {
        *lock(&self.reading) = None;
        *lock(&self.backlog) = Some(rx);
    }

    /// The response of request `id`: on its stream, which ends with its
    /// last request; `Err` gives it back when the request has no stream.
    pub(crate) fn respond(&self, id: &IdKey, line: Line) -> Result<(), Line> {
        let Some(stream) = self.take(id) else {
            if self.one_stream {
                if self.session.try_send(Event::Response(line)).is_err() {
                    tracing::warn!("dropped a response: the session's stream is full");
                }
                return Ok(());
            }
            return Err(line);
        };
        if stream.tx.try_send(Event::Response(line)).is_err() {
            self.close_slow(&stream);
        }
        Ok(())
    }

    /// Request `id` ends without a response (canceled): its stream stops
    /// waiting for it.
    pub(crate) fn forget(&self, id: &IdKey) {
        self.take(id);
    }

    /// The stream of the first request of `id` in flight, which leaves the
    /// table.
    fn take(&self, id: &IdKey) -> Option<Arc<Stream>> {
        let mut requests = lock(&self.requests);
        let streams = requests.get_mut(id)?;
        let stream = streams.pop_front();
        if streams.is_empty() {
            requests.remove(id);
        }
        stream
    }

    /// A message that relates to request `id` (`None`: to none): on the
    /// request's stream when it takes such messages, else on the session's.
    pub(crate) fn send(&self, id: Option<&IdKey>, line: Line) {
        let stream =
            id.and_then(|id| lock(&self.requests).get(id).and_then(|s| s.front().cloned())).filter(|s| s.related);
        match stream {
            Some(stream) => {
                if stream.tx.try_send(Event::Message(line)).is_err() {
                    self.close_slow(&stream);
                }
            }
            None => {
                if self.session.try_send(Event::Message(line)).is_err() {
                    match lock(&self.reading).take() {
                        // Its reader does not keep up: the GET closes, and
                        // the client that opens the next one reads the rest.
                        Some(stop) => {
                            tracing::warn!("closed the session's stream of a client: its reader is too slow");
                            stop.cancel();
                        }
                        None => tracing::debug!(
                            "dropped a message of the session: nobody reads its stream, and its backlog is full"
                        ),
                    }
                }
            }
        }
    }

    /// The session ended: every request stream ends now, answered or not.
    pub(crate) fn close(&self) {
        lock(&self.requests).clear();
    }

    /// A reader too slow for its stream: the stream closes, and its
    /// requests go on without it (their responses have no stream left).
    fn close_slow(&self, stream: &Arc<Stream>) {
        tracing::warn!("closed a stream of the client: its reader is too slow");
        let mut requests = lock(&self.requests);
        requests.values_mut().for_each(|streams| streams.retain(|s| !Arc::ptr_eq(s, stream)));
        requests.retain(|_, streams| !streams.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(event: Option<Event>) -> Option<(bool, String)> {
        event.map(|event| match event {
            Event::Message(Line::Text(t)) => (false, String::from_utf8_lossy(&t).into_owned()),
            Event::Response(Line::Text(t)) => (true, String::from_utf8_lossy(&t).into_owned()),
            other => (false, format!("{other:?}")),
        })
    }

    fn line(text: &str) -> Line {
        Line::Text(text.as_bytes().to_vec())
    }

    /// A request's stream takes its related messages and its response, and
    /// ends after the response of its last request; what relates to no
    /// open stream goes to the session's.
    #[tokio::test]
    async fn a_requests_stream_carries_what_relates_to_it_and_ends_with_its_last_response() {
        let routes = Routes::new(8, false);
        let mut post = routes.open(&["1".into(), "2".into()], true);
        routes.send(Some(&"1".into()), line("progress"));
        routes.send(None, line("list changed"));
        routes.send(Some(&"9".into()), line("of another"));
        assert!(routes.respond(&"1".into(), line("r1")).is_ok());
        assert!(routes.respond(&"1".into(), line("again")).is_err(), "answered once");
        routes.forget(&"2".into());
        assert_eq!(text(post.recv().await), Some((false, "progress".into())));
        assert_eq!(text(post.recv().await), Some((true, "r1".into())));
        assert!(post.recv().await.is_none(), "the stream ended with its requests");
        let Some((mut session, _)) = routes.take_session() else { panic!("the session's stream is free") };
        assert_eq!(text(session.try_recv().ok()), Some((false, "list changed".into())));
        assert_eq!(text(session.try_recv().ok()), Some((false, "of another".into())));
        assert!(routes.take_session().is_none(), "one reader at a time");
        routes.give_back(session);
        assert!(routes.take_session().is_some());
    }

    /// A JSON response takes no related message; a stream whose reader
    /// does not keep up is closed; a full backlog drops, never waits.
    #[tokio::test]
    async fn nothing_waits_for_a_slow_reader() {
        let routes = Routes::new(1, false);
        let mut json = routes.open(&["1".into()], false);
        routes.send(Some(&"1".into()), line("question"));
        routes.send(None, line("dropped: the backlog is full"));
        assert!(routes.respond(&"1".into(), line("r")).is_ok());
        assert_eq!(text(json.recv().await), Some((true, "r".into())));
        let Some((mut session, _)) = routes.take_session() else { panic!("the session's stream is free") };
        assert_eq!(text(session.try_recv().ok()), Some((false, "question".into())));
        assert!(session.try_recv().is_err(), "the second message was dropped");
        // A stream of one request holds its response beside the queue.
        let slow = routes.open(&["2".into()], true);
        for _ in 0..=STREAM_QUEUE + 1 {
            routes.send(Some(&"2".into()), line("progress"));
        }
        assert!(routes.respond(&"2".into(), line("late")).is_err(), "the slow stream was closed");
        drop(slow);
        // The session's stream, read by a GET that does not keep up: the
        // GET is stopped, and the messages wait for the next.
        routes.give_back(session);
        let Some((_reader, stop)) = routes.take_session() else { panic!("the session's stream is free") };
        routes.send(None, line("fills the backlog"));
        assert!(!stop.is_cancelled());
        routes.send(None, line("one too many"));
        assert!(stop.is_cancelled(), "the slow GET is stopped");
    }
}
