//! Framing: newline-delimited JSON-RPC with limits (behaviour spec,
//! "Forwarded requests (M1)" limits and "Lines that are not valid").
//!
//! Check, then parse: a line goes through the bounded reader, then the
//! depth pre-scan, and only then to `serde_json`. A line that fails a
//! check still yields its id when one can be sniffed from its bytes, so
//! that the error goes to the right request.

mod depth;
mod kept;
mod reader;
mod request;
mod sniff;
mod writer;

pub(crate) use depth::exceeds_depth;
pub(crate) use depth::skip_string;
pub(crate) use kept::KeptBuffer;
pub(crate) use reader::{Frame, LineReader};
pub(crate) use request::{has_surrogate_escape, Envelope};
pub(crate) use sniff::{sniff_id, sniff_id_at_end, sniff_id_at_start};
pub(crate) use writer::{write_lines, Line};

use crate::jsonrpc::{BridgeError, Cause, Id, Message};

/// The nesting limit of a message of the client.
pub(crate) const MAX_DEPTH: usize = 64;

/// The most levels `serde_json` parses: its recursion limit of 128 fails
/// at the 128th level. A test below holds it to that.
pub(crate) const PARSER_MAX_DEPTH: usize = 127;

/// The size the bridge asks for its pipes (Linux's `pipe-max-size` by
/// default).
pub(crate) const PIPE_BYTES: usize = 1 << 20;

/// Asks for a pipe of 1 MiB instead of the 64 KiB default: a big
/// line then crosses with a sixteenth of the reads, writes and wake-ups.
/// Linux only; a descriptor that is no pipe, or a refusal (a limit lower
/// than 1 MiB), leaves the pipe as it was.
#[cfg(target_os = "linux")]
pub fn widen_pipe(fd: impl std::os::fd::AsFd) {
    if let Err(err) = rustix::pipe::fcntl_setpipe_size(fd, PIPE_BYTES) {
        tracing::debug!(error = %err, "the pipe keeps its size");
    }
}

/// Other systems keep their pipes as they are.
#[cfg(not(target_os = "linux"))]
pub fn widen_pipe<T>(_fd: T) {}

/// What one line of a peer is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decoded {
    /// A message with a valid envelope.
    Message(Message),
    /// A line that failed a check. `id` is the sniffed id, when valid.
    Bad { id: Option<Id>, error: BridgeError },
}

/// Decodes one frame; `None` for a blank line, which the framer skips.
pub(crate) fn decode(frame: &Frame, max_line_bytes: usize, max_depth: usize) -> Option<Decoded> {
    let line = match frame {
        Frame::TooLong { head, tail } => {
            let id = sniff_id_at_start(head).or_else(|| sniff_id_at_end(tail));
            let error = BridgeError::new(Cause::LineTooLong).with_detail(format!("limit: {max_line_bytes} bytes"));
            return Some(Decoded::Bad { id, error });
        }
        Frame::Line(line) => line.as_slice(),
    };
    if is_blank(line) {
        return None;
    }
    // The depth pre-scan costs a walk of the whole line. When the limit is
    // at or above the parser's own, a line that parses is within the limit
    // (`serde_json` accepts at most `PARSER_MAX_DEPTH` levels), so the scan
    // is needed only for a line that fails: then it tells `too_deep` from
    // `parse_error`, as it did when it came first.
    let checked_depth = max_depth < PARSER_MAX_DEPTH;
    let parsed = if checked_depth && exceeds_depth(line, max_depth) {
        None
    } else {
        // A request (the client's most common line) is read without the
        // tree of its envelope, once its nesting is known to be within
        // the parser's.
        if checked_depth {
            if let Some(message) = request::request(line) {
                return Some(Decoded::Message(message));
            }
        }
        match serde_json::from_slice(line) {
            Ok(value) => Some(value),
            Err(_) if exceeds_depth(line, max_depth) => None,
            Err(_) => return Some(Decoded::Bad { id: sniff_id(line), error: BridgeError::new(Cause::ParseError) }),
        }
    };
    let Some(value) = parsed else {
        let error = BridgeError::new(Cause::TooDeep).with_detail(format!("limit: {max_depth} levels"));
        return Some(Decoded::Bad { id: sniff_id(line), error });
    };
    Some(match Message::classify(value) {
        Message::Invalid { id } => Decoded::Bad { id, error: BridgeError::new(Cause::InvalidRequestShape) },
        message => Decoded::Message(message),
    })
}

/// A blank line holds only JSON whitespace (RFC 8259: space, tab, line
/// feed, carriage return). A form feed is not JSON whitespace: such a line
/// gets `parse_error`.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> Vec<u8> {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels)).into_bytes()
    }

    /// `decode` skips the pre-scan of a line that parses when the limit is
    /// at or above `PARSER_MAX_DEPTH`; that is sound only while the parser
    /// refuses anything deeper.
    #[test]
    fn the_parser_refuses_more_than_parser_max_depth_levels() {
        assert!(serde_json::from_slice::<serde_json::Value>(&nested(PARSER_MAX_DEPTH)).is_ok());
        assert!(serde_json::from_slice::<serde_json::Value>(&nested(PARSER_MAX_DEPTH + 1)).is_err());
    }

    #[test]
    fn too_deep_and_parse_error_are_told_apart_at_every_limit() {
        let cause = |line: &[u8], max: usize| match decode(&Frame::Line(line.to_vec()), 1 << 20, max) {
            Some(Decoded::Bad { error, .. }) => Some(error.cause),
            _ => None,
        };
        for max in [64usize, 126, 127, 128, 200] {
            for levels in [max.saturating_sub(1), max, max + 1] {
                let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":".to_vec();
                line.extend(nested(levels));
                line.push(b'}');
                // The envelope is one level more.
                let depth = levels + 1;
                let want = if depth > max {
                    Some(Cause::TooDeep)
                } else if depth > PARSER_MAX_DEPTH {
                    Some(Cause::ParseError)
                } else {
                    None
                };
                assert_eq!(cause(&line, max), want, "limit {max}, {levels} levels");
                // Broken after the nesting: still too deep when over the limit.
                line.pop();
                line.extend(b",}");
                let want = if depth > max { Some(Cause::TooDeep) } else { Some(Cause::ParseError) };
                assert_eq!(cause(&line, max), want, "broken, limit {max}, {levels} levels");
            }
        }
    }
}
