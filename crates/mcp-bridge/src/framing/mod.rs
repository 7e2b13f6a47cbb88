//! Framing: newline-delimited JSON-RPC with limits (behaviour spec,
//! "Forwarded requests (M1)" limits and "Lines that are not valid").
//!
//! Check, then parse: a line goes through the bounded reader, then the
//! depth pre-scan, and only then to `serde_json`. A line that fails a
//! check still yields its id when one can be sniffed from its bytes, so
//! that the error goes to the right request.

mod depth;
mod reader;
mod sniff;
mod writer;

pub use depth::exceeds_depth;
pub use reader::{Frame, LineReader, EDGE_BYTES};
pub use sniff::{sniff_id, sniff_id_at_end, sniff_id_at_start};
pub use writer::write_lines;

use crate::jsonrpc::{BridgeError, Cause, Id, Message};

/// The nesting limit of a message of the client.
pub const MAX_DEPTH: usize = 64;

/// What one line of a peer is.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A message with a valid envelope.
    Message(Message),
    /// A line that failed a check. `id` is the sniffed id, when valid.
    Bad { id: Option<Id>, error: BridgeError },
}

/// Decodes one frame; `None` for a blank line, which the framer skips.
pub fn decode(frame: &Frame, max_line_bytes: usize, max_depth: usize) -> Option<Decoded> {
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
    if exceeds_depth(line, max_depth) {
        let error = BridgeError::new(Cause::TooDeep).with_detail(format!("limit: {max_depth} levels"));
        return Some(Decoded::Bad { id: sniff_id(line), error });
    }
    match serde_json::from_slice(line) {
        Ok(value) => Some(match Message::classify(value) {
            Message::Invalid { id } => Decoded::Bad { id, error: BridgeError::new(Cause::InvalidRequestShape) },
            message => Decoded::Message(message),
        }),
        Err(_) => Some(Decoded::Bad { id: sniff_id(line), error: BridgeError::new(Cause::ParseError) }),
    }
}

/// A blank line holds only JSON whitespace (RFC 8259: space, tab, line
/// feed, carriage return). A form feed is not JSON whitespace: such a line
/// gets `parse_error`.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}
