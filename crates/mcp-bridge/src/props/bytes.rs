//! Turns the raw bytes of a fuzz input into the arguments of a check. The
//! first bytes pick the options (a limit, a method, quirks); the rest is
//! the data, so that a seed is a small header followed by a spec example.

/// A cursor over fuzz input that never fails: past the end, each option
/// reads as zero.
pub(crate) struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    /// The next byte, or 0 at the end.
    pub(crate) fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    /// The next two bytes as a little-endian number.
    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The next `n` bytes (fewer at the end).
    pub(crate) fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }

    /// All the bytes left.
    pub(crate) fn rest(self) -> &'a [u8] {
        self.data
    }

    /// The bytes left as JSON, when they parse.
    pub(crate) fn json(self) -> Option<serde_json::Value> {
        serde_json::from_slice(self.data).ok()
    }
}
