//! The lines that the upstream command wrote to stdout and that are no
//! JSON-RPC message at all (a banner, a log line), for `check`.
//!
//! The bridge drops each such line with a warning that quotes it. `check`
//! keeps the first warning and the count whatever the log's level, so that
//! it can stop waiting for a server that will never answer in between, and
//! report the line.

use super::tail::Message;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// The target of the library's warning (`mcp_bridge::upstream::noise`).
pub const TARGET: &str = "upstream::stdout";

/// The first warning and the count; clones share them.
#[derive(Clone)]
pub struct Stdout {
    first: watch::Sender<Option<String>>,
    count: Arc<Mutex<usize>>,
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout { first: watch::channel(None).0, count: Arc::default() }
    }
}

impl Stdout {
    /// The first warning, once there is one.
    pub async fn first(&self) -> String {
        let mut rx = self.first.subscribe();
        loop {
            if let Some(first) = rx.borrow_and_update().clone() {
                return first;
            }
            if rx.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }

    /// The first warning and how many lines there were.
    pub fn seen(&self) -> Option<(String, usize)> {
        let first = self.first.borrow().clone()?;
        Some((first, self.count.lock().map(|n| *n).unwrap_or(1)))
    }

    fn push(&self, text: String) {
        if let Ok(mut count) = self.count.lock() {
            *count += 1;
        }
        self.first.send_if_modified(|first| {
            if first.is_some() {
                return false;
            }
            *first = Some(text);
            true
        });
    }
}

impl<S: Subscriber> Layer<S> for Stdout {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let mut message = Message(None);
        event.record(&mut message);
        if let Some(text) = message.0 {
            self.push(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn the_first_warning_of_the_target_is_kept_and_every_one_counted() {
        let stdout = Stdout::default();
        let subscriber = tracing_subscriber::registry()
            .with(stdout.clone().with_filter(Targets::new().with_target(TARGET, tracing::Level::TRACE)));
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!("a warning of the bridge");
            tracing::warn!(target: "upstream::stdout", "first {}", 1);
            tracing::warn!(target: "upstream::stdout", "second");
        });
        assert_eq!(stdout.seen(), Some(("first 1".to_owned(), 2)));
    }
}
