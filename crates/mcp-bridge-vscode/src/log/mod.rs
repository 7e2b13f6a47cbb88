//! Log lines on stderr, tagged with the profile name. VS Code shows them in
//! the Output channel of the server. Stdout is the protocol: nothing else
//! writes there.

mod fields;
mod line;
mod pipe;
mod stdout;
mod tail;

pub use stdout::Stdout;
pub use tail::Tail;

use std::fmt::{self, Write as _};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::FormattedFields;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// `tag LEVEL message key=value... span-fields...`: the fields of the spans
/// around the event (the id and method of its request) come last.
struct Tagged(&'static str);

impl<S, N> FormatEvent<S, N> for Tagged
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let meta = event.metadata();
        let source = if meta.target().starts_with("mcp_bridge::upstream::stderr") || meta.target() == "upstream::stderr"
        {
            " upstream:"
        } else {
            ""
        };
        write!(writer, "[{}] {}{} ", self.0, meta.level(), source)?;
        let mut one_line = line::OneLine(writer.by_ref());
        ctx.field_format().format_fields(Writer::new(&mut one_line), event)?;
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<N>>().filter(|f| !f.is_empty()) {
                    write!(one_line, " {fields}")?;
                }
            }
        }
        writeln!(writer)
    }
}

/// Installs the logger. `MCP_BRIDGE_LOG` (a level such as `debug`)
/// changes the level; the default is `default_level`. The lines that are
/// still buffered go out when the guard drops.
#[must_use = "the guard writes the last lines when it drops"]
pub fn init(tag: &'static str, default_level: Level) -> pipe::Guard {
    let (writer, guard) = pipe::start(tag);
    tracing_subscriber::registry().with(filter(default_level)).with(lines(tag, writer)).init();
    guard
}

/// The layer that writes the log's lines, `tag LEVEL message fields`.
fn lines<S>(
    tag: &'static str,
    writer: pipe::Pipe,
) -> tracing_subscriber::fmt::Layer<S, fields::Fields, Tagged, pipe::Pipe>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(false)
        .event_format(Tagged(tag))
        .fmt_fields(fields::Fields)
}

/// The logger of `check`: the same lines as [`init`], and beside them,
/// at any level, the last lines of the upstream command's stderr, for the
/// report of a server that fails, and the lines of its stdout that are no
/// JSON-RPC message, which the report shows instead of the log.
#[must_use = "the guard writes the last lines when it drops"]
pub fn init_check(tag: &'static str, default_level: Level) -> (pipe::Guard, Tail, Stdout) {
    let (writer, guard) = pipe::start(tag);
    let tail = Tail::default();
    let stdout = Stdout::default();
    let lines = lines(tag, writer).with_filter(stdout.log_filter(filter(default_level)));
    let stderr = tail.clone().with_filter(Targets::new().with_target(tail::TARGET, tracing::Level::TRACE));
    tracing_subscriber::registry().with(lines).with(stderr).init();
    (guard, tail, stdout)
}

/// The levels of the log: `MCP_BRIDGE_LOG` when it reads as a list of
/// targets and levels (`debug`, `mcp_bridge::upstream=trace,info`), else
/// `default_level`. Targets and levels only, not `EnvFilter`'s span and
/// field filters: an `EnvFilter` looks up every span it is asked about
/// under a lock, each time a request's task runs, and those filters were
/// never documented.
fn filter(default_level: Level) -> Targets {
    levels(std::env::var("MCP_BRIDGE_LOG").ok().as_deref(), default_level)
}

/// The levels of `wanted`; the targets it does not name keep
/// `default_level` unless it sets a level for all (a word that is no level,
/// such as `debgu`, names a target, and must not silence the log).
fn levels(wanted: Option<&str>, default_level: Level) -> Targets {
    let targets: Targets = wanted.and_then(|text| text.parse().ok()).unwrap_or_default();
    match targets.default_level() {
        Some(_) => targets,
        None => targets.with_default(default_level),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MCP_BRIDGE_LOG` (README, "Command line"): a level, or targets with
    /// levels; what it does not set keeps the default.
    #[test]
    fn the_log_variable_gives_a_level_or_targets_and_else_the_default() {
        let debug = levels(Some("debug"), Level::INFO);
        assert!(debug.would_enable("mcp_bridge::frontend", &Level::DEBUG));
        assert!(!debug.would_enable("mcp_bridge::frontend", &Level::TRACE));
        let targets = levels(Some("mcp_bridge::upstream=trace,warn"), Level::INFO);
        assert!(targets.would_enable("mcp_bridge::upstream::stdio", &Level::TRACE));
        assert!(!targets.would_enable("mcp_bridge::frontend", &Level::INFO));
        assert!(targets.would_enable("mcp_bridge::frontend", &Level::WARN));
        let some = levels(Some("mcp_bridge::upstream=trace"), Level::INFO);
        assert!(some.would_enable("mcp_bridge::upstream", &Level::TRACE));
        assert!(some.would_enable("mcp_bridge::frontend", &Level::INFO));
        assert!(!some.would_enable("mcp_bridge::frontend", &Level::DEBUG));
        for unset in [None, Some("debgu"), Some("loud=much")] {
            let default = levels(unset, Level::WARN);
            assert!(default.would_enable("mcp_bridge::frontend", &Level::WARN), "{unset:?}");
            assert!(!default.would_enable("mcp_bridge::frontend", &Level::INFO), "{unset:?}");
        }
    }
}
