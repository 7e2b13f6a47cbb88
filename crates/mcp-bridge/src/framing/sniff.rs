//! Id sniffing: the id of the top-level object of a line that cannot be
//! parsed, found in its bytes (behaviour spec, "Lines that are not valid":
//! "The front end finds the id member of the top-level object in the
//! text").
//!
//! The front of the line is walked member by member at depth 1. Only for a
//! line that is too long is the end read too ("For a line that is too long,
//! the front end also examines the end of the line"), backwards, because
//! the TypeScript SDK 1.x writes `id` as the last member; the [`Nesting`]
//! of the bytes before the end tells whether an `id` there is a member of
//! the top-level object, and not of an object inside it.

use crate::jsonrpc::Id;

/// Where JSON text read in pieces is: the depth of its objects and arrays,
/// and whether it is inside a string. The line reader feeds it every byte
/// of an overlong line that it drops before the kept end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Nesting {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Nesting {
    /// Reads on through `bytes`.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth = self.depth.saturating_add(1),
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    /// The depth after `bytes`, when that is not inside a string.
    fn depth_after(mut self, bytes: &[u8]) -> Option<usize> {
        self.feed(bytes);
        (!self.in_string).then_some(self.depth)
    }
}

/// The id of the top-level members before the bytes stop or break. Like
/// the parser (`serde_json`), the last of repeated `id` members wins, and
/// a key written with escapes (`"\u0069d"`) is `id` too: on a valid object
/// the sniffed id is the parsed id.
pub(crate) fn sniff_id_at_start(bytes: &[u8]) -> Option<Id> {
    let mut s = Scanner { bytes, pos: 0 };
    let mut last = None;
    // The walk ends at `}` or where the bytes break; either way, the id is
    // the last complete `id` member before that.
    let _ = (|| -> Option<()> {
        s.skip_ws();
        s.expect(b'{')?;
        loop {
            s.skip_ws();
            let key = s.string()?;
            s.skip_ws();
            s.expect(b':')?;
            s.skip_ws();
            let start = s.pos;
            s.value()?;
            if is_id_key(key) {
                last = bytes.get(start..s.pos);
            }
            s.skip_ws();
            s.expect(b',')?;
        }
    })();
    last.and_then(parse_id)
}

/// Whether a key, with its quotes, is `"id"`. Escapes are decoded only for
/// short keys: `id` with both letters as `\uXXXX` has 14 bytes.
fn is_id_key(key: &[u8]) -> bool {
    key == b"\"id\""
        || (key.len() <= 14 && key.contains(&b'\\') && serde_json::from_slice::<String>(key).is_ok_and(|k| k == "id"))
}

/// The id when it is the last member of the top-level object: `"id": v }`
/// at the end of the bytes, where `before_tail` is the nesting of the line's
/// bytes before them: the key must be at depth 1.
pub(crate) fn sniff_id_at_end(bytes: &[u8], before_tail: Nesting) -> Option<Id> {
    let mut end = trim_end(bytes, bytes.len());
    if end == 0 || bytes[end - 1] != b'}' {
        return None;
    }
    end = trim_end(bytes, end - 1);
    let value_end = end;
    let value_start = if end > 0 && bytes[end - 1] == b'"' {
        string_start(bytes, end - 1)?
    } else {
        let mut i = end;
        while i > 0 && matches!(bytes[i - 1], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
            i -= 1;
        }
        i
    };
    if value_start == value_end {
        return None;
    }
    let before = trim_end(bytes, value_start);
    let colon = before.checked_sub(1).filter(|&i| bytes[i] == b':')?;
    let key_end = trim_end(bytes, colon);
    let key_start = key_end.checked_sub(4)?;
    if &bytes[key_start..key_end] != b"\"id\"" {
        return None;
    }
    let sep = trim_end(bytes, key_start).checked_sub(1)?;
    if !matches!(bytes[sep], b',' | b'{') {
        return None;
    }
    if before_tail.depth_after(&bytes[..key_start]) != Some(1) {
        return None;
    }
    parse_id(&bytes[value_start..value_end])
}

fn parse_id(token: &[u8]) -> Option<Id> {
    serde_json::from_slice(token).ok().and_then(Id::from_value)
}

