//! The log level of the client (behaviour spec, "Logging (M3)").

use serde_json::Value;

/// The levels of RFC 5424, lowest first.
pub(crate) const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// The rank of a level name; `None` for a name that is not a level.
pub(crate) fn rank(level: &str) -> Option<usize> {
    LEVELS.iter().position(|l| *l == level)
}

/// The level of valid `logging/setLevel` params.
pub(crate) fn parse_set_level(params: Option<&Value>) -> Option<&'static str> {
    let level = params?.as_object()?.get("level")?.as_str()?;
    rank(level).map(|r| LEVELS[r])
}

/// Whether a message at `level` reaches a client that chose `chosen`.
pub(crate) fn passes(level: &str, chosen: Option<&str>) -> bool {
    match (rank(level), chosen.and_then(rank)) {
        (Some(level), Some(chosen)) => level >= chosen,
        (Some(_), None) => true,
        (None, _) => false,
    }
}
