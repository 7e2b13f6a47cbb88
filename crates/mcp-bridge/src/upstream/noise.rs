//! A line on a stdio server's stdout that is no JSON-RPC message at all: a
//! banner, a log line, a `print` left in. Its rules stay those of "Lines
//! that are not valid" (dropped, or the error of the request whose id it
//! shows); only the warning differs: it quotes the start of the line,
//! through the gate, and says where such text belongs.

use crate::gate::text;
use crate::jsonrpc::Cause;

/// The target of the warning. `check` watches it (its own copy of the
/// name, as for the child's stderr) and stops waiting for a server that
/// writes such lines.
pub(super) const TARGET: &str = "upstream::stdout";

/// The most bytes of a line that the quote reads: enough for the gate's
/// bound of characters however wide they are.
const READ: usize = 4 * text::DETAIL;

/// The start of `line` as the warning shows it, when the line is no
/// JSON-RPC message at all: not JSON (`parse_error`), or JSON without a
/// `jsonrpc` member. `None` for a message that only breaks a rule of
/// JSON-RPC, which the usual warning covers.
pub(super) fn quote(line: &[u8], cause: Cause) -> Option<String> {
    let noise = match cause {
        Cause::ParseError => true,
        Cause::InvalidRequestShape => memchr::memmem::find(line, b"\"jsonrpc\"").is_none(),
        _ => false,
    };
    if !noise {
        return None;
    }
    let (start, rest) = line.split_at(line.len().min(READ));
    let cut = !rest.is_empty();
    // The cut can split a character: up to the last whole one.
    let start = match std::str::from_utf8(start) {
        Ok(start) => std::borrow::Cow::Borrowed(start),
        Err(err) if cut && err.error_len().is_none() => String::from_utf8_lossy(&start[..err.valid_up_to()]),
        Err(_) => String::from_utf8_lossy(start),
    };
    // A CRLF line's `\r` is no part of what the server meant to write.
    let start = if cut { &*start } else { start.strip_suffix('\r').unwrap_or(&start) };
    let mut quote = text::escape(start, text::DETAIL);
    // Wide characters can fill the bytes read before the gate's bound.
    if cut && !quote.ends_with('…') {
        quote.push('…');
    }
    Some(quote)
}

/// Logs the warning of a line that [`quote`] quoted; `request` tells
/// whether a request in flight got the line as its answer.
pub(super) fn warn(quote: &str, cause: Cause, request: bool) {
    tracing::warn!(
        target: TARGET,
        cause = cause.name(),
        request,
        "the upstream server wrote a line to stdout that is not a JSON-RPC message: \"{quote}\"; \
         a stdio server must write only JSON-RPC messages to stdout; logs go to stderr"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A banner or a log line is quoted, escaped and bounded; a message
    /// that is JSON-RPC, though not valid, is not noise.
    #[test]
    fn only_a_line_that_is_no_json_rpc_message_is_quoted_escaped_and_bounded() {
        for (line, cause, want) in [
            (&b"Starting my server v1.0 ..."[..], Cause::ParseError, Some("Starting my server v1.0 ...".to_owned())),
            (b"Ready\r", Cause::ParseError, Some("Ready".to_owned())),
            (b"Ready\r\r", Cause::ParseError, Some("Ready\\r".to_owned())),
            (b"end \xf0\x9f\x98", Cause::ParseError, Some("end \u{fffd}".to_owned())),
            (b"\x1b[32mok\x1b[0m \xff", Cause::ParseError, Some("\\x1b[32mok\\x1b[0m \u{fffd}".to_owned())),
            (
                br#"{"level":"info","msg":"up"}"#,
                Cause::InvalidRequestShape,
                Some(r#"{"level":"info","msg":"up"}"#.to_owned()),
            ),
            (br#"{"jsonrpc":"2.0","result":{}}"#, Cause::InvalidRequestShape, None),
            (b"[[[[", Cause::TooDeep, None),
        ] {
            assert_eq!(quote(line, cause), want, "{:?}", String::from_utf8_lossy(line));
        }
        let long = "é".repeat(3 * text::DETAIL);
        assert_eq!(quote(long.as_bytes(), Cause::ParseError), Some(format!("{}…", "é".repeat(text::DETAIL))));
        // Characters of four bytes fill the bytes read at the bound: the
        // quote still says it was cut, and splits no character.
        let wide = "😀".repeat(2 * text::DETAIL);
        assert_eq!(quote(wide.as_bytes(), Cause::ParseError), Some(format!("{}…", "😀".repeat(text::DETAIL))));
        let split = format!("x{}", "😀".repeat(text::DETAIL));
        assert_eq!(quote(split.as_bytes(), Cause::ParseError), Some(format!("x{}…", "😀".repeat(text::DETAIL - 1))));
    }
}
