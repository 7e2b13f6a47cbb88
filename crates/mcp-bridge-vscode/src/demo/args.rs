//! The arguments of the demo's tools, read as a model sends them: each
//! error is a sentence for the model to read and correct.

use rmcp::model::JsonObject;

/// A number argument; the error is for the model to read.
pub(super) fn number(args: Option<&JsonObject>, name: &str) -> Result<f64, String> {
    match args.and_then(|a| a.get(name)) {
        Some(value) => value.as_f64().ok_or_else(|| format!("`{name}` must be a number")),
        None => Err(format!("`{name}` is required")),
    }
}

/// An integer argument within `0..=max`, or `default` when it is absent.
pub(super) fn integer(args: Option<&JsonObject>, name: &str, default: Option<u64>, max: u64) -> Result<u64, String> {
    let value = match (args.and_then(|a| a.get(name)), default) {
        (Some(value), _) => value.as_u64(),
        (None, Some(default)) => Some(default),
        (None, None) => return Err(format!("`{name}` is required")),
    };
    value.filter(|v| *v <= max).ok_or_else(|| format!("`{name}` must be an integer from 0 to {max}"))
}
