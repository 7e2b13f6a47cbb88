//! The fast path for big results of a pipe (issue 15): a result response
//! whose members no rule has to rewrite goes to the client as the bytes
//! that came, without a `Value` tree and without a second serialization.
//!
//! The full path parses each line into a `Value`, applies the rules, and
//! serializes the tree again: for a 32 MiB result that is three copies of
//! the line in memory and most of the bridge's time. Here the upstream
//! reader checks the envelope of a big line without building its members
//! ([`envelope::response`]), the request's task checks the members that the
//! result rules name ([`result::result_line`]), and the writer writes the
//! untouched members straight from the line that was read. A big list gets
//! its rules on the text where it lies (`list`, `schema`): the members and
//! the schemas are found with `scan`, which builds nothing, each R6 repair
//! is a patch at a byte offset, and the `tools` array is copied once with
//! its patches when a repair changed it. A `tools/list` of 2,000 repaired
//! tools went from 24 ms to about 10 ms with the first fast path (schema
//! trees of serde_json's seeds), and to about 3 ms of the bridge's CPU so.
//!
//! Either step hands the line to the full path at the first doubt, so the
//! full path keeps every error and every rule that removes or replaces a
//! member (the text mirror, a missing content array, a `nextCursor` that
//! gives a warning, an `outputSchema` that goes), the schemas deeper than
//! R6's limit and the objects with a member name twice. What the fast path
//! gives is the same JSON as the full path, with the same notes: the same
//! members in the same order with the same values and number text; only
//! the whitespace and the escapes of the server's text stay as it wrote
//! them, outside the envelope, the result's names and the patches. `props::fast` checks that against the full path on
//! the same input (proptest and the `fast_path` fuzz target).

pub mod envelope;
mod list;
pub mod result;
mod scan;
mod schema;

use bytes::Bytes;
use serde_json::Value;

/// Lines from this size on take the fast path. Below it the full path is
/// as quick, and a small line gains nothing from being kept.
pub const MIN_BYTES: usize = 64 * 1024;

/// The result of a response, as its bytes within the line that came.
#[derive(Debug, Clone)]
pub struct RawResult {
    line: Bytes,
    start: usize,
    end: usize,
}

impl RawResult {
    /// The JSON text of the result.
    pub fn text(&self) -> &[u8] {
        &self.line[self.start..self.end]
    }

    /// The result as a `Value`, the way the full path would have parsed it
    /// (for a caller or a rule that needs the tree).
    pub fn to_value(&self) -> serde_json::Result<Value> {
        serde_json::from_slice(self.text())
    }

    /// The bytes of `part`, a slice of [`RawResult::text`], without a copy.
    fn share(&self, part: &[u8]) -> Bytes {
        let base = self.line.as_ptr() as usize;
        let at = (part.as_ptr() as usize).wrapping_sub(base);
        match at.checked_add(part.len()) {
            Some(end) if end <= self.line.len() => self.line.slice(at..end),
            _ => Bytes::copy_from_slice(part),
        }
    }
}
