//! The lines that the upstream command wrote to stdout and that are no
//! JSON-RPC message at all (a banner, a log line), for `check`.
//!
//! The bridge drops each such line with a warning that quotes it. `check`
//! keeps the first warning and the count whatever the log's level, so that
//! it can stop waiting for a server that will never answer in between, and
//! report the line. The report is where they show: the log of `check`
//! writes only those that come after the report has shown them (a line the
//! server writes as it exits), so that none shows twice and none is lost.

use super::tail::Message;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{Event, Metadata};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, Filter};

/// The target of the library's warning (`mcp_bridge::upstream::noise`).
pub const TARGET: &str = "upstream::stdout";

/// The first warning and the count; clones share them.
#[derive(Clone)]
pub struct Stdout {
    first: watch::Sender<Option<String>>,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    count: usize,
    /// The report has shown the lines: the log writes the later ones.
    reported: bool,
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout { first: watch::channel(None).0, state: Arc::default() }
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

    /// For the report, once: the first warning and how many lines there
    /// were, if any. From then on the log writes the warnings.
    pub fn report(&self) -> Option<(String, usize)> {
        let mut state = self.state.lock().ok()?;
        if std::mem::replace(&mut state.reported, true) {
            return None;
        }
        let first = self.first.borrow().clone()?;
        Some((first, state.count))
    }

    /// The filter of the log of `check`: `levels`, but a warning of
    /// [`TARGET`] goes to the report until [`Stdout::report`].
    pub fn log_filter(&self, levels: Targets) -> LogFilter {
        LogFilter { levels, stdout: self.clone() }
    }

    /// Keeps the warning for the report; false once the report has shown
    /// the lines. One lock decides both, so that a line that comes as the
    /// report is written is either in it or in the log.
    fn keep(&self, event: &Event<'_>) -> bool {
        let Ok(mut state) = self.state.lock() else { return false };
        if state.reported {
            return false;
        }
        let mut message = Message(None);
        event.record(&mut message);
        let Some(text) = message.0 else { return false };
        state.count += 1;
        self.first.send_if_modified(|first| {
            if first.is_some() {
                return false;
            }
            *first = Some(text);
            true
        });
        true
    }
}

/// See [`Stdout::log_filter`].
pub struct LogFilter {
    levels: Targets,
    stdout: Stdout,
}

impl<S> Filter<S> for LogFilter {
    fn enabled(&self, meta: &Metadata<'_>, cx: &Context<'_, S>) -> bool {
        // A warning of the target reaches `event_enabled` at any level.
        meta.target() == TARGET || Filter::<S>::enabled(&self.levels, meta, cx)
    }

    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        if meta.target() == TARGET {
            // Before the report and after it differ: asked at each event.
            Interest::sometimes()
        } else {
            Filter::<S>::callsite_enabled(&self.levels, meta)
        }
    }

    fn event_enabled(&self, event: &Event<'_>, _: &Context<'_, S>) -> bool {
        let meta = event.metadata();
        meta.target() != TARGET || (!self.stdout.keep(event) && self.levels.would_enable(TARGET, meta.level()))
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Filter::<S>::max_level_hint(&self.levels).map(|hint| hint.max(LevelFilter::WARN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::Tail;
    use tracing::Level;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::Layer;

    /// Before the report, the warnings of the target are kept (the first)
    /// and counted, whatever the level, and the log gets none; after it,
    /// the log gets them at its level. Other events follow the levels.
    #[test]
    fn the_warnings_of_the_target_go_to_the_report_and_after_it_to_the_log() {
        for (levels, after) in [(Level::WARN, vec!["after the report"]), (Level::ERROR, vec![])] {
            let stdout = Stdout::default();
            let log = Tail::default();
            let filter = stdout.log_filter(Targets::new().with_default(levels));
            let subscriber = tracing_subscriber::registry().with(log.clone().with_filter(filter));
            tracing::subscriber::with_default(subscriber, || {
                tracing::warn!("a warning of the bridge");
                tracing::info!("an info of the bridge");
                tracing::warn!(target: "upstream::stdout", "first {}", 1);
                tracing::warn!(target: "upstream::stdout", "second");
                assert_eq!(stdout.report(), Some(("first 1".to_owned(), 2)));
                assert_eq!(stdout.report(), None, "once");
                tracing::warn!(target: "upstream::stdout", "after the report");
            });
            let mut expected = if levels == Level::WARN { vec!["a warning of the bridge"] } else { vec![] };
            expected.extend(after);
            assert_eq!(log.lines(), expected, "{levels}");
        }
    }

    #[test]
    fn a_report_before_any_line_has_none_and_sends_the_later_ones_to_the_log() {
        let stdout = Stdout::default();
        let log = Tail::default();
        let filter = stdout.log_filter(Targets::new().with_default(Level::WARN));
        let subscriber = tracing_subscriber::registry().with(log.clone().with_filter(filter));
        tracing::subscriber::with_default(subscriber, || {
            assert_eq!(stdout.report(), None);
            tracing::warn!(target: "upstream::stdout", "at the exit");
        });
        assert_eq!(log.lines(), ["at the exit"]);
    }
}
