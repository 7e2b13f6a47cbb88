//! The last lines of the upstream command's stderr, for `check`.
//!
//! The bridge logs each line of the child's stderr at `info`, and `check`
//! logs only warnings, so a server that fails at its start (a missing file,
//! a traceback) left nothing to read. This layer keeps the last lines
//! whatever the log's level, and `check` prints them when the server fails.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// The target of the child's stderr lines (the library's stdio transport).
pub const TARGET: &str = "upstream::stderr";
/// How many lines `check` shows.
const LINES: usize = 20;
/// The longest line shown; a terminal wraps the rest into noise.
const LINE_CHARS: usize = 400;

/// The kept lines; clones share them.
#[derive(Clone, Default)]
pub struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    /// The kept lines, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().map(|lines| lines.iter().cloned().collect()).unwrap_or_default()
    }

    fn push(&self, mut line: String) {
        if let Some((cut, _)) = line.char_indices().nth(LINE_CHARS) {
            line.truncate(cut);
            line.push_str(" [cut]");
        }
        if let Ok(mut lines) = self.0.lock() {
            if lines.len() == LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }
}

impl<S: Subscriber> Layer<S> for Tail {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let mut message = Message(None);
        event.record(&mut message);
        if let Some(text) = message.0 {
            self.push(text);
        }
    }
}

/// The `message` field of an event, as its text.
pub(super) struct Message(pub(super) Option<String>);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            // The message of `info!("{text}")` is `fmt::Arguments`, whose
            // `Debug` is its text.
            self.0 = Some(format!("{value:?}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn the_tail_keeps_the_last_lines_of_the_child_only_and_cuts_long_ones() {
        let tail = Tail::default();
        let subscriber = tracing_subscriber::registry()
            .with(tail.clone().with_filter(Targets::new().with_target(TARGET, tracing::Level::TRACE)));
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!("a line of the bridge");
            for n in 0..LINES + 5 {
                tracing::info!(target: "upstream::stderr", "line {n}");
            }
            tracing::info!(target: "upstream::stderr", "{}", "x".repeat(LINE_CHARS + 10));
        });
        let lines = tail.lines();
        assert_eq!(lines.len(), LINES);
        assert_eq!(lines[0], "line 6", "the oldest lines went first");
        assert_eq!(lines[LINES - 2], format!("line {}", LINES + 4));
        assert_eq!(lines[LINES - 1], format!("{} [cut]", "x".repeat(LINE_CHARS)));
    }
}
