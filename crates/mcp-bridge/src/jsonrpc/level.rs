//! The log levels of RFC 5424 as MCP names them (behaviour spec, "Logging
//! (M3)"): one type from the client's `logging/setLevel` to the upstream's
//! `_meta` and back to the check of each log message.

use serde_json::Value;

/// A log level, lowest first: the order is the rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LoggingLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LoggingLevel {
    const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The level of a name; `None` for a name that is not a level.
    pub(crate) fn parse(name: &str) -> Option<LoggingLevel> {
        LoggingLevel::ALL.into_iter().find(|level| level.name() == name)
    }

    /// Its name in the protocol.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }

    /// The level of valid `logging/setLevel` params.
    pub(crate) fn of_set_level(params: Option<&Value>) -> Option<LoggingLevel> {
        LoggingLevel::parse(params?.as_object()?.get("level")?.as_str()?)
    }

    /// Whether a message at the level named `level` reaches a client that
    /// chose `chosen` (every level, when it chose none).
    pub(crate) fn passes(level: &str, chosen: Option<LoggingLevel>) -> bool {
        match (LoggingLevel::parse(level), chosen) {
            (Some(level), Some(chosen)) => level >= chosen,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LoggingLevel;
    use serde_json::json;

    #[test]
    fn the_levels_of_rfc_5424_rank_from_debug_to_emergency() {
        let names = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
        let levels: Vec<LoggingLevel> = names.iter().filter_map(|n| LoggingLevel::parse(n)).collect();
        assert_eq!(levels.iter().map(|l| l.name()).collect::<Vec<_>>(), names);
        assert!(levels.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(LoggingLevel::parse("warn"), None);
        assert_eq!(LoggingLevel::of_set_level(Some(&json!({"level": "error"}))), Some(LoggingLevel::Error));
        assert_eq!(LoggingLevel::of_set_level(Some(&json!({"level": 3}))), None);
        assert!(
            LoggingLevel::passes("error", Some(LoggingLevel::Warning))
                && !LoggingLevel::passes("info", Some(LoggingLevel::Warning))
        );
        assert!(LoggingLevel::passes("debug", None) && !LoggingLevel::passes("verbose", None));
    }
}
