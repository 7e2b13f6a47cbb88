//! The raw path for the upstream's results: a result response
//! whose members no rule has to rewrite goes to the client as the bytes that
//! came, without a `Value` tree and without a second serialization: a line
//! of a pipe, an HTTP body, the data of an event alike.
//!
//! The full path parses each message into a `Value`, applies the rules, and
//! serializes the tree again: for a 32 MiB result that is three copies of
//! the line in memory and most of the bridge's time, and for a small call a
//! score of allocations. Here the upstream reader checks the envelope of
//! each result message without building its members ([`read::response`]),
//! the request's task checks the members that the result rules name
//! ([`rules::apply`]), and the writer writes the untouched members
//! straight from the line that was read. A big list gets its rules on the
//! text where it lies (`list`, `schema`): the members and the schemas are
//! found with `scan`, which builds nothing, each R6 repair is a patch at a
//! byte offset, and the `tools` array is copied once with its patches when a
//! repair changed it (docs/benchmarks.md has the figures of each step).
//!
//! Either step hands the line to the full path at the first doubt, so the
//! full path keeps every error and every rule that removes or replaces a
//! member (the text mirror, a missing content array, a `nextCursor` that
//! gives a warning, an `outputSchema` that goes), the schemas deeper than
//! R6's limit and the objects with a member name twice. What the raw path
//! gives is the same JSON as the full path, with the same notes: the same
//! members in the same order with the same values and number text; only the
//! whitespace and the escapes of the server's text stay as it wrote them,
//! outside the envelope, the result's names and the patches. `props::raw`
//! checks that against the full path on the same input (proptest and the
//! `raw_path` fuzz target).

mod edit;
mod list;
pub(crate) mod read;
pub(crate) mod rules;
mod scan;
mod schema;

use crate::pipe::KeptBuffer;
use bytes::Bytes;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// The result of a response, as its text within the line that came. The
/// line is a `String`: its UTF-8 is checked once, before the envelope's
/// parse, and the rules read the result as `str` without a second check,
/// which would cost a pass over the whole line.
#[derive(Debug, Clone)]
pub(crate) struct RawResult {
    line: Arc<Owned>,
    start: usize,
    end: usize,
}

/// The line of a raw result. Its buffer goes back to the pipe's kept buffer
/// when the last piece of the response that shares it is written.
struct Owned {
    text: String,
    kept: KeptBuffer,
}

impl Drop for Owned {
    fn drop(&mut self) {
        self.kept.give_back(std::mem::take(&mut self.text).into_bytes());
    }
}

impl fmt::Debug for Owned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Owned({} bytes)", self.text.len())
    }
}

/// A piece of a line, for the writer: `Bytes` that keep the line.
struct Piece {
    line: Arc<Owned>,
    start: usize,
    end: usize,
}

impl AsRef<[u8]> for Piece {
    fn as_ref(&self) -> &[u8] {
        self.line.text.as_bytes().get(self.start..self.end).unwrap_or_default()
    }
}

impl RawResult {
    /// The result at `start..end` of `line`; the line's buffer goes back to
    /// `kept` when the result and its pieces are dropped.
    fn new(line: String, (start, end): (usize, usize), kept: KeptBuffer) -> RawResult {
        RawResult { line: Arc::new(Owned { text: line, kept }), start, end }
    }

    /// The JSON text of the result.
    pub(crate) fn text(&self) -> &str {
        self.line.text.get(self.start..self.end).unwrap_or_default()
    }

    /// The result as a `Value`, the way the full path would have parsed it
    /// (for a caller or a rule that needs the tree).
    pub(crate) fn to_value(&self) -> serde_json::Result<Value> {
        serde_json::from_str(self.text())
    }

    /// The bytes of `part`, a slice of [`RawResult::text`], without a copy.
    fn share(&self, part: &[u8]) -> Bytes {
        let base = self.line.text.as_ptr() as usize;
        let start = (part.as_ptr() as usize).wrapping_sub(base);
        match start.checked_add(part.len()) {
            Some(end) if end <= self.line.text.len() => {
                Bytes::from_owner(Piece { line: self.line.clone(), start, end })
            }
            _ => Bytes::copy_from_slice(part),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of a raw result keep its line, with no copy, and the
    /// line's buffer goes back to the pipe's kept buffer when the last of them
    /// is dropped; a slice of anything else is copied.
    #[tokio::test]
    async fn the_line_goes_back_to_the_kept_buffer_after_its_last_piece() {
        let kept = KeptBuffer::default();
        let mut line = br#"{"jsonrpc":"2.0","id":1,"result":{"text":""#.to_vec();
        line.extend(vec![b'x'; 100_000]);
        line.extend(br#""}}"#);
        let at = line.as_ptr();
        let (_, raw) = read::response(line, &kept).expect("a result response");
        let part = raw.text().as_bytes().get(9..100_009).unwrap_or_default();
        let piece = raw.share(part);
        assert_eq!((piece.as_ptr(), piece.len()), (part.as_ptr(), 100_000), "no copy");
        let other = raw.share(b"elsewhere");
        assert_ne!(other.as_ptr(), b"elsewhere".as_ptr());
        assert_eq!(&other[..], b"elsewhere");
        drop(raw);
        assert!(kept.take_larger(0).is_none(), "a piece is still out");
        assert!(piece.iter().all(|&b| b == b'x'));
        drop(piece);
        let back = kept.take_larger(0).expect("the buffer came back");
        assert_eq!((back.as_ptr(), back.len()), (at, 0));
    }
}