fn trim_end(bytes: &[u8], mut end: usize) -> usize {
    while end > 0 && matches!(bytes[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
        end -= 1;
    }
    end
}

/// The index of the quote that opens the string whose closing quote is at
/// `close`: the first earlier quote not escaped by an odd run of `\`.
fn string_start(bytes: &[u8], close: usize) -> Option<usize> {
    let mut i = close;
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let slashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if slashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// A forward walk over JSON text that only finds where values end.
struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.pos += 1)
    }

    /// A string with its quotes; returns its raw bytes.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.pos;
        self.expect(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return self.bytes.get(start..self.pos);
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Skips one value of any kind. An object or an array ends at its own
    /// closing bracket: a `]` that closes a `{` breaks the text there, and
    /// nothing after it is a member of the top-level object.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut open: Vec<u8> = Vec::new();
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' => open.push(b'}'),
                        b'[' => open.push(b']'),
                        close @ (b'}' | b']') => {
                            if open.pop()? != close {
                                return None;
                            }
                            if open.is_empty() {
                                self.pos += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                let start = self.pos;
                while !matches!(self.peek()?, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    self.pos += 1;
                }
                (self.pos > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: Option<Id>) -> Option<String> {
        id.map(|i| i.key())
    }

    #[test]
    fn the_id_is_found_at_the_start_at_depth_one_only() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"jsonrpc":"2.0","id":7,"method":"x", bad"#, Some("7")),
            (r#"{"params":{"id":9},"id":"a\"b","method"#, Some(r#""a\"b""#)),
            (r#"{"params":{"id":9}, garbage"#, None),
            (r#"{"id":1.5,"x":"#, None),
            (r#"{"id":null,"#, None),
            (r#"{"id":true,"#, None),
            (r#"{"id":{"a":1},"#, None),
            (r#"{"a":"}","id":-0,"#, Some("-0")),
            (r#"{"id":123456789012345678901234,"#, Some("123456789012345678901234")),
            (r#"[{"id":1}]"#, None),
            (r#"{"id""#, None),
            // Found by the `sniff` property (proptest and fuzz target): the
            // parser keeps the last of repeated members, and reads escapes
            // in keys.
            (r#"{"id":0,"id":-0}"#, Some("-0")),
            (r#"{"id":1,"x":2,"id":"b", bad"#, Some(r#""b""#)),
            (r#"{"id":1,"id":1.5,"#, None),
            (r#"{"\u0069d":4,"#, Some("4")),
            (r#"{"i\u0064":4}"#, Some("4")),
            (r#"{"\u0069dx":4}"#, None),
            // A `]` that closes a `{` breaks the text: the `id` after it is
            // no member of the top-level object.
            (r#"{"params":{"ref":{"x":1]],"id":7,"z":"#, None),
            (r#"{"params":{"ref":[{"x":1}]},"id":7,"z":"#, Some("7")),
        ];
        for (text, expected) in cases {
            assert_eq!(key(sniff_id_at_start(text.as_bytes())).as_deref(), *expected, "{text}");
        }
    }

    /// The end of a line over the limit, after the bytes that the reader
    /// dropped: `{"a":"` opens the top-level object and a string.
    #[test]
    fn the_id_is_found_as_the_last_member_of_the_top_level_object_at_the_end() {
        let dropped = |text: &str| {
            let mut nesting = Nesting::default();
            nesting.feed(text.as_bytes());
            nesting
        };
        let top = dropped(r#"{"a":"x"#);
        let cases: &[(&str, Nesting, Option<&str>)] = &[
            (r#"xxxx","id":42}"#, top, Some("42")),
            ("xxxx\",\"id\" : \"b-3\" }\r", top, Some("\"b-3\"")),
            (r#"xx{"id":5}}"#, top, None),
            (r#"xx,"params":{"id":5}}"#, top, None),
            (r#"xx","id":"a\\"}"#, top, Some(r#""a\\""#)),
            (r#"xx","xid":5}"#, top, None),
            (r#"xx","id":5.0}"#, top, None),
            (r#"5}"#, top, None),
            (r#""#, top, None),
            // A line cut short inside `params`: the `id` at its end is a
            // member of a nested object, not of the top-level one.
            (r#"xx","ref":{"id":7}"#, top, None),
            (r#"x"}]},"id":7}"#, dropped(r#"{"params":{"list":[{"k":"x"#), Some("7")),
            (r#"x"},"id":7}"#, dropped(r#"{"params":{"list":[{"k":"x"#), None),
            // A `{` and a quote inside a string do not count.
            (r#"{\"]","id":7}"#, dropped(r#"{"a":"x"#), Some("7")),
        ];
        for (text, before, expected) in cases {
            assert_eq!(key(sniff_id_at_end(text.as_bytes(), *before)).as_deref(), *expected, "{text}");
        }
    }
}
