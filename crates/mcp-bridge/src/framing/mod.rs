//! Framing: what a line of newline-delimited JSON-RPC is, with the limits
//! (behaviour spec, "Forwarded requests (M1)" limits and "Lines that are
//! not valid"). Pure: the pipes that read and write the lines are `pipe`.
//!
//! Check, then parse: a line that the bounded reader gave goes through the
//! depth pre-scan, and only then to `serde_json`. A line that fails a
//! check still yields its id when one can be sniffed from its bytes, so
//! that the error goes to the right request.

mod sniff;

pub(crate) use sniff::{sniff_id_at_end, sniff_id_at_start, Nesting};

use crate::jsonrpc::{exceeds_depth, BridgeError, Cause, Id, Message, PARSER_MAX_DEPTH};

/// The nesting limit of a message of the client.
pub(crate) const MAX_DEPTH: usize = 64;

/// One line of input, without its `\n`, as the bounded reader gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A line within the limit.
    Line(Vec<u8>),
    /// A line over the limit: only its two ends are kept, and the nesting
    /// of the bytes before the tail.
    TooLong { head: Vec<u8>, tail: Vec<u8>, before_tail: Nesting },
}

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
        Frame::TooLong { head, tail, before_tail } => {
            let id = sniff_id_at_start(head).or_else(|| sniff_id_at_end(tail, *before_tail));
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
            if let Some(message) = crate::jsonrpc::plain_request(line) {
                return Some(Decoded::Message(message));
            }
        }
        match serde_json::from_slice(line) {
            Ok(value) => Some(value),
            Err(_) if exceeds_depth(line, max_depth) => None,
            Err(_) => {
                return Some(Decoded::Bad { id: sniff_id_at_start(line), error: BridgeError::new(Cause::ParseError) })
            }
        }
    };
    let Some(value) = parsed else {
        let error = BridgeError::new(Cause::TooDeep).with_detail(format!("limit: {max_depth} levels"));
        return Some(Decoded::Bad { id: sniff_id_at_start(line), error });
    };
    Some(match Message::classify(value) {
        Message::Invalid { id } => Decoded::Bad { id, error: BridgeError::new(Cause::InvalidRequestShape) },
        message => Decoded::Message(message),
    })
}

/// Decodes a line of a client that may send batches (revision 2025-03-26,
/// JSON-RPC 2.0 "Batch"): a non-empty array gives one `Decoded` per
/// element, in order; `None` for anything else, which [`decode`] then
/// decodes as one message (an empty array is one request that is not
/// valid). The array is one level more than its elements, so each element
/// keeps the limit of a single line.
pub(crate) fn decode_batch(frame: &Frame, max_depth: usize) -> Option<Vec<Decoded>> {
    let Frame::Line(line) = frame else { return None };
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))?;
    if line.get(start) != Some(&b'[') {
        return None;
    }
    // A line deeper than the parser's limit is one too deep line.
    let Ok(serde_json::Value::Array(elements)) = serde_json::from_slice(line) else { return None };
    if elements.is_empty() {
        return None;
    }
    let decoded = elements.into_iter().map(|element| {
        if depth(&element) > max_depth {
            let id = element.get("id").cloned().and_then(Id::from_value);
            let error = BridgeError::new(Cause::TooDeep).with_detail(format!("limit: {max_depth} levels"));
            return Decoded::Bad { id, error };
        }
        match Message::classify(element) {
            Message::Invalid { id } => Decoded::Bad { id, error: BridgeError::new(Cause::InvalidRequestShape) },
            message => Decoded::Message(message),
        }
    });
    Some(decoded.collect())
}

/// The levels of nesting of a value, as the pre-scan counts them: each
/// array and object is one. The parser bounds the recursion.
fn depth(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        serde_json::Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
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

    /// A batch: one decoded message per element, in order; an element that
    /// is no message is not valid on its own; an element deeper than a
    /// single line may be makes the whole line a single (too deep) one.
    #[test]
    fn a_batch_decodes_element_by_element() {
        let batch = |text: &str| decode_batch(&Frame::Line(text.as_bytes().to_vec()), 3);
        let got = batch(r#" [{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}]"#);
        let Some(
            [Decoded::Message(Message::Request { .. }), Decoded::Bad { id: None, error }, Decoded::Message(Message::Notification { .. })],
        ) = got.as_deref()
        else {
            panic!("{got:?}");
        };
        assert_eq!(error.cause, Cause::InvalidRequestShape);
        assert_eq!(batch("[]"), None);
        assert_eq!(batch(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(batch("[1,"), None);
        // Three levels in each element: within the limit of 3; a deeper
        // element gets its own error, with its id, beside the others.
        assert!(batch(r#"[{"a":{"b":{}}}]"#).is_some());
        let got = batch(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"p","params":{"a":{"b":{}}}}]"#,
        );
        let Some([Decoded::Message(Message::Request { .. }), Decoded::Bad { id: Some(id), error }]) = got.as_deref()
        else {
            panic!("{got:?}");
        };
        assert_eq!((id.as_value(), error.cause), (&serde_json::json!(2), Cause::TooDeep));
    }
}
